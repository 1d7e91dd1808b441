//! The result formats other systems read: JUnit XML, read back with quick-junit's typed
//! reader, and Gradescope's `results.json`, read into structs that refuse unknown fields
//! and accept only the values Gradescope documents. Both carry the provenance, and the
//! same submission graded twice gives the same bytes but for timings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quick_junit::{NonSuccessKind, TestCaseStatus};
use serde::Deserialize;

use crate::subs::{self, Layout};
use crate::util::{grader, kit};

/// Gradescope's `results.json`, as specified; every field the grader may write. Fields
/// this test does not look at are still type-checked by being here.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
#[serde(deny_unknown_fields)]
pub struct Results {
    pub score: f64,
    pub execution_time: f64,
    pub output: String,
    pub output_format: Option<String>,
    pub test_output_format: Option<String>,
    pub test_name_format: Option<String>,
    pub visibility: Option<String>,
    pub stdout_visibility: Option<String>,
    pub extra_data: serde_json::Map<String, serde_json::Value>,
    pub tests: Vec<Test>,
    pub leaderboard: Option<Vec<serde_json::Value>>,
}

/// One Gradescope test.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub score: f64,
    pub max_score: f64,
    pub status: String,
    pub name: String,
    pub name_format: Option<String>,
    pub number: Option<String>,
    pub output: String,
    pub output_format: Option<String>,
    pub tags: Vec<String>,
    pub visibility: String,
    pub extra_data: Option<serde_json::Value>,
}

const VISIBILITIES: [&str; 4] = ["hidden", "after_due_date", "after_published", "visible"];
const TEXT_FORMATS: [&str; 5] = ["text", "html", "simple_format", "md", "ansi"];

/// Reads and checks a `results.json` against Gradescope's rules.
pub fn gradescope(path: &Path) -> Results {
    let text = std::fs::read_to_string(path).expect("a results.json");
    assert!(!text.contains('\r'), "Unix line endings");
    let r: Results = serde_json::from_str(&text).expect("results.json has Gradescope's shape");
    assert!(r.execution_time >= 0.0);
    for f in [&r.output_format, &r.test_output_format]
        .into_iter()
        .flatten()
    {
        assert!(TEXT_FORMATS.contains(&f.as_str()), "{f}");
    }
    for v in [&r.visibility, &r.stdout_visibility].into_iter().flatten() {
        assert!(VISIBILITIES.contains(&v.as_str()), "{v}");
    }
    let mut sum = 0.0;
    for t in &r.tests {
        assert!(["passed", "failed"].contains(&t.status.as_str()), "{t:?}");
        assert!(VISIBILITIES.contains(&t.visibility.as_str()), "{t:?}");
        assert!(t.score >= 0.0 && t.score <= t.max_score, "{t:?}");
        assert_eq!(t.status == "passed", t.score == t.max_score, "{t:?}");
        assert!(!t.name.is_empty() && !t.tags.is_empty());
        sum += t.score;
    }
    if !r.tests.is_empty() {
        assert_eq!(sum, r.score, "the total is the sum of the tests");
    }
    r
}

/// Grades `dir` in `format` into a file of `dir`, returning the file and the exit status.
fn graded(dir: &Path, format: &str, name: &str, extra: &[&str]) -> (PathBuf, Option<i32>) {
    let out = dir.join(name);
    let status = grader()
        .args(["check", "lab4", "--format", format, "--submission"])
        .arg(dir.join("submission"))
        .arg("-o")
        .arg(&out)
        .args(extra)
        .output()
        .expect("the grader runs")
        .status
        .code();
    (out, status)
}

