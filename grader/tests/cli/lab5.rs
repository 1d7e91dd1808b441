//! What only lab 5's tests check (what every lab's check the same way is in
//! `every_lab.rs`): the reference graded as a submission, known-wrong submissions and
//! their reports, a scenario with many mistakes, a batch, `list` and `explain`, and two
//! labs graded at once.

use std::path::Path;

use crate::subs::{Layout, apply_mutant, edit, folder, json, write};
use crate::util::{grader, kit, scratch_kit, stdout, transcript};

/// Lab 5's declared files, relative to the student crate.
const FILES: [&str; 5] = [
    "src/observe.rs",
    "src/window.rs",
    "src/breaker.rs",
    "src/bulkhead.rs",
    "src/gateway.rs",
];

/// The reference's declared files.
fn reference_files() -> Vec<(String, String)> {
    FILES
        .iter()
        .map(|f| {
            let path = kit().join("solutions/lab5").join(f);
            let text = std::fs::read_to_string(&path).expect("read the reference");
            // The reference keeps its unit tests in a file students do not have.
            (
                (*f).to_owned(),
                text.replace("#[cfg(test)]\nmod tests;\n", ""),
            )
        })
        .collect()
}

/// The reference with mutant `name`'s edits (`labs/lab5/mutants/`).
fn mutant(name: &str) -> Vec<(String, String)> {
    let mut files = reference_files();
    apply_mutant("lab5", name, &mut files);
    files
}

/// A submission folder holding `files` as a crate (`src/...`).
fn submission(test: &str, files: &[(String, String)]) -> crate::subs::Folder {
    let dir = folder(test);
    write(&dir, Layout::Crate, files);
    dir
}

fn check_submission(dir: &Path, extra: &[&str]) -> std::process::Output {
    grader()
        .args(["check", "lab5", "--submission"])
        .arg(dir)
        .args(extra)
        .output()
        .expect("run the grader")
}

/// Graded as a submission, the reference gets every point, the hidden scenarios' too.
#[test]
fn the_reference_gets_full_marks_hidden_scenarios_included() {
    let dir = submission("lab5-reference", &reference_files());
    let output = check_submission(&dir, &["--format", "json"]);
    let report = json(&output);
    assert_eq!(
        (report["score"].as_u64(), report["max_score"].as_u64()),
        (Some(390), Some(390)),
        "{}",
        transcript(&output)
    );
}

/// A lab 5 scenario with many mistakes gets every one reported in one run, in lab 5's
/// words: a step on an unknown flow is still checked for the rest, and what it would have
/// done to the flow is not assumed. (A race check may send together on a flow that answers
/// at once, since it judges every interleaving: this draft is an ordinary scenario.)
#[test]
fn every_mistake_of_a_lab5_scenario_is_reported_in_one_run() {
    let scratch = scratch_kit(&["Cargo.toml", "labs/lab5"]);
    let draft = "labs/lab5/drafts/many_mistakes.json";
    let steps = [
        r#"{"script": {"flow": "acme/ORDER", "answer": "hold"}}"#,
        r#"{"send": {"flow": "acme/ORDERS", "count": 2, "expect_each": ["held"]}}"#,
        r#"{"send_concurrent": {"flow": "acme/ORDERS", "count": 3, "expect": {"held": 1, "circuit_opn": 1}}}"#,
        r#"{"release": {"flow": "globex/ORDERS", "answer": "2000"}}"#,
        r#"{"advance": {"ms": 0}}"#,
        r#"{"expect": {"flow": "acme/INVOIC", "state": "Open"}}"#,
        r#"{"expect_alerts": ["00:00:00.000 acme/ORDERS opened: 11 of 10 calls failed"]}"#,
    ];
    let text = format!(
        "{{\n  \"format_version\": 1,\n  \"name\": \"many_mistakes\",\n  \"title\": \"Many mistakes\",\n  \"category\": \"probes\",\n  \"points\": 3,\n  \"hints\": \"none\",\n  \"steps\": [\n    {}\n  ]\n}}\n",
        steps.join(",\n    ")
    );
    let path = scratch.path().join(draft);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("create drafts");
    std::fs::write(&path, text).expect("write the draft");
    let output = grader()
        .current_dir(scratch.path())
        .args(["validate", draft])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    insta::assert_snapshot!("many_mistakes", transcript(&output));
}

/// What a student sees when a failed probe does not restart the wait: the handout shows
/// this report.
#[test]
fn a_wait_that_is_not_restarted_is_reported_step_by_step() {
    let dir = submission("lab5-wait", &mutant("wait_not_restarted"));
    let output = check_submission(&dir, &["--scenario", "op_failed_probe_restarts_wait"]);
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let text = stdout(&output);
    let text = text.replace(&dir.display().to_string(), "DIR");
    let text = text
        .lines()
        .filter(|l| !l.starts_with("grader "))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("wait_not_restarted", text);
}

/// A probe checked for in one locked section and counted in another fails its race check
/// with the interleaving the handout quotes, line for line (its `...` lines aside).
#[test]
fn a_probe_checked_then_counted_is_told_as_the_handout_shows() {
    let dir = submission("lab5-probe-race", &mutant("probe_check_then_count"));
    let output = check_submission(&dir, &["--scenario", "race_probe_limit"]);
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let text = stdout(&output);
    let handout = std::fs::read_to_string(kit().join("labs/lab5/README.md")).expect("read");
    let start = handout
        .find("```text\n  FAIL    race_probe_limit")
        .expect("the handout quotes a failing race_probe_limit");
    let quote = &handout[start + "```text\n".len()..];
    let quote = &quote[..quote.find("```").expect("the end of the quote")];
    for line in quote.lines().filter(|l| l.trim() != "...") {
        assert!(
            text.contains(line.trim_end()),
            "the handout's line is not in the report: {line}\n{text}"
        );
    }
}

