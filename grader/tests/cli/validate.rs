//! `grader validate`: every kind of mistake in a scenario, mutant or lab file is reported
//! at its line and column, without running any code; and the checked-in JSON Schema
//! matches the types the grader reads.

use std::path::Path;

use crate::util::{grader, kit, scratch_kit, transcript};

/// The shipped kit is valid, hidden scenarios and mutants included.
#[test]
fn the_shipped_kit_is_valid() {
    let output = grader()
        .arg("validate")
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 0
    ----- stdout -----
    lab4: 57 scenarios (48 visible, 9 hidden) and 40 generated scenarios graded in CI, 280 points, 38 mutants, 5 alternatives: all valid
    lab5: 76 scenarios (60 visible, 16 hidden) and 40 generated scenarios graded in CI, 390 points, 60 mutants, 2 alternatives: all valid
    lab6: 60 scenarios (43 visible, 17 hidden) and 40 generated scenarios graded in CI, 319 points, 46 mutants, 3 alternatives: all valid
    ----- stderr -----
    ");
}

/// Lab 4's bad scenario files, outside any lab folder.
const BAD_SCENARIOS: &str = "grader/tests/cli/bad_scenarios";

/// A scratch kit whose only lab is lab 4, with the bad scenario files: there, a file
/// outside any lab folder can only be lab 4's.
fn lab4_only_kit() -> tempfile::TempDir {
    scratch_kit(&["Cargo.toml", "labs/lab4", BAD_SCENARIOS])
}

/// Each file in `bad_scenarios/` holds one kind of mistake; each gets its own snapshot,
/// named after the file, of exactly what `grader validate FILE` prints. The files are lab
/// 4's, outside any lab folder: they are validated in a scratch kit whose only lab is lab
/// 4, where such a file can only be lab 4's.
#[test]
fn each_kind_of_mistake_is_reported_where_it_is() {
    let dir = Path::new(BAD_SCENARIOS);
    let scratch = lab4_only_kit();
    let mut files: Vec<_> = std::fs::read_dir(kit().join(dir))
        .expect("the bad_scenarios folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "only {} bad scenario files", files.len());
    for file in &files {
        let output = grader()
            .current_dir(scratch.path())
            .arg("validate")
            .arg(dir.join(file))
            .output()
            .expect("run the grader");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{file} should be refused:\n{}",
            transcript(&output)
        );
        let stem = file.trim_end_matches(".json");
        insta::assert_snapshot!(format!("bad_{stem}"), transcript(&output));
    }
}

/// Copies `files` from `bad_mutants/` into a scratch kit's mutants folder and validates
/// the lab there.
fn validate_with_mutant(file: &str) -> String {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4/src"]);
    let from = kit().join("grader/tests/cli/bad_mutants").join(file);
    std::fs::copy(&from, scratch.path().join("labs/lab4/mutants").join(file))
        .expect("copy the mutant");
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["validate", "lab4"])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    transcript(&output)
}

#[test]
fn a_mutant_that_does_not_parse() {
    insta::assert_snapshot!(validate_with_mutant("not_parsed.json"));
}

#[test]
fn a_mutant_whose_edit_no_longer_applies() {
    insta::assert_snapshot!(validate_with_mutant("stale_edit.json"));
}

#[test]
fn a_mutant_caught_by_an_unknown_scenario() {
    insta::assert_snapshot!(validate_with_mutant("unknown_caught_by.json"));
}

#[test]
fn a_mutant_that_says_why_one_scenario_is_enough_while_naming_two() {
    insta::assert_snapshot!(validate_with_mutant("stale_reason.json"));
}

/// An alternative whose name is not its folder's, that misses student files and holds
/// one the grader would not grade.
#[test]
fn a_broken_alternative() {
    let text = validate_changed(|kit| {
        let dir = kit.join("labs/lab4/alternatives/misnamed");
        std::fs::create_dir_all(dir.join("src")).expect("create");
        std::fs::write(
            dir.join("alternative.json"),
            "{\"format_version\": 1, \"name\": \"other\", \"title\": \"A design\", \"design\": \"\"}\n",
        )
        .expect("write");
        std::fs::copy(
            kit.join("labs/lab4/alternatives/phase_enum/src/breaker.rs"),
            dir.join("src/breaker.rs"),
        )
        .expect("copy");
        std::fs::write(dir.join("src/notes.txt"), "ideas\n").expect("write");
    });
    insta::assert_snapshot!(text);
}

