//! The shipped CI files, run here: Gradescope's `run_autograder` against a folder laid
//! out as Gradescope lays it out (`submission/`, `results/`, `source/`), and the GitHub
//! Actions grading step with its pass mark.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::formats::gradescope;
use crate::subs::{self, Layout};
use crate::util::{bounded, kit};

/// Runs `ci/gradescope/run_autograder` with `root` as `/autograder`, this kit as its
/// source and `grader` as the program.
fn run_autograder(root: &Path, grader: &Path) -> std::process::Output {
    std::fs::create_dir_all(root.join("results")).unwrap();
    std::fs::create_dir_all(root.join("source")).unwrap();
    bounded("bash")
        .arg(kit().join("ci/gradescope/run_autograder"))
        .current_dir(root)
        .env("AUTOGRADER_ROOT", root)
        .env("GRADER_KIT", kit())
        .env("GRADER_BIN", grader)
        // The instructors' kit holds every lab: a bundle holds one and needs none.
        .env("GRADER_LAB", "lab4")
        .env("NO_COLOR", "1")
        .env_remove("GRADER_WORK_DIR")
        .output()
        .expect("bash runs")
}

fn grader_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_grader"))
}

#[test]
fn run_autograder_grades_a_gradescope_submission() {
    let root = subs::folder("gradescope_root");
    subs::write(
        &root.join("submission"),
        Layout::Flat,
        &subs::mutant("many_trials"),
    );
    let output = run_autograder(&root, grader_bin());
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let r = gradescope(&root.join("results/results.json"));
    assert!(r.score > 0.0 && !r.tests.is_empty());
    assert!(r.tests.iter().any(|t| t.status == "failed"));
    assert_eq!(r.extra_data["status"], "graded");
    let leftovers: Vec<_> = std::fs::read_dir(root.join("results"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers, ["results.json"], "no partial or log files left");
}

#[test]
fn run_autograder_writes_results_when_nothing_can_be_graded() {
    // No lab file in the submission: the grader's own could-not-grade result.
    let root = subs::folder("gradescope_empty");
    std::fs::create_dir_all(root.join("submission")).unwrap();
    std::fs::write(root.join("submission/notes.txt"), "I forgot my code").unwrap();
    assert_eq!(run_autograder(&root, grader_bin()).status.code(), Some(0));
    let r = gradescope(&root.join("results/results.json"));
    assert_eq!(r.score, 0.0);
    assert_eq!(r.extra_data["status"], "could_not_grade");
    assert!(r.output.contains("breaker.rs"), "{}", r.output);

    // No grader at all.
    let root = subs::folder("gradescope_no_grader");
    subs::write(
        &root.join("submission"),
        Layout::Flat,
        &subs::reference_files(),
    );
    assert_eq!(
        run_autograder(&root, &root.join("missing-grader"))
            .status
            .code(),
        Some(0)
    );
    let r = gradescope(&root.join("results/results.json"));
    assert_eq!(r.score, 0.0);
    assert_eq!(r.extra_data["status"], "error");
    assert!(r.output.contains("could not grade"), "{}", r.output);

    // A grader that dies half-way through its file, with quotes and a tab in its dying
    // words: the half-written file never reaches the platform.
    let root = subs::folder("gradescope_crash");
    subs::write(
        &root.join("submission"),
        Layout::Flat,
        &subs::reference_files(),
    );
    let crasher = root.join("crasher.sh");
    std::fs::write(
        &crasher,
        r#"#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --output ] && file=$2; shift; done
printf '{"score": 130, "tests": [' > "$file"
printf 'thread "main" panicked\tat \\ somewhere\n' >&2
kill -SEGV $$
"#,
    )
    .unwrap();
    let chmod = Command::new("chmod")
        .arg("+x")
        .arg(&crasher)
        .status()
        .unwrap();
    assert!(chmod.success());
    assert_eq!(run_autograder(&root, &crasher).status.code(), Some(0));
    let r = gradescope(&root.join("results/results.json"));
    assert_eq!(r.score, 0.0);
    assert_eq!(r.extra_data["status"], "error");
    assert!(r.output.contains("panicked"), "{}", r.output);
}

/// Runs `ci/github/grade.sh` in `dir` on the submission `dir/submission`.
fn github_step(dir: &Path, pass_mark: &str) -> std::process::Output {
    bounded("bash")
        .arg(kit().join("ci/github/grade.sh"))
        .current_dir(dir)
        .env("KIT", kit())
        .env("LAB", "lab4")
        .env("SUBMISSION", "submission")
        .env("GRADER", grader_bin())
        .env("PASS_MARK", pass_mark)
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GRADER_WORK_DIR")
        .output()
        .expect("bash runs")
}

#[test]
fn the_github_step_fails_below_the_pass_mark_and_keeps_its_results() {
    let dir = subs::folder("github_step");
    subs::write(
        &dir.join("submission"),
        Layout::Kit,
        &subs::mutant("opens_one_late"),
    );
    let output = github_step(&dir, "100%");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("below the pass mark"));
    let junit = quick_junit::Report::deserialize_from_str(
        &std::fs::read_to_string(dir.join("grader-results/results.xml")).unwrap(),
    )
    .expect("the JUnit file");
    assert!(junit.failures > 0);
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("grader-results/results.json")).unwrap(),
    )
    .unwrap();
    let score = report["score"].as_u64().unwrap();
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains(&format!("{score}/{} points", report["max_score"])),
        "{summary}"
    );
    assert!(
        summary.contains("| `sm_opens_at_threshold` | failed |"),
        "{summary}"
    );
    // The page of timelines goes with the results, and the summary says where.
    let page = std::fs::read_to_string(dir.join("grader-results/timeline.html"))
        .expect("the page of timelines is in the results");
    assert!(
        page.contains("id=\"s-sm_opens_at_threshold\""),
        "a section per scenario"
    );
    assert!(
        summary.contains("`timeline.html` in the `grader-results-lab4` artifact"),
        "{summary}"
    );

    let output = github_step(&dir, &score.to_string());
    assert_eq!(
        output.status.code(),
        Some(0),
        "at the pass mark: {output:?}"
    );
    let output = github_step(&dir, "lots");
    assert_eq!(output.status.code(), Some(2), "a bad pass mark: {output:?}");
}

