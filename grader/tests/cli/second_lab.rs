//! A second lab, plugged in through the registration point: proof that the grader's core
//! serves any lab, not only lab 4.
//!
//! "echo" is tiny: a student writes `echo(n)`, which must return `n`. Its plug-in (here)
//! has its own step kind (`say`), its own target settings (`times`: how often each `say`
//! calls `echo`), its own observation and words. Its harness crate, student crate and
//! reference are written into a kit of their own; the grader is run in this process with
//! a registry that knows only echo, and every command works on it: validate, check (the
//! reference, the skeleton, a submission), explain, list, audit (with a mutant and a
//! correct alternative), grade and release.

use std::path::{Path, PathBuf};

use clap::Parser;
use grader::lab::Registry;
use grader_lab::schema::{JsonSchema, TargetName};
use grader_lab::{Checker, Difference, Harness, Plugin, Snapshot, StepRecord, Words};
use serde::{Deserialize, Serialize};

use crate::util::{kit, test_dir};

/// The echo lab's plug-in.
struct Echo;

/// A target's settings: how many times each `say` calls `echo`.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Settings {
    /// Calls per `say` (1 or more).
    times: u32,
}

/// The echo lab's one step kind.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Step {
    /// Say a number to a target and check what comes back.
    Say(Say),
}

/// `{"say": {"target": "voice", "n": 3, "expect": 3}}`
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Say {
    /// Who says it.
    #[schemars(with = "TargetName")]
    target: String,
    /// The number.
    n: u32,
    /// What every call must answer.
    expect: Option<u32>,
}

/// What the harness does for a `say`.
#[derive(Serialize)]
struct Action {
    target: String,
    n: u32,
}

/// What the harness observed: calls made so far.
#[derive(Deserialize)]
struct Observation {
    calls: u64,
}

static WORDS: Words = Words {
    subject: "your echo",
    constructor: "echo",
    observers: "nothing",
    stuck_expected: "every call returns",
    parked: "answered",
    stuck_cause: "echo does not return",
    stuck_hint: "Return the number you were given.",
    initially: "nothing has been said",
    real_time_fix: grader_lab::READ_TIME_ONLY,
};

impl Plugin for Echo {
    type Settings = Settings;
    type Step = Step;
    type Action = Action;
    type Observation = Observation;

    fn name(&self) -> &'static str {
        "echo"
    }

    fn harness(&self) -> Harness {
        Harness {
            program: "main/src/main.rs",
            code_under_test: "echo_base",
            dependencies: &[("echo_harness", "echo_harness")],
            subject_dependencies: &[],
        }
    }

    fn words(&self) -> &Words {
        &WORDS
    }

    fn check_settings(&self, settings: &Settings) -> Vec<(&'static str, String)> {
        if settings.times == 0 {
            vec![("times", "times must be at least 1".to_owned())]
        } else {
            Vec::new()
        }
    }

    fn describe_settings(&self, settings: &Settings) -> String {
        format!("calls echo {} times per say", settings.times)
    }

    fn check_steps(&self, steps: &[&Step], checker: &mut Checker<'_>) {
        for (i, Step::Say(say)) in steps.iter().enumerate() {
            checker.target(i, &say.target);
        }
    }

    fn expects_something(&self, step: &Step) -> bool {
        let Step::Say(say) = step;
        say.expect.is_some()
    }

    fn action(&self, step: &Step) -> Action {
        let Step::Say(say) = step;
        Action {
            target: say.target.clone(),
            n: say.n,
        }
    }

    fn advances_clock(&self, _: &Step) -> u64 {
        0
    }

    fn simultaneous(&self, _: &Step) -> bool {
        false
    }

    fn judge(&self, step: &Step, record: &StepRecord<Observation>) -> Option<Difference> {
        let Step::Say(say) = step;
        let want = say.expect?.to_string();
        let got: Vec<&str> = record.requests.iter().map(|r| r.outcome.as_str()).collect();
        got.iter().any(|g| *g != want).then(|| Difference {
            expected: format!("every call answers {want}"),
            observed: got.join(", "),
        })
    }

    fn snapshot(&self, observation: &Observation) -> Snapshot {
        Snapshot {
            targets: vec![format!("calls={}", observation.calls)],
            records: Vec::new(),
        }
    }

    fn describe(&self, step: &Step) -> String {
        let Step::Say(say) = step;
        format!("say {} to {}", say.n, say.target)
    }

    fn expectation(&self, step: &Step) -> Option<String> {
        let Step::Say(say) = step;
        say.expect.map(|n| format!("every call answers {n}"))
    }
}

