//! What a student uses besides `check`: `list`, `explain` and `watch`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::util::{copy_kit_paths, grader, kit, stdout, test_dir};

#[test]
fn list_shows_every_scenario_with_category_points_and_visibility() {
    let output = grader()
        .args(["list", "lab4"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!("list", stdout(&output));
}

#[test]
fn explain_says_what_a_scenario_does_in_words() {
    let output = grader()
        .args(["explain", "lab4", "tr_full_cycle"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!("explain_tr_full_cycle", stdout(&output));
}

/// Starts `grader watch` on a scratch copy of the kit, waits for the first report of the
/// skeleton, saves the reference's files into the student crate, and checks that the
/// second report shows the new total and what changed.
///
/// The copy always sits at the same place, with its build folder kept in the test's
/// `cache/` (see `util::test_dir`), so only the first run on a machine compiles the
/// dependencies.
#[test]
fn watch_grades_again_when_a_file_is_saved() {
    let root = test_dir("student-watch");
    let scratch = root.join("kit");
    copy_kit_paths(
        &scratch,
        &[
            "Cargo.toml",
            "Cargo.lock",
            "crates",
            "fixtures",
            "grader/harness",
            "grader/protocol",
            "solutions",
            "labs/lab4/lab.json",
            "labs/lab4/scenarios",
        ],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["watch", "lab4", "--max-runs", "2"])
        .current_dir(&scratch)
        .env("NO_COLOR", "1")
        .env("GRADER_WORK_DIR", root.join("cache/work"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("grader watch starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.expect("a line");
        let first_total = line.starts_with("Total:");
        seen.push(line);
        if first_total {
            break;
        }
    }
    assert!(
        seen.iter()
            .any(|l| l == "Total: 0/154 points, 0 of 37 scenarios passed"),
        "first report:\n{}",
        seen.join("\n")
    );
    for file in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        std::fs::copy(
            kit().join("solutions/lab4/src").join(file),
            scratch.join("crates/relay_base/src").join(file),
        )
        .expect("save a file");
    }
    let rest: Vec<String> = lines.map(|l| l.expect("a line")).collect();
    let status = child.wait().expect("grader watch ends after two runs");
    let text = rest.join("\n");
    assert_eq!(status.code(), Some(0), "{text}");
    assert!(
        rest.iter()
            .any(|l| l.starts_with("+154 points (154/154): State machine now passes")),
        "the second report opens with what changed:\n{text}"
    );
    assert!(
        text.contains("Total: 154/154 points, 37 of 37 scenarios passed"),
        "{text}"
    );
}
