//! Hints follow the step that failed: a report names the rule of the first step that
//! failed and the symptom seen there (a lab's `rules.json`), "Start here" names the rule
//! most failures point at, a scenario that fails as a side effect says where Start here
//! is, and stuck reports and counts say what happened in words that agree.
//!
//! That every mutant of every lab starts at its own rule is the audit's to check
//! (every_lab.rs); these tests hold the words a student reads and the files an
//! instructor writes.

use std::path::Path;

use crate::subs::{Folder, folder};
use crate::util::{grader, kit, scratch_kit, stdout, transcript};

/// A submission of `lab` (its crate's `src/` layout): the reference solution's files with
/// mutant `name`'s edits applied.
fn mutant(lab: &str, name: &str) -> Folder {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(kit().join("labs").join(lab).join("lab.json")).expect("lab.json"),
    )
    .expect("lab.json is JSON");
    let solution = kit().join(manifest["solution_crate"].as_str().expect("solution_crate"));
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            kit()
                .join("labs")
                .join(lab)
                .join("mutants")
                .join(format!("{name}.json")),
        )
        .expect("the mutant"),
    )
    .expect("the mutant is JSON");
    let dir = folder(&format!("hints-{lab}-{name}"));
    for file in manifest["student_files"].as_array().expect("student_files") {
        let file = file.as_str().expect("a file");
        let mut text = std::fs::read_to_string(solution.join(file)).expect("a reference file");
        for edit in m["edits"].as_array().expect("edits") {
            if edit["file"].as_str() == Some(file) {
                let find = edit["find"].as_str().expect("find");
                assert_eq!(text.matches(find).count(), 1, "{find}");
                text = text.replacen(find, edit["replace"].as_str().expect("replace"), 1);
            }
        }
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create src/");
        std::fs::write(path, text).expect("write a file");
    }
    dir
}

/// `grader check <lab> --submission <sub>` with `extra`, expecting a graded failure: the
/// human report with the submission's temporary folder named `[SUBMISSION]`.
fn check(lab: &str, sub: &Path, extra: &[&str]) -> String {
    let output = grader()
        .args(["check", lab, "--submission"])
        .arg(sub)
        .args(extra)
        .output()
        .expect("the grader runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout(&output).replace(&sub.display().to_string(), "[SUBMISSION]")
}

/// The report's entry for one scenario, from its status line to the next one.
fn entry<'a>(report: &'a str, scenario: &str) -> &'a str {
    let start = report
        .find(&format!(" {scenario} "))
        .and_then(|i| report[..i].rfind('\n'))
        .unwrap_or_else(|| panic!("{scenario} is in the report:\n{report}"));
    let rest = &report[start + 1..];
    let end = rest[1..]
        .find("\n  PASS")
        .or_else(|| rest[1..].find("\n  FAIL"))
        .or_else(|| rest[1..].find("\n  ERROR"))
        .or_else(|| rest[1..].find("\n\n"))
        .map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

/// The "Start here" block of a report.
fn start_here(report: &str) -> &str {
    let from = report.find("Start here:").expect("a Start here");
    let to = report[from..]
        .find("\n\n")
        .map_or(report.len(), |i| from + i);
    &report[from..to]
}

/// A breaker that measures its wait on the real clock fails every scenario whose trial
/// comes after a wait, whatever the scenario is about. Start here names the rule of the
/// wait, at the simplest step that shows it, and a scenario about a single trial that
/// fails there says it most likely fails for that same mistake, instead of giving its own
/// hint about two threads winning the trial.
#[test]
fn start_here_names_the_rule_the_failing_steps_show_and_side_effects_say_so() {
    let sub = mutant("lab4", "real_clock");
    let report = check("lab4", &sub, &[]);
    let lead = start_here(&report);
    assert!(
        lead.contains("rule: Once retry_after has passed since the circuit opened, measured on the injected clock"),
        "{lead}"
    );
    assert!(
        lead.contains("ho_no_closing_by_time_alone, step 5 at 00:00:30.000"),
        "{lead}"
    );
    assert!(
        lead.contains("hint: Let the trial through when clock.now()"),
        "{lead}"
    );
    let single = entry(&report, "ho_single_trial_under_concurrency");
    assert!(
        single.contains(
            "cause: most likely the mistake Start here names, first seen at ho_no_closing_by_time_alone step 5"
        ),
        "{single}"
    );
    assert!(!single.contains("hint:"), "{single}");
    // The machine-readable report names the rule too.
    let output = grader()
        .args(["check", "lab4", "--format", "json", "--submission"])
        .arg(&*sub)
        .output()
        .expect("the grader runs");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["start_here"]["rule"]["id"], "trial_after_the_wait");
    let scenario = |name: &str| {
        json["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .expect("the scenario")
    };
    let single = scenario("ho_single_trial_under_concurrency");
    assert_eq!(single["rule"]["id"], "trial_after_the_wait");
    assert_eq!(
        single["likely_cause"]["scenario"],
        "ho_no_closing_by_time_alone"
    );
}