/// The names of the lab's hidden scenarios, from their files.
fn hidden_scenarios() -> Vec<String> {
    let dir = kit().join("labs/lab4/hidden");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            let v: serde_json::Value = serde_json::from_str(&text).ok()?;
            v["name"].as_str().map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn junit_reads_back_as_one_suite_per_category_and_one_case_per_scenario() {
    let dir = subs::folder("junit_mutant");
    subs::write(
        &dir.join("submission"),
        Layout::Kit,
        &subs::mutant("opens_one_late"),
    );
    let (json, status) = graded(&dir, "json", "results.json", &[]);
    assert_eq!(status, Some(1));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let (xml, status) = graded(&dir, "junit", "results.xml", &[]);
    assert_eq!(status, Some(1));
    let junit = quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(&xml).unwrap())
        .expect("JUnit XML that quick-junit reads back");

    let categories: Vec<&str> = report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_object().unwrap()["id"].as_str().unwrap())
        .collect();
    let suites: Vec<&str> = junit.test_suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(suites, categories);
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(junit.tests, scenarios.len());
    let not_passed = |status: &str| scenarios.iter().filter(|s| s["status"] == status).count();
    assert_eq!(junit.failures, not_passed("failed"));
    assert_eq!(junit.errors, not_passed("error") + not_passed("timeout"));
    assert!(junit.failures > 0, "the mutant fails a scenario");

    for suite in &junit.test_suites {
        let props: BTreeMap<&str, &str> = suite
            .properties
            .iter()
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(props["reproduce"], "grader check lab4 --submission .");
        assert_eq!(props["kit_version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(
            props["student_files_sha256"],
            report["provenance"]["student_files_sha256"]
                .as_str()
                .unwrap()
        );
        assert_eq!(suite.tests, suite.test_cases.len());
        for case in &suite.test_cases {
            let scenario = scenarios
                .iter()
                .find(|s| s["name"] == case.name.as_str())
                .expect("a case per scenario");
            assert_eq!(scenario["category"], suite.name.as_str());
            assert_eq!(
                case.classname.as_ref().map(|c| c.as_str().to_owned()),
                Some(format!("lab4.{}", suite.name.as_str()))
            );
            let points: BTreeMap<&str, &str> = case
                .properties
                .iter()
                .map(|p| (p.name.as_str(), p.value.as_str()))
                .collect();
            assert_eq!(points["score"], scenario["score"].to_string());
            assert_eq!(points["max_score"], scenario["max_score"].to_string());
            match (&case.status, scenario["status"].as_str().unwrap()) {
                (TestCaseStatus::Success { .. }, "passed") => {}
                (
                    TestCaseStatus::NonSuccess {
                        kind: NonSuccessKind::Failure,
                        message,
                        description,
                        ..
                    },
                    "failed",
                ) => {
                    assert_eq!(
                        message.as_ref().map(|m| m.as_str()),
                        scenario["message"].as_str()
                    );
                    let text = description.as_ref().expect("failure text").as_str();
                    assert!(
                        text.contains("expected:") && text.contains("observed:"),
                        "{text}"
                    );
                    assert!(text.contains("timeline"), "{text}");
                    // A hint comes with a failure at the steps it is about; a failure
                    // while the scene is set shows what was observed, without one.
                    assert_eq!(
                        text.contains("hint:"),
                        scenario["hint"].is_string(),
                        "{text}"
                    );
                }
                (TestCaseStatus::NonSuccess { kind, .. }, "error" | "timeout") => {
                    assert_eq!(*kind, NonSuccessKind::Error);
                }
                (status, expected) => panic!("{}: {status:?} for {expected}", case.name.as_str()),
            }
        }
    }
}

#[test]
fn gradescope_results_have_gradescope_s_shape_and_the_provenance() {
    let dir = subs::folder("gradescope_mutant");
    subs::write(
        &dir.join("submission"),
        Layout::Flat,
        &subs::mutant("opens_one_late"),
    );
    let (path, status) = graded(&dir, "gradescope", "results.json", &[]);
    assert_eq!(status, Some(1));
    let r = gradescope(&path);
    assert!(r.score < r.tests.iter().map(|t| t.max_score).sum::<f64>());
    assert_eq!(r.extra_data["status"], "graded");
    let p = &r.extra_data["provenance"];
    assert_eq!(p["reproduce"], "grader check lab4 --submission .");
    assert_eq!(
        p["student_files_sha256"],
        subs::listing_hash(&subs::mutant("opens_one_late"))
    );
    assert!(r.output.contains("Provenance: grader "), "{}", r.output);
    // What students read names their own command, never the staff's.
    assert!(
        r.output
            .contains("run the visible scenarios on your machine with `grader check lab4`"),
        "{}",
        r.output
    );
    for text in std::iter::once(&r.output).chain(r.tests.iter().map(|t| &t.output)) {
        assert!(!text.contains("--submission"), "{text}");
    }
    let hidden = hidden_scenarios();
    if hidden.is_empty() {
        assert!(r.output.starts_with("**Total: "), "{}", r.output);
    } else {
        // Shown at once: no total that would give the hidden results away.
        assert!(!r.output.contains("Total"), "{}", r.output);
        assert!(r.output.contains("hidden scenario"), "{}", r.output);
    }
    // The generated scenarios graded in CI are hidden ones.
    let lab = grader::lab::Lab::load(&grader::labs::registered(), &kit(), "lab4").expect("lab4");
    let generated: Vec<String> = grader::generate::seeds::Seeds::of(&lab)
        .expect("seeds")
        .and_then(|s| s.graded)
        .into_iter()
        .flatten()
        .map(grader::generate::name)
        .collect();
    for t in &r.tests {
        let name = t.name.split(':').next().unwrap();
        let expected = if hidden.iter().chain(&generated).any(|h| h == name) {
            "after_published"
        } else {
            "visible"
        };
        assert_eq!(t.visibility, expected, "{}", t.name);
        assert!(t.number.is_some());
        if t.status == "failed" {
            assert!(t.output.contains("expected:"), "{}", t.output);
        }
    }
    let failed: Vec<&str> = r
        .tests
        .iter()
        .filter(|t| t.status == "failed")
        .map(|t| t.name.as_str())
        .collect();
    assert!(
        failed
            .iter()
            .any(|n| n.starts_with("sm_opens_at_threshold:")),
        "{failed:?}"
    );
}