/// Every mistake of an `alternative.json` is reported in one run, each at its place, as
/// for scenario and mutant files.
#[test]
fn every_mistake_of_an_alternative_file_in_one_run() {
    let text = validate_changed(|kit| {
        let dir = kit.join("labs/lab4/alternatives/phase_enum");
        std::fs::write(
            dir.join("alternative.json"),
            "{\n  \"format_version\": \"1\",\n  \"name\": \"phase_enum\",\n  \"titel\": \"A state enum\",\n  \"design\": \"The state carries its data.\"\n}\n",
        )
        .expect("write");
    });
    insta::assert_snapshot!(text);
}

/// Runs `grader validate lab4` in a scratch kit after `change` edited it.
fn validate_changed(change: impl FnOnce(&Path)) -> String {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4/src"]);
    change(scratch.path());
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["validate", "lab4"])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    transcript(&output)
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

#[test]
fn points_that_do_not_add_up() {
    let text = validate_changed(|kit| {
        crate::util::change_total_points(&kit.join("labs/lab4/lab.json"), |n| n + 7);
    });
    insta::assert_snapshot!(text);
}

#[test]
fn a_name_used_twice_across_visible_and_hidden() {
    let text = validate_changed(|kit| {
        let hidden = kit.join("labs/lab4/hidden/bh_rejections_do_not_reset_the_count.json");
        edit(
            &hidden,
            "\"name\": \"bh_rejections_do_not_reset_the_count\"",
            "\"name\": \"bh_rejections_are_not_failures\"",
        );
        std::fs::rename(
            &hidden,
            kit.join("labs/lab4/hidden/bh_rejections_are_not_failures.json"),
        )
        .expect("rename");
    });
    insta::assert_snapshot!(text);
}

#[test]
fn a_hidden_scenario_in_the_published_folder() {
    let text = validate_changed(|kit| {
        let name = "iso_each_target_keeps_its_own_settings.json";
        std::fs::rename(
            kit.join("labs/lab4/hidden").join(name),
            kit.join("labs/lab4/scenarios").join(name),
        )
        .expect("move");
    });
    insta::assert_snapshot!(text);
}

#[test]
fn a_file_not_named_after_its_scenario() {
    let text = validate_changed(|kit| {
        std::fs::rename(
            kit.join("labs/lab4/scenarios/tr_full_cycle.json"),
            kit.join("labs/lab4/scenarios/tr_whole_cycle.json"),
        )
        .expect("rename");
    });
    insta::assert_snapshot!(text);
}

/// `grader check` refuses a lab whose scenario files are wrong, with the same messages,
/// before building anything.
#[test]
fn check_refuses_a_hidden_scenario_marked_visible() {
    let scratch = scratch_kit(&["Cargo.toml", "labs"]);
    edit(
        &scratch
            .path()
            .join("labs/lab4/hidden/sm_wait_restarts_when_a_slow_trial_fails.json"),
        "  \"visibility\": \"hidden\",\n",
        "",
    );
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["check", "lab4"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output));
}

/// `grader audit` refuses a lab that does not validate, before building anything.
#[test]
fn audit_refuses_an_invalid_lab() {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4/src"]);
    edit(
        &scratch.path().join("labs/lab4/mutants/many_trials.json"),
        "\"ho_single_trial_under_concurrency\"",
        "\"ho_single_trial_under_concurency\"",
    );
    let output = grader()
        .arg("--kit")
        .arg(scratch.path())
        .args(["audit", "lab4"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output));
}