/// The echo lab's harness: the lab-neutral loop of `grader_harness`, driving `echo`.
const HARNESS_LIB: &str = r#"
use grader_harness::{Driver, Failure};
use grader_protocol::{Plan, RequestOutcome};
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};

#[derive(Deserialize)]
pub struct Settings { pub times: u32 }
#[derive(Deserialize)]
pub struct Action { pub target: String, pub n: u32 }
#[derive(Serialize)]
pub struct Observation { pub calls: u64 }

struct World { echo: fn(u32) -> u32, times: Vec<(String, u32)>, answers: Vec<String>, calls: u64, panicked: bool }

impl Driver for World {
    type Settings = Settings;
    type Action = Action;
    type Observation = Observation;
    fn now_ms(&self) -> u64 { 0 }
    fn act(&mut self, a: &Action) -> Result<Vec<u64>, Failure> {
        let times = self.times.iter().find(|t| t.0 == a.target).map(|t| t.1)
            .ok_or_else(|| Failure::BadPlan(format!("no target {}", a.target)))?;
        let mut ids = Vec::new();
        for _ in 0..times {
            self.calls += 1;
            let echo = self.echo;
            let n = a.n;
            let answer = match catch_unwind(AssertUnwindSafe(|| echo(n))) {
                Ok(v) => v.to_string(),
                Err(_) => { self.panicked = true; "panicked".to_owned() }
            };
            self.answers.push(answer);
            ids.push(self.answers.len() as u64);
        }
        Ok(ids)
    }
    fn outcomes(&self, ids: &[u64]) -> Vec<RequestOutcome> {
        ids.iter().map(|&id| RequestOutcome { id, outcome: self.answers[id as usize - 1].clone() }).collect()
    }
    fn observe(&self) -> Observation { Observation { calls: self.calls } }
    fn panicked(&self) -> bool { self.panicked }
}

pub fn main(echo: fn(u32) -> u32) -> ! {
    grader_harness::main("echo_harness", |plan: &Plan<Settings, Action>| World {
        echo,
        times: plan.targets.iter().map(|t| (t.name.clone(), t.settings.times)).collect(),
        answers: Vec::new(),
        calls: 0,
        panicked: false,
    }, |_| false)
}
"#;

/// Writes `text` to `path` unless it holds it already, so cargo sees no change.
fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("create a folder");
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::write(path, text).expect("write a file of the echo kit");
}

/// `[package]` of a crate of the echo kit.
fn package(name: &str, deps: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{deps}"
    )
}