/// Messages stuck inside the gateway get a hint from what the harness saw while they
/// were: a breaker whose lock is held during the delivery blocks the state read too; a
/// bulkhead whose lock is held during it leaves the state readable, and the hint says it
/// is not the breaker's lock they wait for; with no message stuck, the grader's own read
/// of the gateway after the step blocks, and is told as such.
#[test]
fn a_stuck_message_is_told_whose_lock_it_waits_for() {
    let mut bulkhead_lock = reference_files();
    for (find, replace) in [
        (
            "    in_use: AtomicUsize,\n}",
            "    in_use: AtomicUsize,\n    gate: std::sync::Mutex<()>,\n}",
        ),
        (
            "            in_use: AtomicUsize::new(0),\n",
            "            in_use: AtomicUsize::new(0),\n            gate: std::sync::Mutex::new(()),\n",
        ),
        (
            "        };\n        call()\n",
            "        };\n        let _gate = self.gate.lock();\n        call()\n",
        ),
    ] {
        edit(&mut bulkhead_lock, "src/bulkhead.rs", find, replace);
    }
    let at_once = "al_one_alert_when_failures_land_at_once";
    for (name, files, scenario, words) in [
        (
            "lab5-breaker-lock",
            mutant("lock_held_during_call"),
            at_once,
            "Reading the flow's circuit state blocked too: the breaker's lock is held",
        ),
        (
            "lab5-bulkhead-lock",
            bulkhead_lock,
            at_once,
            "so it is not the breaker's lock they wait for",
        ),
        // One message held by the partner keeps the breaker's lock: no message is stuck
        // (it is inside the partner), but the harness's look at the gateway after the
        // step blocks, and is told at once.
        (
            "lab5-breaker-lock-read",
            mutant("lock_held_during_call"),
            "bh_full_bulkhead_answers_at_once",
            "Reading the gateway after the step (Gateway::circuit_state or Gateway::transitions) blocked for good",
        ),
    ] {
        let dir = submission(name, &files);
        let output = check_submission(&dir, &["--scenario", scenario, "--format", "json"]);
        let report = json(&output);
        let lead = &report["start_here"];
        assert_eq!(lead["scenario"], scenario, "{}", transcript(&output));
        let hint = lead["hint"].as_str().expect("a hint");
        assert!(hint.contains(words), "{name}: {hint}");
    }
}

/// Alerts show in the timeline next to the transition records, in the order they came.
#[test]
fn an_alert_on_every_failed_probe_is_reported_with_the_alerts() {
    let dir = submission("lab5-alerts", &mutant("alert_on_every_reopen"));
    let output = check_submission(
        &dir,
        &[
            "--scenario",
            "al_one_alert_per_outage",
            "-v",
            "--format",
            "json",
        ],
    );
    let report = json(&output);
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["status"], "failed", "{}", transcript(&output));
    let message = scenario["message"].as_str().expect("a message");
    assert!(
        message.contains("00:00:10.000 acme/ORDERS opened: 1 of 1 calls failed"),
        "{message}"
    );
    let timeline = scenario["timeline"].to_string();
    assert!(
        timeline.contains("00:00:00.000 alert: acme/ORDERS opened: 10 of 10 calls failed"),
        "{timeline}"
    );
}

#[test]
fn a_batch_of_lab5_submissions_becomes_a_gradebook() {
    let dir = folder("lab5-batch");
    write(&dir.join("alice"), Layout::Crate, &reference_files());
    write(
        &dir.join("bob"),
        Layout::Crate,
        &mutant("closes_on_first_probe"),
    );
    let out = dir.join("results");
    let output = grader()
        .args(["grade", "lab5"])
        .arg(&*dir)
        .arg("--results-dir")
        .arg(&out)
        .output()
        .expect("run the grader");
    // Grading a batch succeeds whatever the scores: they are in the gradebook.
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let book = std::fs::read_to_string(out.join("gradebook.csv")).expect("the gradebook");
    let row = |name: &str| -> Vec<String> {
        let line = book.lines().find(|l| l.starts_with(&format!("{name},")));
        line.expect("a row").split(',').map(str::to_owned).collect()
    };
    assert_eq!(row("alice")[2..4], ["390", "390"], "{book}");
    assert_ne!(row("bob")[2], "390", "{book}");
}

#[test]
fn list_and_explain_speak_of_flows_and_alerts() {
    let output = grader()
        .args(["list", "lab5"])
        .output()
        .expect("run the grader");
    insta::assert_snapshot!("list", stdout(&output));
    let output = grader()
        .args(["explain", "lab5", "pr_exactly_n_probes_at_once"])
        .output()
        .expect("run the grader");
    insta::assert_snapshot!("explain", stdout(&output));
}

/// Two labs graded at the same moment, as two students or two CI jobs on one kit would:
/// both labs have a crate called `solution`, and each must get its own build and full
/// marks, not the other lab's harness.
#[test]
fn two_labs_graded_at_once_do_not_build_over_each_other() {
    let runs: Vec<_> = ["lab4", "lab5"]
        .into_iter()
        .map(|lab| {
            std::thread::spawn(move || {
                let output = grader()
                    .args(["check", lab, "--solution"])
                    .output()
                    .expect("run the grader");
                (lab, output)
            })
        })
        .collect();
    for run in runs {
        let (lab, output) = run.join().expect("the thread ends");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{lab} graded beside another lab:\n{}",
            transcript(&output)
        );
    }
}