#[test]
fn compile_errors_name_the_files_where_the_student_had_them() {
    // A folder of files, wrapped in a folder as an upload of a zipped folder is: the
    // compiler's messages point at lab4/bulkhead.rs, not at the kit's place for it.
    let dir = subs::folder("formats_compile_error_flat");
    let mut files = subs::reference_files();
    files[1].1.push_str("\nfn oops() -> u8 { 300 }\n");
    subs::write(&dir.join("submission/lab4"), Layout::Flat, &files);
    let (path, status) = graded(&dir, "gradescope", "results.json", &[]);
    assert_eq!(status, Some(1));
    let r = gradescope(&path);
    assert!(r.output.contains("does not compile"), "{}", r.output);
    assert!(r.output.contains(" lab4/bulkhead.rs:"), "{}", r.output);
    assert!(
        !r.output.contains("crates/relay_base/src/bulkhead.rs"),
        "{}",
        r.output
    );
}

#[test]
fn code_that_does_not_compile_in_every_format() {
    let dir = subs::folder("formats_compile_error");
    let mut files = subs::reference_files();
    files[1].1.push_str("\nfn oops() -> u8 { 300 }\n");
    subs::write(&dir.join("submission"), Layout::Kit, &files);
    let (path, status) = graded(&dir, "gradescope", "results.json", &[]);
    assert_eq!(status, Some(1));
    let r = gradescope(&path);
    assert_eq!(r.score, 0.0);
    assert!(r.output.contains("does not compile"), "{}", r.output);
    assert!(
        r.output.contains("crates/relay_base/src/bulkhead.rs:"),
        "{}",
        r.output
    );
    let (xml, _) = graded(&dir, "junit", "results.xml", &[]);
    let junit =
        quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(xml).unwrap()).unwrap();
    let build = junit
        .test_suites
        .iter()
        .find(|s| s.name.as_str() == "build")
        .expect("a build suite");
    match &build.test_cases[0].status {
        TestCaseStatus::NonSuccess {
            kind: NonSuccessKind::Error,
            description: Some(d),
            ..
        } => assert!(d.as_str().contains("bulkhead.rs:"), "{}", d.as_str()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_submission_that_cannot_be_graded_still_gets_a_file_in_every_format() {
    let dir = subs::folder("formats_missing");
    let files = subs::reference_files();
    subs::write(&dir.join("submission"), Layout::Flat, &files[1..]);
    let (path, status) = graded(&dir, "gradescope", "results.json", &[]);
    assert_eq!(status, Some(2));
    let r = gradescope(&path);
    assert_eq!(r.score, 0.0);
    assert_eq!(r.extra_data["status"], "could_not_grade");
    assert!(r.output.contains("breaker.rs"), "{}", r.output);

    let (xml, status) = graded(&dir, "junit", "results.xml", &[]);
    assert_eq!(status, Some(2));
    let junit =
        quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(xml).unwrap()).unwrap();
    assert_eq!(junit.test_suites.len(), 1);
    let suite = &junit.test_suites[0];
    assert_eq!(suite.name.as_str(), "submission");
    let broken: Vec<&str> = suite
        .test_cases
        .iter()
        .filter(|c| !matches!(c.status, TestCaseStatus::Success { .. }))
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(broken, ["src/breaker.rs"]);

    let (json, status) = graded(&dir, "json", "results.json", &[]);
    assert_eq!(status, Some(2));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(v["status"], "could_not_grade");
    assert_eq!(v["problems"].as_array().unwrap().len(), 1);
}

#[test]
fn the_same_submission_twice_gives_the_same_bytes_but_for_timings() {
    let dir = subs::folder("twice");
    subs::write(
        &dir.join("submission"),
        Layout::Crate,
        &subs::mutant("shared_bulkhead"),
    );
    let twice = |format: &str, file: &str| {
        let (a, _) = graded(&dir, format, &format!("a-{file}"), &[]);
        let (b, _) = graded(&dir, format, &format!("b-{file}"), &[]);
        (
            std::fs::read_to_string(a).unwrap(),
            std::fs::read_to_string(b).unwrap(),
        )
    };
    let (a, b) = twice("json", "report.json");
    assert_eq!(a, b);

    let (a, b) = twice("gradescope", "results.json");
    let untimed = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v.as_object_mut().unwrap().remove("execution_time");
        v
    };
    assert_eq!(untimed(&a), untimed(&b));
    let timing_lines = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("\"execution_time\""))
            .count()
    };
    assert_eq!(timing_lines(&a), timing_lines(&b));
    let without = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("\"execution_time\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        without(&a),
        without(&b),
        "byte for byte but the timing line"
    );

    let (a, b) = twice("junit", "results.xml");
    let untimed = |text: &str| {
        let mut r = quick_junit::Report::deserialize_from_str(text).unwrap();
        r.time = None;
        r.to_string().unwrap()
    };
    assert_eq!(untimed(&a), untimed(&b));
    let strip = |t: &str| {
        let start = t.find(" time=\"").expect("a time");
        let end = start + 7 + t[start + 7..].find('"').unwrap() + 1;
        format!("{}{}", &t[..start], &t[end..])
    };
    assert_eq!(strip(&a), strip(&b), "byte for byte but the time attribute");
}

