//! What only lab 6's tests check (what every lab's check the same way is in
//! `every_lab.rs`): a lab without race checks refusing one, and known-wrong submissions
//! reported as the handout quotes them (a real sleep, a slot given back early, a blocked
//! request, a queue that spins, a wake-up before the hand-over).

use crate::subs::{Layout, apply_mutant, edit, folder, write};
use crate::util::{grader, kit, scratch_kit, stdout, transcript};

/// Lab 6's student files, relative to the student crate.
const FILES: [&str; 6] = [
    "src/attempt.rs",
    "src/breaker.rs",
    "src/bulkhead.rs",
    "src/retry.rs",
    "src/client.rs",
    "src/shop.rs",
];

/// The reference with the edits of the mutants `names` (`labs/lab6/mutants/`).
fn mutated(names: &[&str]) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = FILES
        .iter()
        .map(|f| {
            let path = kit().join("solutions/lab6").join(f);
            let text = std::fs::read_to_string(&path).expect("read the reference");
            ((*f).to_owned(), text)
        })
        .collect();
    for name in names {
        apply_mutant("lab6", name, &mut files);
    }
    files
}

fn handout() -> String {
    std::fs::read_to_string(kit().join("labs/lab6/README.md")).expect("read the handout")
}

/// A lab whose `lab.json` has no `"race"` object has no race checks (here lab 6 with that
/// object taken out): a scenario that asks for one is refused, with what it takes to have
/// them.
#[test]
fn a_race_check_is_refused_in_a_lab_without_race_checks() {
    let scratch = scratch_kit(&["Cargo.toml", "labs/lab6"]);
    let manifest = scratch.path().join("labs/lab6/lab.json");
    let mut lab: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("JSON");
    lab.as_object_mut().expect("an object").remove("race");
    std::fs::write(&manifest, lab.to_string()).expect("write lab.json");
    for race in ["scenarios", "hidden"] {
        let folder = scratch.path().join("labs/lab6").join(race);
        for entry in std::fs::read_dir(&folder)
            .expect("read the folder")
            .flatten()
        {
            if entry.file_name().to_string_lossy().starts_with("race_") {
                std::fs::remove_file(entry.path()).expect("remove a race check");
            }
        }
    }
    let from = scratch
        .path()
        .join("labs/lab6/scenarios/br_one_probe_then_closed.json");
    let mut scenario: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(from).expect("read")).expect("JSON");
    scenario["name"] = "a_race".into();
    scenario["race"] = true.into();
    let draft = "labs/lab6/drafts/a_race.json";
    let path = scratch.path().join(draft);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("create drafts");
    std::fs::write(&path, scenario.to_string()).expect("write the draft");
    let output = grader()
        .current_dir(scratch.path())
        .args(["validate", draft])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    let text = transcript(&output);
    assert!(
        text.contains("this is a race check, but lab6 has no race checks")
            && text.contains("remove \"race\": true")
            && text.contains("1 problem"),
        "{text}"
    );
}

/// One submission with two mistakes: a pause with `thread::sleep`, named at its line with
/// lab 6's way to wait, and a slot given back at the timeout, reported as the handout
/// shows it.
#[test]
fn a_real_sleep_is_named_and_a_slot_given_back_early_is_reported_as_the_handout_shows() {
    let dir = folder("lab6-sleep");
    let files = mutated(&["real_sleep", "slot_released_at_timeout"]);
    let line = files
        .iter()
        .find(|(f, _)| f == "src/client.rs")
        .and_then(|(_, text)| text.lines().position(|l| l.contains("std::thread::sleep")))
        .expect("the real sleep")
        + 1;
    write(&dir, Layout::Crate, &files);
    let output = grader()
        .args(["check", "lab6", "--submission"])
        .arg(&*dir)
        .args(["--scenario", "qu_slot_held_until_the_call_ends"])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let text = stdout(&output);
    let warning = format!(
        "Rule breaks found in the code itself:\n  src/client.rs:{line}: `thread::sleep` sleeps in real time: the grader moves a fake clock, so read time only through the injected `Clock` (`clock.now()`) and wait only through it too: `clock.sleep_until` for a pause"
    );
    assert!(text.contains(&warning), "{text}");
    let handout = handout();
    for quoted in [
        "          step 5 at 00:00:00.300: send 1 checkout",
        "            expected: queued",
        "            observed: held",
        "              3. 00:00:00.000 advance the clock by 300 ms -> 8x timeout",
        "                  shipping CLOSED timeout=8 calls=8 in_flight=8 peak=8",
        "          >>  5. 00:00:00.300 send 1 checkout -> #9 held",
        "                  shipping CLOSED held=1 timeout=8 calls=9 in_flight=9 peak=9",
    ] {
        assert!(
            text.contains(quoted),
            "the report lacks {quoted:?}:\n{text}"
        );
        assert!(handout.contains(quoted), "the handout lacks {quoted:?}");
    }
}