#[test]
fn the_github_step_puts_the_compilers_messages_in_the_summary_and_the_log() {
    let dir = subs::folder("github_step_compile_error");
    let mut files = subs::reference_files();
    files[1].1.push_str("\nfn oops() -> u8 { 300 }\n");
    subs::write(&dir.join("submission"), Layout::Kit, &files);
    let output = github_step(&dir, "0");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    for needed in [
        "does not compile",
        "literal out of range for `u8`",
        "crates/relay_base/src/bulkhead.rs:",
        "scenarios not run: the code does not compile",
    ] {
        assert!(
            summary.contains(needed),
            "{needed:?} missing from:\n{summary}"
        );
    }
    assert!(!summary.contains("see the job log"), "{summary}");
    assert!(
        !summary.contains("| not run |") && !summary.contains("| error |"),
        "one line for the scenarios that did not run, not one row each:\n{summary}"
    );
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(log.contains("literal out of range for `u8`"), "{log}");
}

#[test]
fn the_github_workflow_runs_the_step_and_uploads_the_results() {
    let text = std::fs::read_to_string(kit().join("ci/github/grade.yml")).unwrap();
    // Parsed, not searched: the structure matters more than the words.
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).expect("grade.yml is YAML");
    let w = &docs[0];
    let steps = w["jobs"]["grade"]["steps"]
        .as_vec()
        .expect("the grade job's steps");
    let field = |step: &yaml_rust2::Yaml, key: &str| step[key].as_str().unwrap_or("").to_owned();
    let runs: Vec<String> = steps.iter().map(|s| field(s, "run")).collect();
    let runs = runs.join(" ");
    let uses: Vec<String> = steps.iter().map(|s| field(s, "uses")).collect();
    assert!(runs.contains("bash kit/ci/github/grade.sh"), "{runs}");
    assert!(
        runs.contains("cargo build --release --locked -p grader"),
        "{runs}"
    );
    assert_eq!(
        uses.iter()
            .filter(|u| u.starts_with("actions/checkout@"))
            .count(),
        2,
        "{uses:?}"
    );
    let upload = steps
        .iter()
        .find(|s| field(s, "uses").starts_with("actions/upload-artifact@"))
        .expect("a step uploads the results");
    assert_eq!(field(upload, "if"), "always()", "{upload:?}");
    assert!(!w["env"]["PASS_MARK"].is_badvalue(), "{:?}", w["env"]);
    // One job per lab: the kit's workflow lists every lab of the kit, and passes it on.
    let matrix: Vec<&str> = w["jobs"]["grade"]["strategy"]["matrix"]["lab"]
        .as_vec()
        .expect("a matrix of labs")
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    let labs = grader::lab::lab_names(&kit()).expect("the kit's labs");
    assert_eq!(matrix, labs, "the workflow's matrix");
    let grade = steps
        .iter()
        .find(|s| field(s, "run").contains("grade.sh"))
        .expect("the grading step");
    assert_eq!(
        field(&grade["env"], "LAB"),
        "${{ matrix.lab }}",
        "{grade:?}"
    );
}

