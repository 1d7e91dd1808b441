//! Editions of any lab, and of several: what each holds and says, the grader in an
//! edition (its help, its refusals, its counts), the CI scripts' lab without anyone
//! setting it, and the kit's own files that editions are written from (the root
//! `clippy.toml`, the workflow's matrix). The new user's whole path through an edition,
//! which builds it from nothing, is `scripts/course_path.sh`, run by `.ci/run`.

use std::path::{Path, PathBuf};

use crate::util::{bounded, grader, kit, transcript};

/// Releases `labs` of the real kit into a new temporary folder.
fn release(labs: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("edition");
    let output = grader()
        .arg("release")
        .args(labs)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    (tmp, out)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn an_edition_of_two_labs_holds_both_and_speaks_of_them_alone() {
    let (_tmp, out) = release(&["lab4", "lab5"]);
    let edition: serde_json::Value =
        serde_json::from_str(&read(&out.join("edition.json"))).expect("edition.json");
    assert_eq!(edition["written_by"], "grader release lab4 lab5");
    let names: Vec<&str> = edition["labs"]
        .as_array()
        .expect("labs")
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    assert_eq!(names, ["lab4", "lab5"]);
    for held in [
        "crates/relay_base/src/breaker.rs",
        "crates/edi_gateway/src/gateway.rs",
    ] {
        assert!(out.join(held).is_file(), "{held}");
    }
    for absent in [
        "crates/quote_client",
        "labs/lab6",
        "ARCHITECTURE.md",
        "solutions",
    ] {
        assert!(!out.join(absent).exists(), "{absent}");
    }
    let readme = read(&out.join("README.md"));
    assert!(
        readme.starts_with("# Resilience lab kit: lab 4 and lab 5\n"),
        "{readme}"
    );
    for said in [
        "cargo run -p grader -- check lab4\n",
        "[`labs/lab5/README.md`](labs/lab5/README.md)",
        "rehearse lab4",
        "every `TODO(lab5)`",
    ] {
        assert!(readme.contains(said), "{said} missing:\n{readme}");
    }
    assert!(
        !readme.contains("lab6") && !readme.contains("lab 6"),
        "{readme}"
    );
    let workflow = read(&out.join("ci/github/grade.yml"));
    assert!(
        workflow.contains("        lab: [lab4, lab5]\n"),
        "{workflow}"
    );
    let lints = read(&out.join("clippy.toml"));
    assert!(lints.contains("relay_kit::Clock") && lints.contains("gateway_kit::Clock"));
    assert!(!lints.contains("shipping_kit"), "{lints}");
    let registered = read(&out.join("grader/src/labs.rs"));
    assert!(!registered.contains("lab6_plugin"), "{registered}");
    let lists = grader()
        .arg("--kit")
        .arg(&out)
        .arg("list")
        .output()
        .expect("list");
    let text = String::from_utf8_lossy(&lists.stdout);
    assert!(
        text.contains("lab4 ") && text.contains("lab5 ") && !text.contains("lab6"),
        "{text}"
    );
}

#[test]
fn an_edition_of_one_lab_names_no_other_labs_crates_and_its_grader_says_what_it_cannot_do() {
    let (_tmp, out) = release(&["lab6"]);
    // What another lab's crates and handouts are called, searched in every file.
    let mut foreign = Vec::new();
    for other in ["lab4", "lab5"] {
        let m: serde_json::Value =
            serde_json::from_str(&read(&kit().join("labs").join(other).join("lab.json")))
                .expect("lab.json");
        for key in ["student_package", "student_crate", "solution_package"] {
            foreign.push(m[key].as_str().expect("a name").to_owned());
        }
        foreign.push(format!("{other}_plugin"));
        foreign.push(format!("labs/{other}/README.md"));
    }
    let leaks = crate::release::leaks(&out, &foreign);
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    // Its help offers no instructors' command, and says why.
    let help = grader()
        .arg("--kit")
        .arg(&out)
        .arg("--help")
        .output()
        .expect("help");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        !help.contains("  audit") && !help.contains("  release"),
        "{help}"
    );
    assert!(help.contains("This is a student edition"), "{help}");
    let check_help = grader()
        .arg("--kit")
        .arg(&out)
        .args(["check", "--help"])
        .output()
        .expect("help");
    assert!(!String::from_utf8_lossy(&check_help.stdout).contains("--solution"));
    // Asked anyway, each says why it cannot.
    for (args, says) in [
        (
            &["audit", "lab6"][..],
            "no mutants of lab6 or no reference solution",
        ),
        (
            &["release", "lab6", "--out", "x"][..],
            "not available in the student edition",
        ),
        (
            &["check", "lab6", "--solution"][..],
            "has no reference solution",
        ),
    ] {
        let output = grader()
            .arg("--kit")
            .arg(&out)
            .args(args)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // It counts the hidden scenarios it does not ship.
    let list = grader()
        .arg("--kit")
        .arg(&out)
        .args(["list", "lab6"])
        .output()
        .expect("list");
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(
        text.contains(
            "43 visible scenarios (211 points) and 57 hidden (108 points): 319 points in all"
        ),
        "{text}"
    );
}

#[test]
fn the_kits_root_lints_join_every_labs_words() {
    let labs = grader::lab::lab_names(&kit()).expect("labs");
    let joined = grader::instructor::edition_lints::join(&kit(), &labs)
        .expect("joined")
        .expect("every lab has words of its own");
    assert_eq!(
        read(&kit().join("clippy.toml")),
        joined,
        "clippy.toml is not what the labs' clippy.toml files make: write it from them"
    );
    for lab in &labs {
        let own = read(&kit().join("labs").join(lab).join("clippy.toml"));
        let spoken = format!("lab {}", lab.trim_start_matches("lab"));
        assert!(
            own.contains(&spoken),
            "{lab}'s clippy.toml does not speak of {spoken}"
        );
    }
}

/// Runs a CI script with `env`, in a scratch folder.
fn script(path: &str, env: &[(&str, &Path)]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("a folder");
    let mut command = bounded("bash");
    command
        .arg(kit().join(path))
        .current_dir(dir.path())
        .env("AUTOGRADER_ROOT", dir.path())
        .env("PL_GRADE_ROOT", dir.path())
        .env("GRADER_BIN", env!("CARGO_BIN_EXE_grader"))
        .env("GRADER", env!("CARGO_BIN_EXE_grader"))
        .env_remove("LAB")
        .env_remove("GRADER_LAB")
        .env_remove("GITHUB_ACTIONS");
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().expect("bash runs");
    let results = dir.path().join("results/results.json");
    let mut output = output;
    if let Ok(text) = std::fs::read_to_string(results) {
        output.stdout.extend_from_slice(text.as_bytes());
    }
    output
}

#[test]
fn a_ci_script_without_its_lab_is_a_configuration_error_naming_the_labs() {
    let k = kit();
    for (path, env) in [
        ("ci/github/grade.sh", vec![("KIT", k.as_path())]),
        (
            "ci/gradescope/run_autograder",
            vec![("GRADER_KIT", k.as_path())],
        ),
        ("ci/prairielearn/run", vec![("GRADER_KIT", k.as_path())]),
    ] {
        let output = script(path, &env);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{path}: {}",
            transcript(&output)
        );
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(all.contains("lab4 lab5 lab6"), "{path}: {all}");
        assert!(all.contains("LAB"), "{path} names the variable: {all}");
        assert!(
            !all.contains("could not be graded"),
            "{path} blames the student: {all}"
        );
    }
    let none = script("ci/gradescope/make_bundle.sh", &[]);
    assert_eq!(none.status.code(), Some(3), "{}", transcript(&none));
    assert!(String::from_utf8_lossy(&none.stderr).contains("lab4 lab5 lab6"));
}

