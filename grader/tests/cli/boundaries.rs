//! The race properties that reach what ordinary scenarios cannot: an answer from an earlier
//! state that changes nothing, and a slot given back exactly once. Each lab's racy
//! mutants for them fail the race check built for them, named by the property, with
//! the story of the schedule and the command that replays it.

use std::path::Path;

use crate::subs::{Layout, apply_mutant, folder, write};
use crate::util::{grader, kit, stdout, transcript};

/// `lab`'s reference files with the edits of every mutant in `mutants` applied in turn.
fn mutated(lab: &str, mutants: &[&str]) -> Vec<(String, String)> {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(kit().join("labs").join(lab).join("lab.json")).expect("read"),
    )
    .expect("lab.json is JSON");
    let solution = kit().join(manifest["solution_crate"].as_str().expect("solution_crate"));
    let mut files: Vec<(String, String)> = manifest["student_files"]
        .as_array()
        .expect("student_files")
        .iter()
        .map(|f| {
            let f = f.as_str().expect("a file");
            let text = std::fs::read_to_string(solution.join(f)).expect("read the reference");
            // Lab 5's reference keeps its breaker tests in a file students do not have.
            (f.to_owned(), text.replace("#[cfg(test)]\nmod tests;\n", ""))
        })
        .collect();
    for name in mutants {
        apply_mutant(lab, name, &mut files);
    }
    files
}

/// The report of `lab`'s race scenarios `scenarios` on a submission of `files`.
fn race_report(lab: &str, test: &str, files: &[(String, String)], scenarios: &[&str]) -> String {
    let dir = folder(test);
    write(&dir, Layout::Crate, files);
    let mut command = grader();
    command
        .args(["check", lab, "--color", "never", "--submission"])
        .arg(AsRef::<Path>::as_ref(&dir));
    for s in scenarios {
        command.args(["--scenario", s]);
    }
    let output = command.output().expect("run the grader");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    stdout(&output)
}

/// The FAIL line of `scenario` in `report` and the lines under it, up to the next
/// scenario or category.
fn failure(report: &str, scenario: &str) -> String {
    let head = format!("  FAIL    {scenario} ");
    let mut lines = report.lines().skip_while(|l| !l.starts_with(&head));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{scenario} does not fail:\n{report}"));
    let under = lines.take_while(|l| l.starts_with("     "));
    std::iter::once(first)
        .chain(under)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn lab5_old_answers_and_lost_slots_are_named_by_their_race_checks() {
    let files = mutated(
        "lab5",
        &["reopened_after_unlock", "slot_freed_with_load_and_store"],
    );
    let report = race_report(
        "lab5",
        "lab5-old-answers",
        &files,
        &["race_old_answers_change_nothing", "race_slot_freed_once"],
    );
    let old = failure(&report, "race_old_answers_change_nothing");
    assert!(
        old.contains("expected: an answer to a message admitted before acme/ORDERS's state last changed changes nothing")
            && old.contains("wrote `OPEN -> OPEN` for acme/ORDERS from its answer")
            && old.contains("replay: grader check lab5 --scenario race_old_answers_change_nothing --schedule"),
        "{report}"
    );
    let slot = failure(&report, "race_slot_freed_once");
    assert!(
        slot.contains(
            "expected: no_capacity only while 3 other messages for globex/ORDERS hold its slots"
        ) && slot.contains("got no_capacity while at most")
            && slot.contains("a slot taken earlier was never given back"),
        "{report}"
    );
}

#[test]
fn lab4_late_failures_and_lost_slots_are_named_by_their_race_checks() {
    let files = mutated(
        "lab4",
        &[
            "late_failure_counted_after_unlock",
            "slot_freed_in_two_steps",
        ],
    );
    let report = race_report(
        "lab4",
        "lab4-late-failures",
        &files,
        &["race_late_answers_change_nothing", "race_slot_freed_once"],
    );
    let late = failure(&report, "race_late_answers_change_nothing");
    assert!(
        late.contains("expected: a late answer from core_banking changes nothing while the circuit is OPEN or its trial is out")
            && late.contains("wrote `OPEN -> OPEN` for core_banking from its answer"),
        "{report}"
    );
    let slot = failure(&report, "race_slot_freed_once");
    assert!(
        slot.contains("expected: E905 only while 3 other requests for claims hold its slots")
            && slot.contains("a slot taken earlier was never given back"),
        "{report}"
    );
}