/// The echo kit, written under the test's folder (its builds kept there between runs).
fn echo_kit() -> PathBuf {
    let root = test_dir("second-lab");
    let dir = root.join("cache/kit");
    let real = kit();
    let path = |p: &str| format!("{{ path = {:?} }}", real.join(p).display().to_string());
    put(
        &dir.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"echo_base\", \"echo_solution\", \"echo_harness\", \"echo_harness/main\"]\n",
    );
    put(
        &dir.join("Cargo.lock"),
        &std::fs::read_to_string(real.join("Cargo.lock")).expect("the kit's lock file"),
    );
    put(&dir.join("echo_base/Cargo.toml"), &package("echo_base", ""));
    put(
        &dir.join("echo_base/src/lib.rs"),
        "//! Echo: give the number back.\n\n/// `n`, unchanged.\npub fn echo(n: u32) -> u32 {\n    let _ = n;\n    todo!(\"return n\")\n}\n",
    );
    put(
        &dir.join("echo_solution/Cargo.toml"),
        &package("echo_solution", ""),
    );
    put(
        &dir.join("echo_solution/src/lib.rs"),
        "//! Echo, solved.\n\n/// `n`, unchanged.\npub fn echo(n: u32) -> u32 {\n    n\n}\n",
    );
    put(
        &dir.join("echo_harness/Cargo.toml"),
        &package(
            "echo_harness",
            &format!(
                "grader_harness = {}\ngrader_protocol = {}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n",
                path("grader/harness"),
                path("grader/protocol")
            ),
        ),
    );
    put(&dir.join("echo_harness/src/lib.rs"), HARNESS_LIB);
    put(
        &dir.join("echo_harness/main/Cargo.toml"),
        &package(
            "echo_harness_main",
            "echo_base = { path = \"../../echo_base\" }\necho_harness = { path = \"..\" }\n",
        ),
    );
    put(
        &dir.join("echo_harness/main/src/main.rs"),
        "fn main() {\n    echo_harness::main(echo_base::echo)\n}\n",
    );
    put(
        &dir.join("labs/echo/lab.json"),
        r#"{
  "format_version": 1,
  "name": "echo",
  "title": "Say it back",
  "student_crate": "echo_base",
  "student_package": "echo_base",
  "student_files": ["src/lib.rs"],
  "solution_crate": "echo_solution",
  "solution_package": "echo_solution",
  "harness": "echo_harness",
  "total_points": 3,
  "categories": [{"id": "echo", "title": "Echo", "checks": "The number comes back."}],
  "targets": [{"name": "voice", "times": 1}],
  "limits": {"timeout_ms": 5000, "stuck_after_ms": 2000}
}
"#,
    );
    put(
        &dir.join("labs/echo/scenarios/say_back.json"),
        r#"{"format_version": 1, "name": "say_back", "title": "Three comes back as three", "category": "echo", "points": 1, "hint": "Return n.", "steps": [{"say": {"target": "voice", "n": 3, "expect": 3}}]}"#,
    );
    put(
        &dir.join("labs/echo/scenarios/say_twice.json"),
        r#"{"format_version": 1, "name": "say_twice", "title": "Every call comes back", "category": "echo", "points": 2, "hint": "Return n every time.", "targets": {"voice": {"times": 2}}, "steps": [{"say": {"target": "voice", "n": 5, "expect": 5}}]}"#,
    );
    put(
        &dir.join("labs/echo/mutants/one_more.json"),
        r#"{"format_version": 1, "name": "one_more", "title": "Says one more", "mistake": "Adds one to the number.", "caught_by": ["say_back", "say_twice"], "edits": [{"file": "src/lib.rs", "find": "    n\n", "replace": "    n + 1\n"}]}"#,
    );
    put(
        &dir.join("labs/echo/alternatives/counted/alternative.json"),
        r#"{"format_version": 1, "name": "counted", "title": "Counts up to it", "design": "Counts the numbers below n instead of returning it."}"#,
    );
    put(
        &dir.join("labs/echo/alternatives/counted/src/lib.rs"),
        "//! Echo, by counting.\n\n/// `n`, unchanged.\npub fn echo(n: u32) -> u32 {\n    (0..n).fold(0, |sum, _| sum + 1)\n}\n",
    );
    put(&dir.join("README.md"), "# The echo kit\n");
    dir
}

