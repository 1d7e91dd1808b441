//! Generated scenarios: a seed names one scenario, the reference fills it in and passes
//! it, a submission's grading adds the seeds graded in CI, a mutant fails them with the
//! hint of the rule its step checks, correct alternatives agree with the reference, and a
//! shrunk divergence replays to the same difference.

use std::path::Path;

use crate::subs::{Layout, folder, json, lab_files as files, write};
use crate::util::{grader, kit, stdout, test_dir, transcript};

fn check_submission(lab: &str, dir: &Path, extra: &[&str]) -> std::process::Output {
    grader()
        .args(["check", lab, "--submission"])
        .arg(dir)
        .args(["--format", "json"])
        .args(extra)
        .output()
        .expect("run the grader")
}

/// The results of the generated scenarios in a JSON report.
fn generated_results(report: &serde_json::Value) -> Vec<&serde_json::Value> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["category"] == "generated")
        .collect()
}

#[test]
fn a_seed_names_one_scenario_which_the_reference_passes() {
    let filled = kit().join("target/grader/lab5/generated/filled/gen_7.json");
    let mut texts = Vec::new();
    for _ in 0..2 {
        let output = grader()
            .args(["check", "lab5", "--solution", "--scenario", "gen_7"])
            .args(["--format", "json"])
            .output()
            .expect("run the grader");
        assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
        let report = json(&output);
        let results = generated_results(&report);
        assert_eq!(results.len(), 1, "{report}");
        assert_eq!(results[0]["name"], "gen_7");
        assert_eq!(results[0]["status"], "passed");
        texts.push(std::fs::read_to_string(&filled).expect("the filled-in file is kept"));
    }
    assert_eq!(texts[0], texts[1], "seed 7 named two scenarios");
    // An ordinary scenario file: it checks outcomes and states, and `explain` reads it.
    assert!(texts[0].contains("\"expect\""), "{}", texts[0]);
    let output = grader()
        .args(["explain", "lab5"])
        .arg(&filled)
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(stdout(&output).contains("seed 7"), "{}", stdout(&output));
}

