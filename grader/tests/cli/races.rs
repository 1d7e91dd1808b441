//! Race checks: a race the operating system's scheduler almost never shows loses points on
//! every run, told as an interleaving that `--schedule` replays exactly; correct designs
//! written differently keep full marks; code the explorer cannot run gets an error that
//! says where, never a pass.

use std::path::{Path, PathBuf};

use crate::util::{grader, kit, stdout, test_dir};

/// A submission folder (flat layout) at `dir`: the reference's files, changed by `change`.
fn submission(dir: &Path, change: impl FnOnce(&mut Vec<(String, String)>)) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create the submission folder");
    let mut files: Vec<(String, String)> = ["breaker.rs", "bulkhead.rs", "relay.rs"]
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(kit().join("solutions/lab4/src").join(f))
                .expect("read the reference");
            ((*f).to_owned(), text)
        })
        .collect();
    change(&mut files);
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).expect("write a file");
    }
    dir.to_path_buf()
}

/// The reference with a mutant's edits.
fn mutant(dir: &Path, name: &str) -> PathBuf {
    let path = kit().join("labs/lab4/mutants").join(format!("{name}.json"));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read the mutant"))
            .expect("the mutant is JSON");
    submission(dir, |files| {
        for edit in m["edits"].as_array().expect("edits") {
            let file = edit["file"]
                .as_str()
                .expect("file")
                .trim_start_matches("src/");
            let (_, text) = files
                .iter_mut()
                .find(|(n, _)| n == file)
                .expect("a file of the reference");
            let find = edit["find"].as_str().expect("find");
            assert_eq!(text.matches(find).count(), 1, "{find}");
            *text = text.replacen(find, edit["replace"].as_str().expect("replace"), 1);
        }
    })
}

/// The reference with some files replaced by those of `race_variants/<variant>`.
fn variant(dir: &Path, name: &str) -> PathBuf {
    let from = kit().join("grader/tests/cli/race_variants").join(name);
    submission(dir, |files| {
        for (file, text) in files.iter_mut() {
            if let Ok(own) = std::fs::read_to_string(from.join(&*file)) {
                *text = own;
            }
        }
    })
}

/// The report's block for one scenario, from its status line to the next scenario's.
fn block<'a>(report: &'a str, scenario: &str) -> &'a str {
    let start = report
        .find(&format!(" {scenario} "))
        .and_then(|i| report[..i].rfind('\n'))
        .expect("the scenario is in the report");
    let rest = &report[start + 1..];
    let end = rest[1..]
        .find("\n  PASS")
        .or_else(|| rest[1..].find("\n  FAIL"))
        .or_else(|| rest.find("\n\nTotal"))
        .map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

#[test]
fn a_trial_checked_then_marked_fails_every_run_with_its_interleaving_and_a_replay() {
    let dir = test_dir("races-trial");
    let sub = mutant(&dir.join("sub"), "trial_check_then_mark");
    let check = |extra: &[&str]| {
        let output = grader()
            .args(["check", "lab4", "--submission"])
            .arg(&sub)
            .args(["--scenario", "race_single_trial"])
            .args(extra)
            .assert()
            .code(1)
            .get_output()
            .clone();
        stdout(&output)
    };
    let first = check(&[]);
    let failed = block(&first, "race_single_trial").to_owned();
    assert!(
        failed.contains("2 calls reached core_banking while its breaker was HALF_OPEN"),
        "{first}"
    );
    // The same code explores the same schedules: the same verdict and story every run.
    assert_eq!(block(&check(&[]), "race_single_trial"), failed);
    // The replay command it prints runs exactly that schedule.
    let replay = failed
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: "))
        .expect("a replay command");
    let n = replay
        .strip_prefix("grader check lab4 --scenario race_single_trial --schedule ")
        .expect("a replay of this scenario");
    let replayed = check(&["--schedule", n]);
    let story = |text: &str| -> String {
        let b = block(text, "race_single_trial");
        let from = b.find("interleaving").expect("an interleaving");
        let to = b.find("replay:").expect("a replay line");
        b[from..to]
            .lines()
            .skip(1)
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(story(&replayed), story(&first));
    insta::assert_snapshot!("race_trial_story", story(&first));
}

#[test]
fn correct_designs_written_differently_keep_full_marks() {
    let dir = test_dir("races-correct");
    let subs = dir.join("subs");
    // The other correct designs are the lab's alternatives, which the audit grades.
    variant(&subs.join("oncelock_condvar"), "oncelock_condvar");
    let out = dir.join("out");
    grader()
        .args(["grade", "lab4"])
        .arg(&subs)
        .arg("--results-dir")
        .arg(&out)
        .assert()
        .code(0);
    let book: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("gradebook.json")).expect("the gradebook"),
    )
    .expect("the gradebook is JSON");
    let rows = book["submissions"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{book}");
    for row in rows {
        assert_eq!(row["score"], row["max_score"], "{row}");
    }
}

/// `scenario` of the lab on the submission `sub`, as JSON.
fn race_result(sub: &Path, scenario: &str) -> serde_json::Value {
    let output = grader()
        .args(["check", "lab4", "--format", "json", "--submission"])
        .arg(sub)
        .args(["--scenario", scenario])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON object on stdout");
    report["scenarios"][0].clone()
}

#[test]
fn code_the_explorer_cannot_run_is_an_error_that_says_where() {
    let dir = test_dir("races-unmapped");
    let cases = [
        (
            "static_counter",
            "race_single_trial",
            "bulkhead.rs:9: a `static` holding a `AtomicUsize` outlives each explored schedule",
        ),
        (
            "unmodelled",
            "race_single_trial",
            "cannot run this code: bulkhead.rs:22:24: the race checks do not model what this line uses from std",
        ),
        (
            "spinning_bulkhead",
            "race_bulkhead_limit",
            "scheduling steps without waiting: a busy loop the race checks cannot explore",
        ),
    ];
    for (name, scenario, says) in cases {
        let sub = variant(&dir.join(name), name);
        let r = race_result(&sub, scenario);
        assert_eq!(r["status"], "error", "{name}: {r}");
        assert_eq!(r["score"], 0, "{name}: {r}");
        let message = r["message"].as_str().expect("a message");
        assert!(message.contains(says), "{name}: {message}");
    }
}