/// A failure at a step that checks another rule than the scenario's own names that rule:
/// a bulkhead that lets one message more in fails a scenario about a full bulkhead
/// answering at once where it expected `no_capacity`, and the report names the limit,
/// not the rule that a message never waits.
#[test]
fn a_step_that_checks_another_rule_names_it() {
    let sub = mutant("lab5", "admits_one_too_many");
    let report = check(
        "lab5",
        &sub,
        &["--scenario", "bh_full_bulkhead_answers_at_once"],
    );
    let failed = entry(&report, "bh_full_bulkhead_answers_at_once");
    assert!(
        failed.contains("rule: Each flow has a bulkhead of its own, and never more messages in progress than that flow's max_concurrent"),
        "{failed}"
    );
    assert!(
        failed.contains("hint: Give every flow its own bulkhead"),
        "{failed}"
    );
    assert!(!failed.contains("never make a message wait"), "{failed}");
}

/// Requests stuck in the shop are named, whatever step they were sent in, and the words
/// say what a lab's requests may do instead of returning: a lab 6 request waits on the
/// fake clock, it does not "reach" the shop it is inside.
#[test]
fn a_stuck_report_names_its_requests_and_never_contradicts_itself() {
    let sub = mutant("lab6", "lock_held_during_attempt");
    let report = check(
        "lab6",
        &sub,
        &["--scenario", "qu_eight_active_ten_queued_then_no_capacity"],
    );
    let failed = entry(&report, "qu_eight_active_ten_queued_then_no_capacity");
    assert!(
        failed.contains("neither returned nor waiting on the fake clock"),
        "{failed}"
    );
    assert!(failed.contains("observed: request"), "{failed}");
    assert!(!failed.contains("some of the"), "{failed}");
    assert!(!failed.contains("reached the shop"), "{failed}");
    assert!(!failed.contains("reached shipping"), "{failed}");
}

/// Counts agree in number with their noun: one call, not "1 calls".
#[test]
fn one_call_is_one_call() {
    let sub = mutant("lab6", "jitter_same_for_all");
    let report = check(
        "lab6",
        &sub,
        &["--scenario", "re_pauses_grow_with_seeded_jitter"],
    );
    let failed = entry(&report, "re_pauses_grow_with_seeded_jitter");
    assert!(
        failed.contains("expected: 1 call reached shipping"),
        "{failed}"
    );
    assert!(!failed.contains("expected: 1 calls"), "{failed}");
}

/// What `grader explain <lab> <scenario>` prints.
fn explain(lab: &str, scenario: &str) -> String {
    let output = grader()
        .args(["explain", lab, scenario])
        .assert()
        .success()
        .get_output()
        .clone();
    stdout(&output)
}

/// `grader explain` says which rule a scenario is about and which rules its other steps
/// check.
#[test]
fn explain_says_the_rule_of_the_scenario_and_of_its_steps() {
    let text = explain("lab4", "ho_single_trial_under_concurrency");
    assert!(
        text.contains(
            "The rule it is about (single_trial): HALF_OPEN lets exactly one trial through"
        ),
        "{text}"
    );
    assert!(
        text.contains("Steps 2, 3 also check opens_at_threshold"),
        "{text}"
    );
    assert!(
        text.contains("Step 6 also checks trial_after_the_wait (Once retry_after has passed"),
        "{text}"
    );
    assert!(text.contains("when E904 is seen there"), "{text}");
    let text = explain("lab6", "qu_oldest_waiter_gets_the_freed_slot");
    assert!(
        text.contains("Step 9 also checks queued_requests_wake"),
        "{text}"
    );
    assert!(
        text.contains("when calls is expected there and not seen"),
        "{text}"
    );
}

/// One step that checks several counts at once names a rule per count that falls short
/// (`checks` with `instead_of`): a freed slot that nobody takes is a queued request left
/// asleep, and a queue one request short is a request that left before its time.
#[test]
fn a_step_that_checks_several_counts_names_the_rule_of_the_one_that_differs() {
    let scenario = "qu_oldest_waiter_gets_the_freed_slot";
    for (name, rule) in [
        (
            "notify_one_for_many",
            "rule: A queued request is woken by every change it waits for",
        ),
        (
            "wait_without_loop",
            "rule: A queued request leaves the queue only once it has waited longer than max_queue_wait",
        ),
    ] {
        let sub = mutant("lab6", name);
        let report = check("lab6", &sub, &["--scenario", scenario]);
        let lead = start_here(&report);
        assert!(
            lead.contains(&format!("{scenario}, step 9")),
            "{name}: {lead}"
        );
        assert!(lead.contains(rule), "{name}: {lead}");
    }
}

