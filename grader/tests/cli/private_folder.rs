//! A kit in a folder only its owner may enter (mode 700, as `mktemp -d` makes and as
//! root's home is) grades submissions under the Landlock sandbox too, where each scenario
//! runs as a user of its own that cannot enter that folder: the grader runs the harness
//! through a link in the temporary folder.

use std::os::unix::fs::PermissionsExt;

use crate::util::{grader, kit, test_dir, transcript};

#[test]
fn a_private_work_folder_grades_under_landlock() {
    // The work folder (where the harness programs are built) inside a private folder, at
    // the same place every run, so that its builds are kept.
    let private = test_dir("private_folder").join("cache/private");
    std::fs::create_dir_all(&private).expect("create");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let output = grader()
        .env("GRADER_SANDBOX", "landlock")
        .env("GRADER_WORK_DIR", private.join("work"))
        .args(["check", "lab4", "--submission"])
        .arg(kit().join("solutions/lab4"))
        .args([
            "--scenario",
            "sm_opens_at_threshold",
            "--scenario",
            "race_single_trial",
        ])
        .args(["--format", "json"])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["score"], report["max_score"], "{report}");
    assert!(
        report["provenance"]["sandbox"]
            .as_str()
            .is_some_and(|s| s.starts_with("Landlock")),
        "{report}"
    );
}