#[test]
fn prairielearn_results_hold_every_documented_field_and_keep_hidden_scenarios_undescribed() {
    let dir = crate::subs::folder("prairielearn");
    crate::subs::write(
        &dir.join("submission"),
        crate::subs::Layout::Flat,
        &crate::subs::mutant("opens_one_late"),
    );
    let output = grader()
        .args(["check", "lab4", "--submission"])
        .arg(dir.join("submission"))
        .args(["--format", "prairielearn"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let r: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    for field in ["gradable", "score", "message", "output", "images", "tests"] {
        assert!(!r[field].is_null(), "{field}: {r}");
    }
    assert_eq!(r["gradable"], true);
    let score = r["score"].as_f64().expect("a number");
    assert!(score > 0.0 && score < 1.0, "a fraction: {score}");
    let tests = r["tests"].as_array().expect("tests");
    for t in tests {
        for field in [
            "name",
            "description",
            "points",
            "max_points",
            "message",
            "output",
            "images",
        ] {
            assert!(!t[field].is_null(), "{field}: {t}");
        }
    }
    let earned: f64 = tests.iter().filter_map(|t| t["points"].as_f64()).sum();
    let max: f64 = tests.iter().filter_map(|t| t["max_points"].as_f64()).sum();
    assert_eq!(max, 280.0, "every scenario counts, hidden ones too");
    assert!((earned / max - score).abs() < 1e-9);
    let hidden = tests
        .iter()
        .find(|t| t["name"] == "hidden scenarios")
        .expect("the hidden scenarios, counted");
    assert_eq!(hidden["max_points"], 75);
    let text = String::from_utf8_lossy(&output.stdout);
    for f in crate::release::files(&kit().join("labs/lab4/hidden")) {
        let name = f
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        assert!(!text.contains(&name), "{name} is described");
    }
    assert!(
        tests
            .iter()
            .any(|t| t["name"] == "sm_opens_at_threshold" && t["points"] == 0)
    );
}

/// Runs the GitHub step on `files` as GitHub runs it, and gives its standard output, where
/// the workflow commands go.
fn annotated(test: &str, files: &[(String, String)]) -> String {
    let dir = crate::subs::folder(test);
    crate::subs::write(&dir.join("submission"), crate::subs::Layout::Kit, files);
    let output = bounded("bash")
        .arg(kit().join("ci/github/grade.sh"))
        .current_dir(&dir)
        .env("KIT", kit())
        .env("LAB", "lab4")
        .env("SUBMISSION", "submission")
        .env("GRADER", env!("CARGO_BIN_EXE_grader"))
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env_remove("GRADER_WORK_DIR")
        .output()
        .expect("bash runs");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        transcript(&output)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_github_step_marks_compile_errors_and_the_place_to_start_on_the_students_lines() {
    let mut broken = crate::subs::reference_files();
    broken[1].1.push_str("\nfn oops() -> u8 { 300 }\n");
    let out = annotated("annotate_compile_error", &broken);
    let error = out
        .lines()
        .find(|l| l.starts_with("::error file=crates/relay_base/src/bulkhead.rs,line="))
        .unwrap_or_else(|| panic!("no annotation of the compile error:\n{out}"));
    assert!(error.contains("title=does not compile::error"), "{error}");
    let skeleton: Vec<(String, String)> = ["src/breaker.rs", "src/bulkhead.rs", "src/relay.rs"]
        .iter()
        .map(|f| {
            let text = read(&kit().join("crates/relay_base").join(f));
            ((*f).to_owned(), text)
        })
        .collect();
    let out = annotated("annotate_start_here", &skeleton);
    let start = out
        .lines()
        .find(|l| l.contains("title=Start here::"))
        .unwrap_or_else(|| panic!("no Start here annotation:\n{out}"));
    assert!(
        start.starts_with("::warning file=crates/relay_base/src/"),
        "{start}"
    );
    assert!(start.contains("not yet implemented"), "{start}");
}