/// A scratch kit with lab 4's files and `labs/lab4/drafts/<name>.json`: the published
/// `sm_opens_at_threshold.json` renamed, with `change` applied to its text.
fn kit_with_draft(name: &str, change: impl FnOnce(String) -> String) -> tempfile::TempDir {
    let scratch = scratch_kit(&["Cargo.toml", "labs"]);
    let lab = scratch.path().join("labs/lab4");
    let text = std::fs::read_to_string(lab.join("scenarios/sm_opens_at_threshold.json"))
        .expect("read the scenario")
        .replace(
            "\"name\": \"sm_opens_at_threshold\"",
            &format!("\"name\": \"{name}\""),
        );
    std::fs::create_dir_all(lab.join("drafts")).expect("create drafts/");
    std::fs::write(
        lab.join("drafts").join(format!("{name}.json")),
        change(text),
    )
    .expect("write the draft");
    scratch
}

fn validate(kit: &Path, target: &str) -> (Option<i32>, String) {
    let output = grader()
        .arg("--kit")
        .arg(kit)
        .current_dir(kit)
        .args(["validate", target])
        .output()
        .expect("run the grader");
    (output.status.code(), transcript(&output))
}

/// The rules a scenario names are the lab's, each where it is written, with a
/// suggestion; a scenario names its rule or gives a hint of its own, not both; the steps
/// a check names are the scenario's.
#[test]
fn a_scenario_names_rules_its_lab_has_and_steps_it_has() {
    let scratch = kit_with_draft("sm_draft", |text| {
        text.replace(
            "\"rule\": \"opens_at_threshold\",",
            "\"rule\": \"opens_at_treshold\",\n  \"hint\": \"A hint of its own.\",\n  \"checks\": [{\"rule\": \"system_errors\", \"steps\": [2, 9]}],",
        )
    });
    let (code, text) = validate(scratch.path(), "labs/lab4/drafts/sm_draft.json");
    assert_eq!(code, Some(2), "{text}");
    for expected in [
        "labs/lab4/drafts/sm_draft.json:8:3: unknown rule `opens_at_treshold`\n  help: did you mean `opens_at_threshold`?",
        "labs/lab4/drafts/sm_draft.json:9:3: the scenario names a rule and gives a hint of its own: the rule's hint is the one shown",
        "labs/lab4/drafts/sm_draft.json:10:15: unknown rule `system_errors`\n  help: did you mean `system_errors_count`?",
        "labs/lab4/drafts/sm_draft.json:10:15: the check of rule `system_errors` names step 9, but the scenario has 7 steps",
    ] {
        assert!(text.contains(expected), "{expected}\nnot in:\n{text}");
    }
}

/// A lab's rules file is read like every file people write: a mistake is reported at its
/// line, and the lab cannot be graded until it is fixed.
#[test]
fn a_rules_file_with_a_mistake_is_reported_at_its_place() {
    let scratch = scratch_kit(&["Cargo.toml", "labs"]);
    let rules = scratch.path().join("labs/lab4/rules.json");
    let text = std::fs::read_to_string(&rules).expect("read the rules");
    let text = text.replacen(
        "\"id\": \"system_errors_count\"",
        "\"id\": \"opens_at_threshold\"",
        1,
    );
    std::fs::write(&rules, text).expect("write the rules");
    let (code, text) = validate(scratch.path(), "lab4");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("labs/lab4/rules.json:10:7: the rule `opens_at_threshold` is listed twice"),
        "{text}"
    );
}

/// A mutant names a rule of its lab.
#[test]
fn a_mutant_names_a_rule_its_lab_has() {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4"]);
    let path = scratch.path().join("labs/lab4/mutants/opens_one_late.json");
    let text = std::fs::read_to_string(&path)
        .expect("read the mutant")
        .replace(
            "\"rule\": \"opens_at_threshold\"",
            "\"rule\": \"opens_late\"",
        );
    std::fs::write(&path, text).expect("write the mutant");
    let (code, text) = validate(scratch.path(), "labs/lab4/mutants/opens_one_late.json");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("opens_one_late.json:6:3: unknown rule `opens_late`\n  help: did you mean `opens_at_threshold`?"),
        "{text}"
    );
}