#[test]
fn the_practice_seeds_run_with_generated_and_are_left_out_otherwise() {
    let output = grader()
        .args([
            "check",
            "lab6",
            "--solution",
            "--generated",
            "3",
            "--format",
            "json",
        ])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let report = json(&output);
    let names: Vec<&str> = generated_results(&report)
        .iter()
        .map(|r| r["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["gen_1", "gen_2", "gen_3"]);
    let output = grader()
        .args(["check", "lab6", "--solution", "--format", "json"])
        .output()
        .expect("run the grader");
    let report = json(&output);
    assert!(generated_results(&report).is_empty(), "{report}");
    // The graded seeds are counted with the hidden scenarios that did not run.
    assert_eq!(report["hidden_not_run"], 57, "{report}");
    assert_eq!(report["hidden_points_not_run"], 108, "{report}");
}

#[test]
fn a_submission_is_graded_with_the_seeds_graded_in_ci_and_a_mutant_gets_the_rule_s_hint() {
    let dir = folder("generated-reference");
    write(&dir, Layout::Crate, &files("lab5", None));
    let output = check_submission("lab5", &dir, &[]);
    let report = json(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert_eq!(
        (report["score"].as_u64(), report["max_score"].as_u64()),
        (Some(390), Some(390)),
        "{report}"
    );
    let seeds: Vec<&str> = generated_results(&report)
        .iter()
        .map(|r| r["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(seeds.len(), 40);
    assert_eq!(seeds.first(), Some(&"gen_52817"));
    let output = check_submission("lab5", &dir, &["--no-generated"]);
    assert_eq!(json(&output)["max_score"], 350);

    // A mistake the hand-written scenarios catch only at a few clean points.
    let dir = folder("generated-mutant");
    write(
        &dir,
        Layout::Crate,
        &files("lab5", Some("max_age_kept_at_boundary")),
    );
    let output = check_submission("lab5", &dir, &[]);
    let report = json(&output);
    let failed: Vec<&serde_json::Value> = generated_results(&report)
        .into_iter()
        .filter(|r| r["status"] != "passed")
        .collect();
    assert!(
        !failed.is_empty(),
        "no generated scenario caught it: {report}"
    );
    let generic = "find the rule of the handout that decides this step";
    for r in failed {
        let hint = r["hint"].as_str().unwrap_or_default();
        assert!(hint.contains("(rule"), "{}: {hint}", r["name"]);
        assert!(!hint.contains(generic), "{}: {hint}", r["name"]);
        assert!(r["failure"]["expected"].is_string(), "{r}");
    }
}

/// The generated part of an audit's JSON.
fn audit(lab: &str, mutant: &str, seeds: &str) -> serde_json::Value {
    let output = grader()
        .args(["audit", lab, "--runs", "1", "-j", "8", "--timeout", "3"])
        .args(["--mutant", mutant, "--generated", seeds, "--format", "json"])
        .output()
        .expect("run the grader");
    let audit = json(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    audit["generated"].clone()
}

/// Every correct alternative, and the reference itself, agree with the reference on
/// every seed the audit ran.
fn agree(g: &serde_json::Value) {
    assert_eq!(g["reference_flaky"], serde_json::json!([]), "{g}");
    let alternatives = g["alternatives"].as_array().expect("alternatives");
    assert!(!alternatives.is_empty(), "{g}");
    for a in alternatives {
        assert_eq!(a["diverged"], serde_json::json!([]), "{a}");
    }
}

#[test]
fn lab4_alternatives_agree_with_the_reference_on_generated_scenarios() {
    let g = audit("lab4", "wait_in_whole_seconds", "60");
    agree(&g);
    assert!(g["mutants"][0]["first"].is_u64(), "{g}");
}

#[test]
fn lab6_alternatives_agree_with_the_reference_on_generated_scenarios() {
    let g = audit("lab6", "expires_at_exactly_max_wait", "60");
    agree(&g);
    assert!(g["mutants"][0]["first"].is_u64(), "{g}");
}

#[test]
fn a_shrunk_divergence_is_a_few_steps_and_replays_to_the_same_difference() {
    let g = audit("lab5", "only_503_counted", "60");
    agree(&g);
    let m = &g["mutants"][0];
    let steps = m["shrunk"][0].as_u64().expect("a shrunk divergence");
    assert!(steps <= 8, "{m}");
    let file = kit().join(m["shrunk"][1].as_str().expect("its file"));
    let want = &m["failure"];
    // Replayed as an ordinary scenario, on the same mistake, twice.
    let dir = folder("generated-replay");
    write(
        &dir,
        Layout::Crate,
        &files("lab5", Some("only_503_counted")),
    );
    for _ in 0..2 {
        let output = check_submission("lab5", &dir, &["--scenario", &file.to_string_lossy()]);
        let report = json(&output);
        let scenarios = report["scenarios"].as_array().expect("scenarios");
        assert_eq!(scenarios.len(), 1, "{report}");
        let got = &scenarios[0]["failure"];
        for key in ["step", "action", "expected", "observed"] {
            assert_eq!(got[key], want[key], "{key}: {report}");
        }
    }
    // The reference passes it.
    let output = grader()
        .args(["check", "lab5", "--solution", "--scenario"])
        .arg(&file)
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
}

#[test]
fn a_failed_practice_scenario_is_shrunk_and_its_file_replays() {
    // The untouched skeleton fails everything at its first todo!().
    let output = grader()
        .args(["check", "lab4", "--generated", "1"])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    let replay = err
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("replay: grader check lab4 --scenario ")
        })
        .unwrap_or_else(|| panic!("no replay line: {err}"))
        .to_owned();
    assert!(
        err.contains("gen_1 differs from the reference; shrunk to "),
        "{err}"
    );
    let output = grader()
        .args(["check", "lab4", "--scenario", &replay, "--format", "json"])
        .output()
        .expect("run the grader");
    let report = json(&output);
    let scenarios = report["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios.len(), 1);
    assert_eq!(scenarios[0]["name"], "gen_1_shrunk");
    assert_eq!(scenarios[0]["status"], "error", "{report}");
}

#[test]
fn a_kit_without_the_reference_reads_the_published_files() {
    use grader::generate::edition::{self, Which};
    let dir = test_dir("generated-edition");
    let out = dir.join("edition");
    let output = grader()
        .args(["release", "lab5", "--out"])
        .arg(&out)
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let lab = grader::lab::Lab::load(&grader::labs::registered(), &kit(), "lab5").expect("lab5");
    let opts = grader::grade::RunOptions {
        timeout_ms: 5000,
        stuck_after_ms: 2000,
        jobs: 2,
        backtrace: false,
        schedule: None,
        race: None,
        confinement: None,
        album: None,
    };
    let written = edition::write(
        &lab,
        Which::Practice,
        &edition::folder(&lab, Which::Practice, &out),
        &opts,
        &mut std::io::sink(),
    )
    .expect("write the practice files");
    assert_eq!(written.len(), 50);
    let run = |args: &[&str]| {
        grader()
            .arg("--kit")
            .arg(&out)
            .env("GRADER_WORK_DIR", dir.join("cache/work"))
            .args(args)
            .output()
            .expect("run the grader")
    };
    let output = run(&["check", "lab5", "--generated", "2", "--format", "json"]);
    let report = json(&output);
    let names: Vec<&str> = generated_results(&report)
        .iter()
        .map(|r| r["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["gen_1", "gen_2"], "{}", transcript(&output));
    let output = run(&["check", "lab5", "--scenario", "gen_51"]);
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the published ones are gen_1 to gen_50"),
        "{}",
        transcript(&output)
    );
}
