//! What could not work is refused before anything is built or run, with the limit stated:
//! counts and clock advances a scenario's process cannot carry out, limits on that
//! process too small for any code to pass, and a report file that could not be written.

use crate::util::{grader, kit, scratch_kit, transcript};

/// Runs the grader with `args`; it must refuse (status 2) without building anything.
fn refused(args: &[&str]) -> String {
    let output = grader().args(args).output().expect("run the grader");
    let text = transcript(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        !text.contains("building"),
        "refused only after a build:\n{text}"
    );
    text
}

#[test]
fn a_memory_limit_no_process_can_start_in_is_refused() {
    let text = refused(&["check", "lab4", "--solution", "--memory-mb", "0"]);
    assert!(text.contains("at least 64"), "{text}");
    refused(&["grade", "lab4", ".", "--memory-mb", "16"]);
    refused(&["check", "lab4", "--cpu-seconds", "0"]);
}

#[test]
fn a_report_into_a_missing_folder_is_refused_before_grading() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let report = dir.path().join("missing/report.json");
    let text = refused(&[
        "check",
        "lab4",
        "--solution",
        "--format",
        "json",
        "-o",
        report.to_str().expect("a UTF-8 path"),
    ]);
    assert!(text.contains("does not exist"), "{text}");
    refused(&["check", "lab4", "-o", dir.path().to_str().expect("UTF-8")]);
}

#[test]
fn counts_and_clock_advances_the_harness_cannot_carry_out_are_refused() {
    let file = "grader/tests/cli/bad_scenarios/beyond_limits.json";
    let text = refused(&["check", "lab4", "--solution", "--scenario", file]);
    for limit in [
        "count is 4294967295, but one step may start at most 100 requests at once",
        "count is 5000, but one step may send at most 1000 requests",
        "advancing by 18446744073709551615 ms is more than a day",
        "count is 2000, but one step may release at most 1000 requests",
    ] {
        assert!(text.contains(limit), "no `{limit}` in:\n{text}");
    }
}

/// Lab 5's steps have the same limits, in its words.
#[test]
fn lab5_refuses_the_same_counts_and_advances() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("beyond_limits.json");
    let steps = [
        r#"{"script": {"flow": "acme/ORDERS", "answer": "hold"}}"#,
        r#"{"send_concurrent": {"flow": "acme/ORDERS", "count": 4294967295, "expect": {"held": 4294967294, "no_capacity": 1}}}"#,
        r#"{"send": {"flow": "acme/INVOIC", "count": 5000, "expect": "200"}}"#,
        r#"{"advance": {"ms": 86400000}}"#,
        r#"{"advance": {"ms": 86400001}}"#,
        r#"{"release": {"flow": "acme/ORDERS", "count": 2000, "answer": "200"}}"#,
    ];
    let mut text = String::from(
        r#"{"format_version": 1, "name": "beyond_limits", "title": "Too much", "category": "bulkhead", "points": 1, "hint": "none", "steps": ["#,
    );
    text.push_str(&steps.join(",\n"));
    text.push_str("]}\n");
    std::fs::write(&file, text).expect("write the scenario");
    let path = file.to_str().expect("a UTF-8 path");
    let text = refused(&["check", "lab5", "--solution", "--scenario", path]);
    for limit in [
        "count is 4294967295, but one step may start at most 100 messages at once",
        "count is 5000, but one step may send at most 1000 messages",
        "advancing by 86400001 ms is more than a day",
        "count is 2000, but one step may release at most 1000 messages",
    ] {
        assert!(text.contains(limit), "no `{limit}` in:\n{text}");
    }
    assert!(text.contains("4 problems found"), "{text}");
}

/// Editors show the same limits: they are in each lab's schema.
#[test]
fn the_schema_states_the_limits() {
    for lab in ["lab4", "lab5"] {
        let path = kit().join("labs").join(lab).join("scenario.schema.json");
        let text = std::fs::read_to_string(path).expect("the schema");
        let schema: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let defs = &schema["$defs"];
        let maximum = |step: &str, field: &str| defs[step]["properties"][field]["maximum"].clone();
        assert_eq!(maximum("SendConcurrentStep", "count"), 100, "{lab}");
        assert_eq!(maximum("SendStep", "count"), 1000, "{lab}");
        assert_eq!(maximum("ReleaseStep", "count"), 1000, "{lab}");
        assert_eq!(maximum("AdvanceStep", "ms"), 86_400_000, "{lab}");
    }
}

/// A lab whose own limits would fail every scenario is invalid.
#[test]
fn a_lab_whose_memory_limit_is_too_small_is_invalid() {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4/src"]);
    let manifest = scratch.path().join("labs/lab4/lab.json");
    let text = std::fs::read_to_string(&manifest).expect("read");
    assert!(text.contains("\"memory_mb\": 512"));
    std::fs::write(
        &manifest,
        text.replace("\"memory_mb\": 512", "\"memory_mb\": 0"),
    )
    .expect("write");
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["validate", "lab4"])
        .output()
        .expect("run the grader");
    let text = transcript(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("lab.json:") && text.contains("the limit memory_mb must be at least 64"),
        "{text}"
    );
}
