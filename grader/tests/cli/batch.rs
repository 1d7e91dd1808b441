//! `grader grade`: a folder of submissions, one of which hangs, one does not compile and
//! one cannot be graded, still gives a complete gradebook.

use serde::Deserialize;

use crate::subs::{self, Layout};
use crate::util::grader;

/// `gradebook.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Gradebook {
    schema_version: u32,
    lab: String,
    kit_version: String,
    scenarios: usize,
    scenarios_sha256: String,
    max_score: u32,
    sandbox: Option<String>,
    categories: Vec<Category>,
    scenario_columns: Vec<serde_json::Value>,
    submissions: Vec<Row>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Category {
    id: String,
    title: String,
    max_score: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Row {
    name: String,
    status: String,
    score: u32,
    max_score: u32,
    passed: usize,
    categories: std::collections::BTreeMap<String, u32>,
    failed: Vec<String>,
    compiled: Option<bool>,
    student_files_sha256: Option<String>,
    results_file: Option<String>,
    message: String,
    graded_at: String,
    kit_version: String,
    scenarios_sha256: String,
    statuses: std::collections::BTreeMap<String, String>,
    start_here: Option<serde_json::Value>,
    stopped_at: Option<String>,
    code_sha256: Option<String>,
    unchanged_skeleton: bool,
}

/// A CSV file as rows of fields; it starts with a byte-order mark.
fn csv(text: &str) -> Vec<Vec<String>> {
    let text = text
        .strip_prefix('\u{feff}')
        .expect("a byte-order mark, for spreadsheets");
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("a CSV record").iter().map(str::to_owned).collect())
        .collect()
}

