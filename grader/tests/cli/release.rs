//! `grader release`: the student edition holds what students need and nothing of the
//! instructors' material. (That the edition builds and grades the skeleton is shown by
//! the walk-through in `instructors.rs`, which releases and runs `cargo run -p grader --
//! check lab4` in the released folder.)

use std::path::{Path, PathBuf};

use crate::util::{grader, kit, scratch_kit, transcript};

/// Every file under `dir`, relative to it.
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).expect("inside").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Every file under `out` that holds one of `needles`, or whose path does, with the needle.
pub(crate) fn leaks(out: &Path, needles: &[String]) -> Vec<String> {
    let mut leaks = Vec::new();
    for f in files(out) {
        let text =
            String::from_utf8_lossy(&std::fs::read(out.join(&f)).expect("read")).into_owned();
        for needle in needles {
            if text.contains(needle.as_str()) || f.display().to_string().contains(needle.as_str()) {
                leaks.push(format!("{}: {needle}", f.display()));
            }
        }
    }
    leaks
}

/// What a scratch kit needs for cargo to read its workspace, through which a release
/// finds the edition's members.
const WORKSPACE: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "crates",
    "fixtures",
    "grader/Cargo.toml",
    "grader/src",
    "grader/harness",
    "grader/lab",
    "grader/protocol",
    "grader/race",
    "solutions",
    "labs",
];

/// Releases the real kit's lab 4 into a new temporary folder.
fn release() -> (tempfile::TempDir, PathBuf, std::process::Output) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("lab4-student");
    let output = grader()
        .args(["release", "lab4", "--out"])
        .arg(&out)
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    (tmp, out, output)
}