/// Runs the grader in this process with only the echo lab registered: exit status,
/// standard output, standard error.
fn grade(args: &[&str]) -> (u8, String, String) {
    let kit = echo_kit();
    let mut argv = vec!["grader", "--color", "never", "--kit"];
    let kit = kit.display().to_string();
    argv.push(&kit);
    argv.extend(args);
    let cli = grader::Cli::parse_from(argv);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = grader::run_with(Registry::new().with(Echo), cli, &mut out, &mut err);
    (
        status,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[test]
fn a_second_lab_with_its_own_step_kind_is_graded_end_to_end() {
    let (status, out, err) = grade(&["validate", "echo"]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(
        out.contains(
            "echo: 2 scenarios (2 visible, 0 hidden), 3 points, 1 mutant, 1 alternative: all valid"
        ),
        "{out}"
    );

    let (status, out, err) = grade(&["check", "echo", "--solution"]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(
        out.contains("Total: 3/3 points, 2 of 2 scenarios passed"),
        "{out}"
    );

    let (status, out, err) = grade(&["check", "echo", "--format", "json"]);
    assert_eq!(status, 1, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(report["score"], 0, "{report:#}");
    let stopped = report["scenarios"][0]["stopped_at"].as_str().unwrap_or("");
    assert!(
        stopped.contains("echo_base/src/lib.rs") && stopped.contains("return n"),
        "{report:#}"
    );

    let (status, out, _) = grade(&["explain", "echo", "say_twice"]);
    assert_eq!(status, 0);
    assert!(out.contains("voice: calls echo 2 times per say"), "{out}");
    assert!(out.contains("say 5 to voice"), "{out}");

    let (status, out, _) = grade(&["list"]);
    assert_eq!(status, 0);
    assert!(
        out.lines()
            .any(|l| l.starts_with("echo ") && l.contains("Say it back")),
        "{out}"
    );

    let (status, out, err) = grade(&["audit", "echo", "--runs", "1"]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(out.contains("one_more"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("a. counted") && l.contains("passes  2 of 2")),
        "{out}"
    );
    assert!(out.contains("Audit passed"), "{out}");
    // Both scenarios catch the one mutant: the whole audit says the second adds nothing.
    assert!(
        out.contains("  - say_twice catches exactly what say_back catches (1 mutant: one_more)\n"),
        "{out}"
    );

    // A submission, alone and in a batch: the reference's file, flat.
    let root = test_dir("second-lab-submissions");
    let alice = root.join("submissions/alice");
    std::fs::create_dir_all(&alice).expect("create a submission");
    std::fs::copy(
        echo_kit().join("echo_solution/src/lib.rs"),
        alice.join("lib.rs"),
    )
    .expect("copy the reference");
    let (status, out, err) = grade(&[
        "check",
        "echo",
        "--format",
        "junit",
        "--submission",
        &alice.display().to_string(),
    ]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(out.contains("say_twice"), "{out}");
    let results = root.join("results");
    let (status, out, err) = grade(&[
        "grade",
        "echo",
        &root.join("submissions").display().to_string(),
        "--results-dir",
        &results.display().to_string(),
    ]);
    assert_eq!(status, 0, "{out}{err}");
    let book = std::fs::read_to_string(results.join("gradebook.json")).expect("a gradebook");
    assert!(book.contains("\"score\": 3"), "{book}");

    let edition = root.join("edition");
    let (status, out, err) = grade(&["release", "echo", "--out", &edition.display().to_string()]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(edition.join("labs/echo/scenarios/say_back.json").is_file());
    assert!(edition.join("echo_base/src/lib.rs").is_file());
    assert!(!edition.join("echo_solution").exists());
    assert!(!edition.join("labs/echo/mutants").exists());
    assert!(!edition.join("labs/echo/alternatives").exists());
}

#[test]
fn the_second_labs_words_are_checked_with_its_own_vocabulary() {
    let kit = echo_kit();
    let draft = kit.join("labs/echo/drafts/wrong.json");
    put(
        &draft,
        r#"{"format_version": 1, "name": "wrong", "title": "x", "category": "echo", "points": 1, "hint": "x",
  "steps": [{"shout": {"n": 1}}]}"#,
    );
    let (status, _, err) = grade(&["validate", &draft.display().to_string()]);
    assert_eq!(status, 2, "{err}");
    assert!(
        err.contains("unknown step `shout`\n  help: use one of: `say`"),
        "{err}"
    );

    put(
        &draft,
        r#"{"format_version": 1, "name": "wrong", "title": "x", "category": "echo", "points": 1, "hint": "x",
  "targets": {"voice": {"times": 0, "loud": true}},
  "steps": [{"say": {"target": "vocie", "n": 1, "expect": 1}}]}"#,
    );
    let (status, _, err) = grade(&["validate", &draft.display().to_string()]);
    assert_eq!(status, 2, "{err}");
    assert!(
        err.contains("unknown field `loud`, expected `times`"),
        "{err}"
    );
    assert!(
        err.contains("unknown target `vocie`\n  help: did you mean `voice`?"),
        "{err}"
    );

    put(
        &draft,
        r#"{"format_version": 1, "name": "wrong", "title": "x", "category": "echo", "points": 1, "hint": "x",
  "targets": {"voice": {"times": 0}},
  "steps": [{"say": {"target": "voice", "n": 1, "expect": 1}}]}"#,
    );
    let (status, _, err) = grade(&["validate", &draft.display().to_string()]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains(":2:25: times must be at least 1"), "{err}");
    std::fs::remove_file(&draft).expect("remove the draft");

    let schema = grader::scenario::schema::for_lab(
        &grader::lab::Lab::load(&Registry::new().with(Echo), &kit, "echo").expect("echo loads"),
    );
    assert_eq!(
        schema["$defs"]["TargetName"]["enum"],
        serde_json::json!(["voice"])
    );
    assert!(
        schema["$defs"]["Step"].to_string().contains("\"say\""),
        "{schema:#}"
    );
    assert!(
        schema["$defs"]["TargetOverride"]["properties"]["times"].is_object(),
        "{schema:#}"
    );
}