/// Requests blocked inside the shop get a hint from what the harness saw while they were:
/// a breaker whose lock is held during the attempt blocks the state read too; a lock of
/// the shop's own held during a checkout leaves the state readable, and the hint says it
/// is not the breaker's lock they wait for; with no request stuck, the grader's own look
/// at the shop after the step blocks, and is told as such.
#[test]
fn a_blocked_request_is_told_whose_lock_it_waits_for() {
    let mut shop_lock = mutated(&[]);
    for (find, replace) in [
        (
            "    log: TransitionLog,\n}",
            "    log: TransitionLog,\n    gate: std::sync::Mutex<()>,\n}",
        ),
        (
            "        Self { clients, log }",
            "        Self {\n            clients,\n            log,\n            gate: std::sync::Mutex::new(()),\n        }",
        ),
        (
            "        match shipping.call(order.id) {",
            "        let _gate = self.gate.lock();\n        match shipping.call(order.id) {",
        ),
    ] {
        edit(&mut shop_lock, "src/shop.rs", find, replace);
    }
    let queue_full = "qu_eight_active_ten_queued_then_no_capacity";
    for (name, files, scenario, words) in [
        (
            "lab6-breaker-lock",
            mutated(&["lock_held_during_attempt"]),
            queue_full,
            "Reading the dependency's circuit state blocked too: the breaker's lock is held",
        ),
        (
            "lab6-shop-lock",
            shop_lock,
            queue_full,
            "so it is not the breaker's lock they wait for",
        ),
        // One checkout held by the vendor keeps the breaker's lock: no request is stuck
        // (it waits on the clock), but the harness's look at the shop after the step
        // blocks, and is told at once.
        (
            "lab6-breaker-lock-read",
            mutated(&["lock_held_during_attempt"]),
            "qu_gone_the_instant_after_its_wait",
            "Asking the shop after the step (Shop::circuit_state, Shop::metrics or Shop::transitions) blocked for good",
        ),
    ] {
        let dir = folder(name);
        write(&dir, Layout::Crate, &files);
        let output = grader()
            .args(["check", "lab6", "--submission"])
            .arg(&*dir)
            .args(["--scenario", scenario, "--format", "json"])
            .output()
            .expect("run the grader");
        let report: serde_json::Value =
            serde_json::from_str(&stdout(&output)).expect("a JSON report");
        assert_eq!(report["start_here"]["scenario"], scenario);
        let hint = report["start_here"]["hint"].as_str().unwrap_or_default();
        assert!(hint.contains(words), "{name}: {}", transcript(&output));
    }
}

/// The natural reading of "removed when it has waited longer than 20 ms" (wait until
/// joined + 20 ms, leave once more than 20 ms have passed) spins at exactly 20 ms, and the
/// stuck report says how to wait until just past the limit instead of telling the student
/// to give up at it.
#[test]
fn a_queue_that_spins_at_its_limit_is_told_to_wait_until_just_after_it() {
    let mut files = mutated(&[]);
    for (find, replace) in [
        (
            "        let gone_at = just_after(self.clock.now() + self.settings.max_queue_wait).min(deadline);",
            "        let joined = self.clock.now();\n        let gone_at = (joined + self.settings.max_queue_wait).min(deadline);",
        ),
        (
            "            if self.clock.now() >= gone_at {",
            "            let now = self.clock.now();\n            if now - joined > self.settings.max_queue_wait || now >= deadline {",
        ),
    ] {
        edit(&mut files, "src/bulkhead.rs", find, replace);
    }
    let dir = folder("lab6-spinning-queue");
    write(&dir, Layout::Crate, &files);
    let output = grader()
        .args(["check", "lab6", "--submission"])
        .arg(&*dir)
        .args([
            "--scenario",
            "qu_twenty_one_ms_is_too_long",
            "--format",
            "json",
        ])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("a JSON report");
    let hint = report["start_here"]["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("returns at once, every time")
            && hint.contains("shipping_kit::just_after(T + max_queue_wait)"),
        "{}",
        transcript(&output)
    );
    assert!(
        handout().contains("`shipping_kit::just_after(joined + max_queue_wait)`"),
        "the handout says how to wait until just after the limit"
    );
}

/// A `Slot::drop` that wakes the queue before it hands the slot over fails its race check
/// with the interleaving the handout quotes, line for line.
#[test]
fn a_wake_up_before_the_hand_over_is_told_as_the_handout_shows() {
    let dir = folder("lab6-early-wake-up");
    write(&dir, Layout::Crate, &mutated(&["notify_before_change"]));
    let output = grader()
        .args(["check", "lab6", "--submission"])
        .arg(&*dir)
        .args(["--scenario", "race_first_come_first_served"])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let text = stdout(&output);
    let handout = handout();
    let start = handout
        .find("```text\n  FAIL    race_first_come_first_served")
        .expect("the handout quotes a failing race_first_come_first_served");
    let quote = &handout[start + "```text\n".len()..];
    let quote = &quote[..quote.find("```").expect("the end of the quote")];
    for line in quote.lines() {
        assert!(
            text.contains(line.trim_end()),
            "the handout's line is not in the report: {line}\n{text}"
        );
    }
}
