//! `grader audit`: the scenarios catch every known bug, and the reference passes them all.
//!
//! One run here: that a verdict never changes between runs is checked by `.ci/run`, which
//! audits every lab three times (a flaky verdict fails the audit).

use crate::util::{stdout, transcript, whole_lab_audit};

#[test]
fn every_mutant_is_caught_and_the_reference_passes() {
    let (_turn, mut audit) = whole_lab_audit("lab4");
    let output = audit
        // Scenarios whose requests get stuck mostly wait, so more of them at once than
        // there are cores costs little and ends the audit sooner.
        .args(["--runs", "1", "-j", "16"])
        .assert()
        .get_output()
        .clone();
    let text = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "the audit failed:\n{}",
        transcript(&output)
    );
    insta::assert_snapshot!("audit_matrix", text);
}