/// The reference solution (flat) with its breaker asking for its own state, which takes
/// the lock, while it holds that lock: with real locks the thread waits for itself for
/// ever.
fn relocking() -> Folder {
    let dir = folder("hints-race-relocking");
    for file in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        let mut text = std::fs::read_to_string(kit().join("solutions/lab4/src").join(file))
            .expect("a reference file");
        if file == "breaker.rs" {
            let find = "                self.move_to(&mut inner, State::HalfOpen);";
            assert_eq!(text.matches(find).count(), 1, "{find}");
            text = text.replacen(
                find,
                "                if self.state() == State::Open {\n                    self.move_to(&mut inner, State::HalfOpen);\n                }",
                1,
            );
        }
        std::fs::write(dir.join(file), text).expect("write a file");
    }
    dir
}

/// A lock taken again by the thread that holds it: the runtime of the race checks stops
/// that thread inside its own lock, and the report says so at the student's line, names
/// the request that did it (not the grader reading the relay's state), and where it took
/// the lock first.
#[test]
fn a_lock_taken_twice_is_told_at_the_students_line_with_its_request() {
    let sub = relocking();
    let report = check("lab4", &sub, &["--scenario", "race_single_trial"]);
    let failed = entry(&report, "race_single_trial");
    assert!(
        failed.contains("panicked at breaker.rs:177:20: deadlock: this thread takes the Mutex<Inner> it already holds (it took it at breaker.rs:177:20), in Breaker::lock, called from Breaker::state at breaker.rs:76:14"),
        "{failed}"
    );
    assert!(!failed.contains("shuttle"), "{failed}");
    assert!(!failed.contains("while the grader read"), "{failed}");
    assert!(failed.contains("in one of the requests"), "{failed}");
}

/// A schedule that was not explored cannot be replayed.
#[test]
fn a_schedule_beyond_those_explored_is_refused() {
    let output = grader()
        .args([
            "check",
            "lab4",
            "--scenario",
            "race_single_trial",
            "--schedule",
            "501",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("--schedule 501: the race checks of lab4 explore 500 schedules per scenario, so there is no schedule 501"),
        "{err}"
    );
    assert!(
        err.contains("help: give the number a report names, from 1 to 500"),
        "{err}"
    );
}

/// Replaying a schedule tells its story on any code: on the fixed code (here the
/// reference) the schedule a racy submission failed on passes, and the report still
/// shows that interleaving and how to replay it.
#[test]
fn a_replayed_schedule_is_told_on_code_that_passes() {
    let sub = mutant("lab4", "trial_check_then_mark");
    let report = check("lab4", &sub, &["--scenario", "race_single_trial"]);
    let n = entry(&report, "race_single_trial")
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("replay: grader check lab4 --scenario race_single_trial --schedule ")
        })
        .expect("a replay command")
        .to_owned();
    let output = grader()
        .args([
            "check",
            "lab4",
            "--solution",
            "--scenario",
            "race_single_trial",
        ])
        .args(["--schedule", &n])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = stdout(&output);
    let passed = entry(&text, "race_single_trial");
    assert!(passed.contains("PASS"), "{passed}");
    assert!(
        passed.contains(&format!(
            "passed on schedule {n}, replayed; its story is step 5"
        )),
        "{passed}"
    );
    assert!(
        passed.contains(&format!("interleaving (schedule {n} of")),
        "{passed}"
    );
    assert!(passed.contains("request #"), "{passed}");
    assert!(
        passed.contains(&format!(
            "replay: grader check lab4 --scenario race_single_trial --schedule {n}"
        )),
        "{passed}"
    );
}

/// `-v` shows a panic's backtrace cut to the code under test's frames: the skeleton's
/// `todo!()` is one frame of the student's, not thirty of the harness.
#[test]
fn a_verbose_backtrace_shows_the_students_frames() {
    let output = grader()
        .args(["check", "lab4", "-v", "--scenario", "sm_opens_at_threshold"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let text = stdout(&output);
    let from = text.find("backtrace:").expect("a backtrace");
    let trace: Vec<&str> = text[from..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let places: Vec<&&str> = trace
        .iter()
        .filter(|l| l.trim().starts_with("at "))
        .collect();
    assert!(!places.is_empty(), "{text}");
    for l in &places {
        assert!(
            l.trim().starts_with("at crates/relay_base/src/"),
            "{l}\n{text}"
        );
    }
    assert!(
        trace
            .iter()
            .any(|l| l.contains("of the harness, the fixtures and the standard library left out")),
        "{text}"
    );
}
