//! What a person sees when the grader cannot grade.

use crate::util::{grader, scratch_kit, transcript};

#[test]
fn an_unknown_lab_suggests_the_right_one() {
    let output = grader()
        .args(["check", "lab44"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: there is no lab `lab44` in this kit
      help: did you mean `lab4`?
    ");
}

#[test]
fn an_unknown_scenario_suggests_the_right_one() {
    let output = grader()
        .args(["check", "lab4", "--scenario", "tr_full_cycel"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: there is no scenario `tr_full_cycel` in lab4
      help: did you mean `tr_full_cycle`?
    ");
}

#[test]
fn a_broken_scenario_file_stops_grading_with_its_position() {
    let kit = scratch_kit(&[
        "Cargo.toml",
        "labs/lab4/lab.json",
        "labs/lab4/rules.json",
        "labs/lab4/scenarios/sm_opens_at_threshold.json",
    ]);
    let path = kit
        .path()
        .join("labs/lab4/scenarios/sm_opens_at_threshold.json");
    let text = std::fs::read_to_string(&path).expect("read");
    let broken = text.replace(
        "\"target\": \"core_banking\", \"answer\": \"E500\"",
        "\"target\": \"core_bankng\", \"answer\": \"E500\"",
    );
    std::fs::write(&path, broken).expect("write");
    let output = grader()
        .arg("--kit")
        .arg(kit.path())
        .args(["check", "lab4"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: labs/lab4/scenarios/sm_opens_at_threshold.json:10:17: unknown target `core_bankng`
      help: did you mean `core_banking`?
    1 problem found; nothing was graded. Fix the file above and run again.
    ");
}