#[test]
fn a_batch_with_a_hang_a_compile_error_and_a_missing_file_completes() {
    let root = subs::folder("batch");
    let dir = root.join("submissions");
    subs::write(
        &dir.join("reference"),
        Layout::Crate,
        &subs::reference_files(),
    );
    subs::write(
        &dir.join("mutant, shared breaker"),
        Layout::Flat,
        &subs::mutant("shared_breaker"),
    );
    let mut broken = subs::reference_files();
    broken[2].1.push_str("\nfn nope() { let x: u8 = \"x\"; }\n");
    subs::write(&dir.join("broken"), Layout::Kit, &broken);
    // Spins on every E902 answer: only the scenarios that send one hang.
    let mut hangs = subs::reference_files();
    subs::inject(
        &mut hangs,
        "src/breaker.rs",
        "pub fn counts_as_failure(",
        "if code == Code::E902 { loop { std::hint::spin_loop(); } }",
    );
    subs::write(&dir.join("hangs"), Layout::Crate, &hangs);
    subs::write(
        &dir.join("missing"),
        Layout::Crate,
        &subs::reference_files()[..2],
    );
    subs::write(&dir.join(".hidden"), Layout::Crate, &[]);
    std::fs::write(dir.join("notes.txt"), "not a submission").unwrap();

    let out = root.join("results");
    let output = grader()
        .args(["grade", "lab4"])
        .arg(&dir)
        .arg("--results-dir")
        .arg(&out)
        .args(["--format", "gradescope", "--timeout", "2"])
        .output()
        .expect("the grader runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "one submission could not be graded:\n{stderr}"
    );
    assert!(!stderr.contains('\r'), "no progress bar off a terminal");
    for i in 1..=5 {
        assert!(stderr.contains(&format!("[{i}/5] ")), "{stderr}");
    }

    let book: Gradebook =
        serde_json::from_str(&std::fs::read_to_string(out.join("gradebook.json")).unwrap())
            .expect("gradebook.json");
    assert_eq!(book.schema_version, 2);
    assert_eq!(book.lab, "lab4");
    assert_eq!(book.kit_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(book.scenarios_sha256.len(), 64);
    assert!(
        book.sandbox
            .as_deref()
            .is_some_and(|s| s.starts_with("bubblewrap")),
        "{:?}",
        book.sandbox
    );
    assert!(book.scenarios > 0);
    assert_eq!(
        book.max_score,
        book.categories.iter().map(|c| c.max_score).sum::<u32>()
    );
    let names: Vec<&str> = book.submissions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "broken",
            "hangs",
            "missing",
            "mutant, shared breaker",
            "reference"
        ]
    );
    let row = |name: &str| book.submissions.iter().find(|r| r.name == name).unwrap();
    let reference = row("reference");
    assert_eq!(
        (reference.status.as_str(), reference.score),
        ("graded", book.max_score)
    );
    assert_eq!(reference.passed, book.scenarios);
    assert_eq!(
        reference.categories.values().sum::<u32>(),
        reference.score,
        "per-category points add up"
    );
    assert_eq!(
        reference.student_files_sha256.as_deref(),
        Some(subs::listing_hash(&subs::reference_files()).as_str())
    );
    assert!(reference.failed.is_empty(), "{:?}", reference.failed);
    let mutant = row("mutant, shared breaker");
    assert_eq!(mutant.status, "graded");
    assert!(mutant.score < mutant.max_score);
    assert_eq!(mutant.failed.len(), book.scenarios - mutant.passed);
    assert!(
        mutant.failed.iter().any(|f| f == "iso_dead_core_banking"),
        "{:?}",
        mutant.failed
    );
    let broken = row("broken");
    assert_eq!(
        (broken.status.as_str(), broken.score, broken.compiled),
        ("graded", 0, Some(false))
    );
    let hangs = row("hangs");
    assert_eq!(hangs.status, "graded");
    assert!(
        hangs.score > 0 && hangs.score < hangs.max_score,
        "{hangs:?}"
    );
    let missing = row("missing");
    assert_eq!(missing.status, "could_not_grade");
    assert!(
        missing.message.contains("src/relay.rs"),
        "{}",
        missing.message
    );

    for r in &book.submissions {
        assert_eq!(r.kit_version, env!("CARGO_PKG_VERSION"), "{}", r.name);
        assert!(
            r.graded_at.ends_with('Z') && r.graded_at.len() == 20,
            "{r:?}"
        );
        let file = out.join(r.results_file.as_ref().expect("a results file"));
        let results: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(results["score"], f64::from(r.score), "{}", r.name);
        assert!(results["execution_time"].is_number());
    }
    // Each row holds its own submission's results: the scenarios each one fails are
    // those its mistake fails, so results swapped between submissions show here.
    let failed = |r: &Row| failed_scenarios(&out.join(r.results_file.as_ref().unwrap()));
    assert_eq!(failed(reference), Vec::<String>::new(), "reference");
    let caught_by = mutant_caught_by("shared_breaker");
    let mutant_failed = failed(mutant);
    assert!(
        caught_by.iter().all(|s| mutant_failed.contains(s)),
        "the shared-breaker mutant fails {caught_by:?}, but its row says {mutant_failed:?}"
    );
    let hangs_failed = failed(hangs);
    let answering_e902 = scenarios_answering("E902");
    assert!(
        !hangs_failed.is_empty() && hangs_failed.iter().all(|s| answering_e902.contains(s)),
        "the submission that spins on E902 fails only scenarios in which a target answers E902 \
         ({answering_e902:?}), but its row says {hangs_failed:?}"
    );
    for r in &book.submissions {
        if r.status == "graded" {
            assert_eq!(r.passed, book.scenarios - failed(r).len(), "{}", r.name);
        }
    }

    let hang_results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join(hangs.results_file.as_ref().unwrap())).unwrap(),
    )
    .unwrap();
    let stopped = hang_results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            let o = t["output"].as_str().unwrap();
            o.contains("TIMEOUT") || o.contains("still running inside the relay")
        })
        .count();
    assert!(stopped > 0, "the hanging scenarios say so: {hang_results}");

    let table = csv(&std::fs::read_to_string(out.join("gradebook.csv")).unwrap());
    assert_eq!(
        table[0][..5],
        ["submission", "status", "score", "max_score", "passed"]
    );
    assert_eq!(table.len(), 2 + book.submissions.len());
    let possible = &table[1];
    assert_eq!(possible[0], "Points Possible");
    assert_eq!(possible[2], book.max_score.to_string());
    assert_eq!(
        (possible[3].as_str(), possible[4].as_str()),
        ("", ""),
        "max_score and passed hold no points"
    );
    for c in &book.categories {
        let i = table[0]
            .iter()
            .position(|h| *h == c.title)
            .expect("a column per category, headed by its title");
        assert_eq!(possible[i], c.max_score.to_string(), "{}", c.id);
    }
    let hidden: Vec<&str> = book
        .scenario_columns
        .iter()
        .filter(|s| s["hidden"] == true)
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(!hidden.is_empty());
    let failed = table[0]
        .iter()
        .position(|h| h == "failed")
        .expect("a failed column");
    for (line, r) in table[2..].iter().zip(&book.submissions) {
        // The sheet names the visible scenarios that failed, and counts the hidden ones.
        let visible: Vec<&str> = r
            .failed
            .iter()
            .map(String::as_str)
            .filter(|f| !hidden.contains(f))
            .collect();
        assert_eq!(line[failed], visible.join(" "), "{}", r.name);
        assert_eq!(line.len(), table[0].len(), "{line:?}");
        assert_eq!(line[0], r.name);
        assert_eq!(line[1], r.status);
        // An ungraded submission's cells are blank, not zero.
        let graded = r.status == "graded";
        let score = if graded {
            r.score.to_string()
        } else {
            String::new()
        };
        assert_eq!(line[2], score, "{}", r.name);
        for c in &book.categories {
            let i = table[0].iter().position(|h| *h == c.title).unwrap();
            let points = r.categories.get(&c.id).filter(|_| graded);
            assert_eq!(
                line[i],
                points.map(u32::to_string).unwrap_or_default(),
                "{}",
                r.name
            );
        }
    }
    for hidden in &hidden {
        assert!(
            !table.iter().flatten().any(|cell| cell.contains(hidden)),
            "the sheet names no hidden scenario: {hidden}"
        );
    }
}

