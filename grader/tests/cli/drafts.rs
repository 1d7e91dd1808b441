//! A draft scenario, anywhere in the lab's folder, gets the same checks as a published
//! one: its file is named after it, and its name is no other scenario's, whether it is
//! validated or run with `check --scenario FILE`.

use std::path::Path;

use crate::util::{grader, scratch_kit, transcript};

/// A scratch kit with `labs/lab4/drafts/<file>`: the published `tr_full_cycle.json` with
/// its name changed to `name`.
fn kit_with_draft(file: &str, name: &str) -> tempfile::TempDir {
    let scratch = scratch_kit(&["Cargo.toml", "labs"]);
    let lab = scratch.path().join("labs/lab4");
    let text = std::fs::read_to_string(lab.join("scenarios/tr_full_cycle.json")).expect("read");
    let text = text.replace(
        "\"name\": \"tr_full_cycle\"",
        &format!("\"name\": \"{name}\""),
    );
    std::fs::create_dir_all(lab.join("drafts")).expect("create drafts/");
    std::fs::write(lab.join("drafts").join(file), text).expect("write the draft");
    scratch
}

fn run(kit: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = grader()
        .arg("--kit")
        .arg(kit)
        .current_dir(kit)
        .args(args)
        .output()
        .expect("run the grader");
    (output.status.code(), transcript(&output))
}

#[test]
fn a_draft_not_named_after_its_file_is_reported() {
    let scratch = kit_with_draft("tr_draft.json", "tr_other_name");
    let (code, text) = run(
        scratch.path(),
        &["validate", "labs/lab4/drafts/tr_draft.json"],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(
            "labs/lab4/drafts/tr_draft.json:3:3: the scenario is named `tr_other_name`, but its file is tr_draft.json"
        ),
        "{text}"
    );
}

#[test]
fn a_draft_named_after_its_file_is_valid() {
    let scratch = kit_with_draft("tr_draft.json", "tr_draft");
    let (code, text) = run(
        scratch.path(),
        &["validate", "labs/lab4/drafts/tr_draft.json"],
    );
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn running_a_draft_whose_name_is_taken_is_refused() {
    let scratch = kit_with_draft("tr_full_cycle.json", "tr_full_cycle");
    let (code, text) = run(
        scratch.path(),
        &[
            "check",
            "lab4",
            "--scenario",
            "labs/lab4/drafts/tr_full_cycle.json",
        ],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(
            "labs/lab4/drafts/tr_full_cycle.json:3:3: the name `tr_full_cycle` is already used by labs/lab4/scenarios/tr_full_cycle.json"
        ),
        "{text}"
    );
    assert!(
        !text.contains("building"),
        "refused only after a build:\n{text}"
    );
}
