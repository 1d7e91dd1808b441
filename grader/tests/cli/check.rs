//! `grader check` on the reference solution and on the untouched skeleton.

use predicates::prelude::*;

use crate::util::{grader, stdout, transcript};

#[test]
fn the_reference_gets_full_marks() {
    let output = grader()
        .args(["check", "lab4", "--solution"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "Total: 205/205 points, 48 of 48 scenarios passed",
        ))
        .get_output()
        .clone();
    insta::assert_snapshot!("reference_human", stdout(&output));
}

#[test]
fn the_reference_json_report() {
    let output = grader()
        .args(["check", "lab4", "--solution", "--format", "json"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON object on stdout");
    assert_eq!(report["score"], 205);
    assert_eq!(report["max_score"], 205);
    insta::assert_snapshot!("reference_json", stdout(&output));
}

#[test]
fn the_untouched_skeleton_gets_zero_and_names_the_todo_each_scenario_hit() {
    let output = grader()
        .args(["check", "lab4"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let text = stdout(&output);
    assert!(
        text.contains("Total: 0/205 points, 0 of 48 scenarios passed"),
        "{text}"
    );
    // The grader reads every breaker's state after each step, so every scenario stops at
    // the todo!() of Relay::breaker_state: the report names it (file, line, column, as in
    // the skeleton) once at the top and once per category as a group with the scenarios'
    // names, never once per scenario.
    let todo = skeleton_todo("relay.rs", "fn breaker_state");
    assert!(
        text.contains(&format!("48 scenarios stopped at todo!() at {todo}")),
        "Start here names the todo!() all 48 stopped at ({todo}):\n{text}"
    );
    assert_eq!(text.matches("stopped at todo!() at").count(), 2, "{text}");
    let json: serde_json::Value = serde_json::from_slice(
        &grader()
            .args(["check", "lab4", "--format", "json"])
            .output()
            .expect("the grader runs")
            .stdout,
    )
    .expect("JSON");
    for s in json["scenarios"].as_array().expect("scenarios") {
        let name = s["name"].as_str().expect("a name");
        assert!(text.contains(name), "{name} is not named:\n{text}");
    }
    assert!(text.lines().count() < 70, "{text}");
    insta::assert_snapshot!("skeleton_human", text);
}

#[test]
fn the_untouched_skeleton_json_report() {
    let output = grader()
        .args(["check", "lab4", "--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON object on stdout");
    assert_eq!(report["score"], 0);
    let todo = skeleton_todo("relay.rs", "fn breaker_state");
    for s in report["scenarios"].as_array().expect("scenarios") {
        assert_eq!(s["status"], "error", "{s}");
        let message = s["message"].as_str().unwrap_or_default();
        assert!(
            message.ends_with(&format!("hit todo!() at {todo}")),
            "each scenario names the todo!() it hit ({todo}): {s}"
        );
        for key in ["name", "category", "score", "max_score", "message"] {
            assert!(s.get(key).is_some(), "scenario without {key}: {s}");
        }
    }
    insta::assert_snapshot!("skeleton_json", stdout(&output));
}

/// `crates/relay_base/src/FILE:LINE:COLUMN: MESSAGE` of the first `todo!()` after
/// `item` in the skeleton's `file`, read from the file itself.
fn skeleton_todo(file: &str, item: &str) -> String {
    let path = format!("crates/relay_base/src/{file}");
    let text = std::fs::read_to_string(crate::util::kit().join(&path)).expect("the skeleton");
    let start = text
        .find(item)
        .unwrap_or_else(|| panic!("{item} in {path}"));
    let at = start + text[start..].find("todo!(\"").expect("a todo!() after it");
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    let rest = &text[at + "todo!(\"".len()..];
    let message = &rest[..rest.find("\")").expect("the todo!()'s message ends")];
    format!("{path}:{line}:{column}: {message}")
}

#[test]
fn grading_the_same_code_twice_gives_the_same_report() {
    let run = || {
        grader()
            .args(["check", "lab4", "--solution", "--format", "json"])
            .output()
            .expect("the grader runs")
            .stdout
    };
    let first = run();
    for _ in 0..3 {
        assert_eq!(
            first,
            run(),
            "two runs of the reference gave different reports"
        );
    }
}

#[test]
fn one_scenario_by_name() {
    let output = grader()
        .args([
            "check",
            "lab4",
            "--solution",
            "--scenario",
            "ho_single_trial_under_concurrency",
        ])
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output).replace("\r", ""), @r"
    exit status: 0
    ----- stdout -----
    lab4 (Circuit breaker and bulkhead): grading solutions/lab4

    Single half-open trial                                           6/6
      PASS    ho_single_trial_under_concurrency                      6/6

    Total: 6/6 points, 1 of 1 scenario passed
    ----- stderr -----
    building solutions/lab4 ...
    running 1 scenario ...
    timelines of every scenario: target/grader/lab4/timeline.html
    ");
}

#[test]
fn colour_only_when_asked() {
    let plain = grader()
        .args(["check", "lab4", "--solution", "--scenario", "tr_full_cycle"])
        .output()
        .expect("runs");
    assert!(
        !stdout(&plain).contains('\u{1b}'),
        "no colour codes in a pipe with NO_COLOR"
    );
    let coloured = grader()
        .args([
            "--color",
            "always",
            "check",
            "lab4",
            "--solution",
            "--scenario",
            "tr_full_cycle",
        ])
        .output()
        .expect("runs");
    assert!(
        stdout(&coloured).contains("\u{1b}[32mPASS"),
        "{}",
        stdout(&coloured)
    );
}