/// The names of the scenarios a Gradescope results file marks failed, sorted.
fn failed_scenarios(path: &std::path::Path) -> Vec<String> {
    let results = crate::formats::gradescope(path);
    let mut names: Vec<String> = results
        .tests
        .iter()
        .filter(|t| t.status != "passed")
        .map(|t| t.name.split(':').next().unwrap_or_default().to_owned())
        .collect();
    names.sort();
    names
}

/// The scenarios a mutant of the lab must fail, from its file.
fn mutant_caught_by(mutant: &str) -> Vec<String> {
    let path = crate::util::kit().join(format!("labs/lab4/mutants/{mutant}.json"));
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::from_value(file["caught_by"].clone()).unwrap()
}

/// The visible and hidden scenarios in which a target is scripted or released with
/// `code`, sorted.
fn scenarios_answering(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    // The generated scenarios graded in CI too, as the reference filled them in.
    let lab = grader::lab::Lab::load(&grader::labs::registered(), &crate::util::kit(), "lab4")
        .expect("lab4");
    let filled = grader::build::work_dir(&lab).join("generated/filled");
    let graded: Vec<String> = grader::generate::seeds::Seeds::of(&lab)
        .expect("seeds")
        .and_then(|s| s.graded)
        .into_iter()
        .flatten()
        .map(|seed| format!("{}.json", grader::generate::name(seed)))
        .collect();
    let generated = std::fs::read_dir(&filled)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| graded.iter().any(|g| e.file_name() == g.as_str()))
        .map(|e| e.path())
        .collect::<Vec<_>>();
    for dir in ["labs/lab4/scenarios", "labs/lab4/hidden"] {
        let files = std::fs::read_dir(crate::util::kit().join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .chain(if dir.ends_with("hidden") {
                generated.clone()
            } else {
                Vec::new()
            });
        for path in files {
            let file: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let answers = file["steps"].as_array().unwrap().iter().any(|step| {
                ["script", "release"]
                    .iter()
                    .any(|kind| step[kind]["answer"] == code)
            });
            if answers {
                names.push(file["name"].as_str().unwrap().to_owned());
            }
        }
    }
    names.sort();
    names
}

#[test]
fn an_empty_folder_is_a_usage_error() {
    let dir = subs::folder("batch_empty");
    grader()
        .args(["grade", "lab4"])
        .arg(&dir)
        .arg("--results-dir")
        .arg(dir.join("out"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no sub-folders"));
}

#[test]
fn a_batch_that_cannot_be_sandboxed_still_writes_its_gradebook() {
    let root = subs::folder("batch_no_sandbox");
    let dir = root.join("submissions");
    subs::write(&dir.join("one"), Layout::Flat, &subs::reference_files());
    subs::write(
        &dir.join("two"),
        Layout::Flat,
        &subs::mutant("opens_one_late"),
    );
    let out = root.join("results");
    let output = grader()
        .args(["grade", "lab4"])
        .arg(&dir)
        .arg("--results-dir")
        .arg(&out)
        .env("GRADER_BWRAP", "/nonexistent/bwrap")
        .env("GRADER_SANDBOX", "bubblewrap")
        .output()
        .expect("the grader runs");
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let book: Gradebook =
        serde_json::from_str(&std::fs::read_to_string(out.join("gradebook.json")).unwrap())
            .expect("gradebook.json");
    assert_eq!(book.submissions.len(), 2);
    for row in &book.submissions {
        assert_eq!(row.status, "error", "{row:?}");
        assert!(row.message.contains("cannot set up the sandbox"), "{row:?}");
        assert_eq!(row.max_score, book.max_score);
    }
    assert!(book.sandbox.is_none());
    let table = csv(&std::fs::read_to_string(out.join("gradebook.csv")).unwrap());
    // The header, the points possible, and the two submissions.
    assert_eq!(table.len(), 4, "{table:?}");
    assert_eq!(table[2][1], "error");
    assert_eq!(table[3][1], "error");
}