/// The Gradescope bundle of this kit, made once per test run with the grader under test
/// (which also grades the reference first); `None` when zip is not installed here.
fn bundle() -> Option<&'static Path> {
    static MADE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    MADE.get_or_init(|| {
        for tool in ["zip", "unzip"] {
            require_tool(tool, Command::new(tool).arg("-v"));
        }
        // Into a folder that does not exist yet: the script makes it.
        let out = crate::util::test_dir("bundle").join("out");
        let _ = std::fs::remove_dir_all(&out);
        let zip = out.join("lab4/autograder.zip");
        let made = Command::new("bash")
            .arg(kit().join("ci/gradescope/make_bundle.sh"))
            .arg("lab4")
            .arg(&zip)
            .env("GRADER", grader_bin())
            .env_remove("GRADER_WORK_DIR")
            .output()
            .unwrap();
        assert!(made.status.success(), "{}", crate::util::transcript(&made));
        let said = String::from_utf8_lossy(&made.stderr);
        assert!(
            said.contains("give the Gradescope assignment 280 points in all"),
            "the point total for the assignment: {said}"
        );
        Some(zip)
    })
    .as_deref()
}

#[test]
fn the_gradescope_bundle_holds_the_scripts_the_kit_and_the_hidden_scenarios_but_no_reference() {
    let Some(zip) = bundle() else { return };
    let list = Command::new("unzip").arg("-Z1").arg(zip).output().unwrap();
    let names = String::from_utf8_lossy(&list.stdout);
    let names: Vec<&str> = names.lines().collect();
    for wanted in [
        "setup.sh",
        "run_autograder",
        "Cargo.toml",
        "Cargo.lock",
        "labs/lab4/lab.json",
        "labs/lab4/hidden/bh_rejections_do_not_reset_the_count.json",
        "grader/src/main.rs",
        "crates/relay_base/src/breaker.rs",
    ] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }
    for unwanted in [
        "target/",
        ".git/",
        "solutions/",
        "labs/lab4/mutants/",
        "grader/tests/",
    ] {
        assert!(
            !names.iter().any(|n| n.starts_with(unwanted)),
            "{unwanted} in {names:?}"
        );
    }
}

#[test]
fn a_bundle_is_not_made_from_a_kit_whose_reference_fails() {
    // A copy of the kit at the same path every run, its files' times kept, so that only
    // the broken file is built again.
    let place = crate::util::test_dir("bundle_refused");
    let copy = place.join("cache/kit");
    if copy.exists() {
        std::fs::remove_dir_all(&copy).unwrap();
    }
    std::fs::create_dir_all(&copy).unwrap();
    for part in [
        "Cargo.toml",
        "Cargo.lock",
        "crates",
        "fixtures",
        "grader",
        "labs",
        "solutions",
        "ci",
    ] {
        let copied = Command::new("cp")
            .arg("-a")
            .arg(kit().join(part))
            .arg(&copy)
            .status()
            .unwrap();
        assert!(copied.success());
    }
    let breaker = copy.join("solutions/lab4/src/breaker.rs");
    let text = std::fs::read_to_string(&breaker).unwrap();
    let broken = text.replacen(
        "matches!(code, Code::E500 | Code::E901 | Code::E902)",
        "matches!(code, Code::E500 | Code::E901)",
        1,
    );
    assert_ne!(broken, text);
    std::fs::write(&breaker, broken).unwrap();
    let zip = place.join("autograder.zip");
    let made = Command::new("bash")
        .arg(copy.join("ci/gradescope/make_bundle.sh"))
        .arg("lab4")
        .arg(&zip)
        .env("GRADER", grader_bin())
        .env("GRADER_WORK_DIR", place.join("cache/work"))
        .output()
        .unwrap();
    assert!(!made.status.success());
    assert!(
        String::from_utf8_lossy(&made.stderr).contains("does not get full marks"),
        "{}",
        crate::util::transcript(&made)
    );
    assert!(!zip.exists());
}

