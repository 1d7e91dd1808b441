//! The instructors' kit speaks to instructors: its hidden scenarios run by name, the
//! reference's report does not end with a student's reminder, and `audit` writes only
//! what it can write.

use crate::util::{grader, kit, stdout, transcript};

/// The name of one of lab 4's hidden scenarios.
fn a_hidden_scenario() -> String {
    let mut names: Vec<String> = std::fs::read_dir(kit().join("labs/lab4/hidden"))
        .expect("lab 4's hidden scenarios")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_owned)
        })
        .collect();
    names.sort();
    names.into_iter().next().expect("a hidden scenario")
}

#[test]
fn a_hidden_scenario_runs_by_name() {
    let name = a_hidden_scenario();
    let output = grader()
        .args(["check", "lab4", "--solution", "--scenario", &name])
        .output()
        .expect("run the grader");
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(text.contains(&format!("PASS    {name}")), "{text}");
}

#[test]
fn the_reference_report_ends_with_words_for_instructors() {
    let output = grader()
        .args(["check", "lab4", "--solution"])
        .output()
        .expect("run the grader");
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(!text.contains("your submission"), "{text}");
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.ends_with(
            "did not run: `--scenario NAME` runs one, `--submission DIR` grades a submission with all of them."
        ),
        "{text}"
    );
}

#[test]
fn audit_refuses_the_formats_it_cannot_write() {
    for format in ["junit", "gradescope"] {
        let output = grader()
            .args(["audit", "lab4", "--format", format])
            .output()
            .expect("run the grader");
        assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
        assert!(output.stdout.is_empty(), "{}", transcript(&output));
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("[possible values: human, json]"),
            "{}",
            transcript(&output)
        );
    }
}