#[test]
fn arguments_that_name_nothing() {
    let output = grader()
        .args(["validate", "lab44"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: `lab44` is neither a file, a folder nor a lab of this kit
      help: did you mean `lab4`?
    ");
    let output = grader()
        .args(["validate", "README.md"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 2
    ----- stdout -----
    ----- stderr -----
    error: README.md is not a .json file
      help: give scenario files, folders of them, or a lab name
    ");
}

/// Files, folders and lab folders are all accepted, and each gets its summary line.
#[test]
fn files_folders_and_labs() {
    let output = grader()
        .args([
            "validate",
            "labs/lab4/scenarios/tr_full_cycle.json",
            "labs/lab4/hidden",
            "labs/lab4/mutants/many_trials.json",
            "labs/lab4",
        ])
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!(transcript(&output), @r"
    exit status: 0
    ----- stdout -----
    labs/lab4/scenarios/tr_full_cycle.json: 1 scenario file of lab4, 6 points: all valid
    labs/lab4/hidden: 9 scenario files of lab4, 35 points: all valid
    labs/lab4/mutants/many_trials.json: 1 mutant of lab4: all valid
    lab4: 57 scenarios (48 visible, 9 hidden) and 40 generated scenarios graded in CI, 280 points, 38 mutants, 5 alternatives: all valid
    ----- stderr -----
    ");
}

/// Each lab's JSON Schema (`labs/<lab>/scenario.schema.json`) is generated from its
/// scenario types, targets and categories; it must be regenerated when they change.
#[test]
fn the_checked_in_schema_matches_the_types() {
    let kit = kit();
    let labs = grader::labs::registered();
    let mut stale = Vec::new();
    for name in labs.names() {
        let lab = grader::lab::Lab::load(&labs, &kit, name).expect("the lab loads");
        let path = grader::scenario::schema::path(&lab);
        let schema = grader::scenario::schema::for_lab(&lab);
        // "race" is offered only where validation accepts it: in a lab with race checks.
        assert_eq!(
            schema["properties"].get("race").is_some(),
            lab.has_race_checks(),
            "{name}: \"race\" in the schema"
        );
        let fresh = grader::scenario::schema::to_text(&schema);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == fresh {
            continue;
        }
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            // Regenerated, but this run still fails: a stale schema never passes, and the
            // next run (without the variable) checks what was written.
            std::fs::write(&path, &fresh).expect("write the schema");
            stale.push(format!(
                "{} was out of date and has been regenerated: review the change, then run the tests again without UPDATE_SCHEMA",
                path.display()
            ));
        } else {
            stale.push(format!(
                "{} is out of date with {name}'s scenario types or with its lab.json.\n\
                 Regenerate it with:\n\n    UPDATE_SCHEMA=1 cargo test -p grader --test cli schema\n",
                path.display()
            ));
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

/// Every scenario file points editors to the schema, and the schema accepts the shipped
/// files' shape: the same keys the grader reads.
#[test]
fn every_scenario_file_points_to_the_schema() {
    for dir in [
        "labs/lab4/scenarios",
        "labs/lab4/hidden",
        "labs/lab5/scenarios",
        "labs/lab5/hidden",
    ] {
        for entry in std::fs::read_dir(kit().join(dir))
            .expect("folder")
            .flatten()
        {
            let text = std::fs::read_to_string(entry.path()).expect("read");
            let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            assert!(
                value["$schema"] == grader::scenario::schema::REFERENCE,
                "{} should end with \"$schema\": \"{}\", so that editors check it (see labs/README.md)",
                entry.path().display(),
                grader::scenario::schema::REFERENCE
            );
        }
    }
}

#[test]
fn a_lab_named_differently_from_its_folder() {
    let text = validate_changed(|kit| {
        edit(
            &kit.join("labs/lab4/lab.json"),
            "\"name\": \"lab4\"",
            "\"name\": \"lab_4\"",
        );
    });
    insta::assert_snapshot!(text);
}

/// One run lists every mistake of a file, in file order, as a compiler does: a misspelt
/// key, a word in the wrong case, an unknown step and a value of the wrong type do not
/// hide the mistakes after them.
#[test]
fn every_mistake_of_a_file_is_reported_in_one_run() {
    let scratch = lab4_only_kit();
    let output = grader()
        .current_dir(scratch.path())
        .arg("validate")
        .arg(Path::new(BAD_SCENARIOS).join("many_mistakes.json"))
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stderr);
    let helps = [
        "did you mean `state_machine`?",
        "did you mean `hint`?",
        "did you mean `core_banking`?",
        "did you mean `E500`?",
        "did you mean `expect`?",
        "did you mean `OPEN`?",
        "did you mean `send`?",
    ];
    for help in helps {
        assert!(text.contains(help), "no `{help}` in:\n{text}");
    }
    assert!(text.contains("expected a whole number"), "{text}");
    let lines: Vec<usize> = text
        .lines()
        .filter_map(|l| l.split(':').nth(1)?.parse().ok())
        .collect();
    assert!(lines.is_sorted(), "not in file order: {lines:?}\n{text}");
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.ends_with(": 8 problems\n"), "{summary}");
    assert!(!text.contains(" 1 outcomes") && !text.contains(" 1 scenarios"));
}