#[test]
fn attacks_in_the_gradescope_bundle_get_nothing() {
    // The bundle unpacked where Gradescope puts it, at the same path every run, with the
    // grader's builds kept beside it, as the platform's image keeps the builds setup.sh
    // made.
    let Some(zip) = bundle() else { return };
    let place = crate::util::test_dir("gradescope_bundle");
    let cache = place.join("cache");
    let source = cache.join("source");
    let work = cache.join("work");
    if source.exists() {
        std::fs::remove_dir_all(&source).unwrap();
    }
    let unzipped = Command::new("unzip")
        .args(["-q", "-o"])
        .arg(zip)
        .arg("-d")
        .arg(&source)
        .status()
        .unwrap();
    assert!(unzipped.success());
    // Aimed at the bundle as unpacked (its hidden scenarios), and at the instructors' kit
    // this one came from (its reference), which is on this machine.
    let aimed = |at: &Path, names: &[&str]| {
        crate::attacks::attacks(at, &work)
            .into_iter()
            .filter(|a| names.contains(&a.name))
            .collect::<Vec<_>>()
    };
    let mut attacks = aimed(
        &source,
        &["secrets_in_compile_errors", "secrets_at_run_time"],
    );
    attacks.extend(aimed(&kit(), &["reference_by_relative_path"]));
    // The run-time attack is built on the reference: its full marks show that the hidden
    // scenarios ran, and that the attack changed nothing.
    let mut runs = Vec::new();
    for a in &attacks {
        let compiles = !matches!(a.safe, crate::attacks::Safe::DoesNotCompile(_));
        runs.push((a.name.to_owned(), a.files.clone(), compiles));
    }
    for (name, files, compiles) in runs {
        let root = place.join(&name);
        subs::write(&root.join("submission"), Layout::Flat, &files);
        std::fs::create_dir_all(root.join("results")).unwrap();
        let output = Command::new("bash")
            .arg(source.join("run_autograder"))
            .current_dir(&root)
            .env("AUTOGRADER_ROOT", &root)
            .env("GRADER_KIT", &source)
            .env("GRADER_BIN", grader_bin())
            .env("GRADER_WORK_DIR", &work)
            .env(crate::attacks::SECRET_ENV.0, crate::attacks::SECRET_ENV.1)
            .env("NO_COLOR", "1")
            .output()
            .expect("bash runs");
        assert_eq!(output.status.code(), Some(0), "{name}: {output:?}");
        let path = root.join("results/results.json");
        let text = std::fs::read_to_string(&path).unwrap();
        for secret in [
            "\\\"format_version\\\"",
            crate::attacks::SECRET_ENV.1,
            "LEAKED",
            "CLOSED lets calls through and counts consecutive failures",
        ] {
            assert!(!text.contains(secret), "{name}: {secret} in {text}");
        }
        let r = gradescope(&path);
        assert_eq!(r.extra_data["status"], "graded", "{name}: {text}");
        let max: f64 = r.tests.iter().map(|t| t.max_score).sum();
        assert_eq!(
            max, 280.0,
            "{name}: the hidden and generated scenarios ran too"
        );
        let expected = if compiles { max } else { 0.0 };
        assert_eq!(r.score, expected, "{name}: {text}");
    }
}

/// Fails the test, saying what to install, unless `command` (a tool's version query) runs:
/// a check that needs a tool never passes without it. `.ci/run` installs every such tool,
/// and the README names them beside the test command.
fn require_tool(tool: &str, command: &mut Command) {
    let runs = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        runs,
        "{tool} is not installed, and this test needs it: install it (apt-get install zip unzip), or run .ci/run, which does"
    );
}