#[test]
fn the_student_edition_holds_what_students_need_and_no_instructor_material() {
    let lab =
        grader::lab::Lab::load(&grader::labs::registered(), &kit(), "lab4").expect("lab4 loads");
    let hidden = grader::instructor::validation::load_scenarios(
        &lab,
        &lab.scenario_files().expect("lab4 is readable").hidden,
    )
    .scenarios;
    // The generated scenarios graded in CI are hidden ones too.
    let generated = grader::generate::seeds::Seeds::of(&lab)
        .expect("seeds")
        .map_or((0, 0), |s| s.graded_points());
    let hidden_points: u32 = hidden.iter().map(|s| s.points).sum::<u32>() + generated.1;
    let hidden = hidden.len() + generated.0;
    let (_tmp, out, output) = release();
    // What it says it did (the kit's other folders come and go, so only the ones that
    // matter are named here).
    let stderr = String::from_utf8_lossy(&output.stderr).replace(&out.display().to_string(), "DIR");
    // Progress (filling in the generated practice scenarios) comes first.
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("wrote the student edition of lab4 to DIR: ")),
        "{stderr}"
    );
    // Every lab's reference solution is dropped, and the other labs' crates.
    let dropped = stderr
        .lines()
        .find_map(|l| l.strip_prefix("  workspace members dropped from Cargo.toml: "))
        .expect("a dropped members line");
    let dropped: Vec<&str> = dropped.split(", ").collect();
    for gone in [
        "solutions/lab4",
        "solutions/lab5",
        "crates/edi_gateway",
        "labs/lab5/plugin",
    ] {
        assert!(dropped.contains(&gone), "{gone}: {stderr}");
    }
    assert!(
        !dropped
            .iter()
            .any(|m| m.starts_with("labs/lab4/") || *m == "crates/relay_base"),
        "{stderr}"
    );
    let left_out = stderr
        .lines()
        .find_map(|l| l.strip_prefix("  left out: "))
        .expect("a left out line");
    let left_out: Vec<&str> = left_out.split(", ").collect();
    for dir in [
        "docs",
        "grader/tests",
        "labs/README.md",
        "labs/lab4/alternatives",
        "labs/lab4/hidden",
        "labs/lab4/mutants",
        "labs/lab5",
        "ARCHITECTURE.md",
        "solutions",
    ] {
        assert!(left_out.contains(&dir), "{dir} not in {left_out:?}");
    }
    assert!(
        stderr.contains(
            &format!("\n  lab4: {hidden} hidden scenarios ({hidden_points} points) will run only when submissions are graded\n")
        ),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("\n  next: cd DIR && cargo run -p grader -- check lab4\n"),
        "{stderr}"
    );

    for present in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "crates/relay_base/src/breaker.rs",
        "crates/relay_kit/src/lib.rs",
        "fixtures/targets/src/lib.rs",
        "grader/Cargo.toml",
        "grader/src/main.rs",
        "grader/harness/src/lib.rs",
        "grader/lab/src/lib.rs",
        "grader/protocol/src/lib.rs",
        "labs/lab4/harness/main/src/main.rs",
        "labs/lab4/plugin/src/lib.rs",
        "labs/lab4/lab.json",
        "labs/lab4/rules.json",
        "labs/lab4/README.md",
        "labs/lab4/scenario.schema.json",
        "labs/lab4/scenarios/tr_full_cycle.json",
        "labs/lab4/rehearsal.json",
        "labs/lab4/rehearsal/src/lib.rs",
        "labs/lab4/rehearsal/main/src/main.rs",
        "labs/lab4/rehearsal/protocol/src/lib.rs",
        "ci/github/grade.sh",
    ] {
        assert!(out.join(present).is_file(), "{present} is missing");
    }
    for absent in [
        "solutions",
        "labs/lab4/hidden",
        "labs/lab4/mutants",
        "labs/lab4/alternatives",
        "labs/README.md",
        "docs",
        "grader/tests",
        "scripts",
        "ci/gradescope",
        ".git",
        "target",
    ] {
        assert!(!out.join(absent).exists(), "{absent} was released");
    }

    // The skeleton and the published scenarios as shipped, byte for byte.
    for dir in ["crates/relay_base", "labs/lab4/scenarios"] {
        let released = files(&out.join(dir));
        assert_eq!(released, files(&kit().join(dir)), "{dir}");
        for f in released {
            assert_eq!(
                std::fs::read(out.join(dir).join(&f)).expect("read"),
                std::fs::read(kit().join(dir).join(&f)).expect("read"),
                "{dir}/{}",
                f.display()
            );
        }
    }

    // The workspace no longer names the solution, and the lock file agrees.
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).expect("read");
    assert!(!manifest.contains("solutions/lab4"), "{manifest}");
    assert!(manifest.contains("\"crates/relay_base\""), "{manifest}");
    let lock = std::fs::read_to_string(out.join("Cargo.lock")).expect("read");
    assert!(!lock.contains("lab4_solution"));

    // The README says what was left out.
    let readme = std::fs::read_to_string(out.join("README.md")).expect("read");
    assert!(readme.contains("## About this edition"), "{readme}");
    assert!(readme.contains("the grader's own test suite"), "{readme}");
    // The rest of it is written for students: nothing that works only in the
    // instructors' kit (`--solution` exits with 2 here), nor rows for folders it lacks.
    let for_students = &readme[..readme.find("## About this edition").expect("the note")];
    for instructors_only in [
        "--solution",
        "reference solution",
        "## For instructors",
        "`solutions/",
        "`scripts`",
        "docs/",
        "alternatives",
        "mutants",
        "instructors only",
    ] {
        assert!(
            !for_students.contains(instructors_only),
            "the student edition's README has `{instructors_only}`:\n{for_students}"
        );
    }
    assert!(
        for_students.contains("cargo run -p grader -- check lab4"),
        "{for_students}"
    );

    // That it holds nothing of the reference solution, the correct alternatives, the
    // mutants or the hidden scenarios is checked for every lab alike (`every_lab.rs`).

    // The edition's workspace resolves from its own lock file, without the network.
    let host = String::from_utf8(
        std::process::Command::new("rustc")
            .arg("-vV")
            .output()
            .expect("run rustc")
            .stdout,
    )
    .expect("text");
    let host = host
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let metadata = crate::util::bounded(cargo)
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .args(["--filter-platform", host])
        .current_dir(&out)
        .output()
        .expect("run cargo metadata");
    assert!(
        metadata.status.success(),
        "{}",
        String::from_utf8_lossy(&metadata.stderr)
    );
    let packages: serde_json::Value = serde_json::from_slice(&metadata.stdout).expect("JSON");
    let members: Vec<&str> = packages["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    let written = grader::instructor::cargo_files::workspace_members(
        &std::fs::read_to_string(out.join("Cargo.toml")).expect("read"),
    );
    assert_eq!(members.len(), written.len(), "{members:?}");
    for gone in ["_solution", "lab5_", "lab6_", "edi_gateway", "quote_client"] {
        assert!(
            !members.iter().any(|m| m.contains(gone)),
            "{gone}: {members:?}"
        );
    }
}