#[test]
fn the_scenario_hash_is_recomputable_from_the_files() {
    let dir = subs::folder("scenario_hash");
    subs::write(
        &dir.join("submission"),
        Layout::Flat,
        &subs::reference_files(),
    );
    let (path, _) = graded(&dir, "json", "results.json", &[]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut listing = Vec::new();
    let mut visible = Vec::new();
    for folder in ["labs/lab4/scenarios", "labs/lab4/hidden"] {
        for entry in std::fs::read_dir(kit().join(folder))
            .into_iter()
            .flatten()
            .flatten()
        {
            let text = std::fs::read(entry.path()).unwrap();
            let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
            let line = format!(
                "{}  {}\n",
                subs::sha256(&text),
                json["name"].as_str().unwrap()
            );
            if folder.ends_with("scenarios") {
                visible.push((json["name"].as_str().unwrap().to_owned(), line.clone()));
            }
            listing.push((json["name"].as_str().unwrap().to_owned(), line));
        }
    }
    // The generated scenarios graded in CI, as the reference filled them in for this run.
    let lab = grader::lab::Lab::load(&grader::labs::registered(), &kit(), "lab4").expect("lab4");
    let filled = grader::build::work_dir(&lab).join("generated/filled");
    let graded = grader::generate::seeds::Seeds::of(&lab)
        .expect("seeds")
        .and_then(|s| s.graded)
        .into_iter()
        .flatten();
    for seed in graded {
        let name = grader::generate::name(seed);
        let text = std::fs::read(filled.join(format!("{name}.json"))).expect("a filled-in seed");
        let line = format!("{}  {name}\n", subs::sha256(&text));
        listing.push((name, line));
    }
    let hash = |mut lines: Vec<(String, String)>| {
        lines.sort();
        subs::sha256(
            lines
                .into_iter()
                .map(|(_, l)| l)
                .collect::<String>()
                .as_bytes(),
        )
    };
    let p = &v["provenance"];
    assert_eq!(p["scenarios"], listing.len());
    assert_eq!(p["scenarios_sha256"], hash(listing));
    assert_eq!(p["visible_scenarios_sha256"], hash(visible));
}

/// The JSON report's schema, published in `docs/report.schema.json`, is generated from
/// the report's types; it must be regenerated when they change.
#[test]
fn the_published_report_schema_matches_the_types() {
    let path = crate::util::kit().join("docs/report.schema.json");
    let fresh = grader::report::schema_text();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &fresh).expect("write the schema");
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == fresh,
        "{} is out of date with the report types in grader/src/report/mod.rs.\n\
         Regenerate it with:\n\n    UPDATE_SCHEMA=1 cargo test -p grader --test cli schema\n",
        path.display()
    );
    // Every field is documented: each property of each type has a description.
    let schema: serde_json::Value = serde_json::from_str(&fresh).expect("JSON");
    let mut undocumented = Vec::new();
    let mut types = vec![("Report".to_owned(), &schema)];
    if let Some(defs) = schema["$defs"].as_object() {
        types.extend(defs.iter().map(|(n, d)| (n.clone(), d)));
    }
    for (name, t) in types {
        for (field, p) in t["properties"].as_object().into_iter().flatten() {
            if p.get("description").is_none() {
                undocumented.push(format!("{name}.{field}"));
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "fields without a description: {undocumented:?}"
    );
}