#[test]
fn release_refuses_a_folder_that_is_not_empty() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(tmp.path().join("notes.txt"), "mine").expect("write");
    let output = grader()
        .args(["release", "lab4", "--out"])
        .arg(tmp.path())
        .assert()
        .code(2)
        .get_output()
        .clone();
    let text = transcript(&output).replace(&tmp.path().display().to_string(), "DIR");
    insta::assert_snapshot!(text, @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: DIR already exists and is not empty
      help: give a new folder, or remove this one first
    ");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("notes.txt")).expect("read"),
        "mine"
    );
}

/// A reference file copied into the skeleton (to try something out, say) is caught, and
/// nothing is left behind.
#[test]
fn a_solution_file_in_the_skeleton_stops_the_release() {
    let scratch = scratch_kit(WORKSPACE);
    std::fs::copy(
        scratch.path().join("solutions/lab4/src/breaker.rs"),
        scratch.path().join("crates/relay_base/src/breaker.rs"),
    )
    .expect("copy");
    // A correct alternative is a solution too.
    std::fs::copy(
        scratch
            .path()
            .join("labs/lab4/alternatives/phase_enum/src/bulkhead.rs"),
        scratch.path().join("crates/relay_base/src/bulkhead.rs"),
    )
    .expect("copy");
    let out = scratch.path().join("student");
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["release", "lab4", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    filling in lab4's practice generated scenarios from the reference ...
    building solutions/lab4 (the oracle of generated scenarios) ...
    error: crates/relay_base/src/breaker.rs: this file is a copy of solutions/lab4/src/breaker.rs
      help: restore the shipped version of the file in the kit (git checkout), then release again
    crates/relay_base/src/bulkhead.rs: this file is a copy of labs/lab4/alternatives/phase_enum/src/bulkhead.rs
      help: restore the shipped version of the file in the kit (git checkout), then release again
    2 problems found; nothing was released. Fix the files above and run again.
    ");
    assert!(!out.exists(), "a refused release leaves nothing behind");
}

/// A lab that does not validate is not released.
#[test]
fn an_invalid_lab_is_not_released() {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4/src"]);
    let lab = scratch.path().join("labs/lab4/lab.json");
    crate::util::change_total_points(&lab, |n| n - 3);
    let out = scratch.path().join("student");
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["release", "lab4", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r#"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: labs/lab4/lab.json:12:3: total_points is 277, but the scenarios add up to 280 (205 visible, 35 hidden, 40 generated)
      help: set "total_points": 280, or change the points of the scenarios
    1 problem found; nothing was released. Fix the file above and run again.
    "#);
    assert!(!out.exists());
}

/// An edition written inside a folder it copies would copy itself.
#[test]
fn release_refuses_a_folder_inside_what_it_copies() {
    let scratch = scratch_kit(WORKSPACE);
    let output = grader()
        .current_dir(scratch.path())
        .args(["release", "lab4", "--out", "crates/relay_base/edition"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: crates/relay_base/edition is inside crates/relay_base, which the student edition copies
      help: write the edition outside the kit, such as ../lab4-student
    ");
    assert!(!scratch.path().join("crates/relay_base/edition").exists());
}
