//! The graded result, and the formats it is written in.
//!
//! [`Report`] is the one model; [`human`] and [`json`] are views of it. Nothing here
//! holds a wall-clock time, so grading the same code twice gives the same report.

pub mod clip;
pub mod gradescope;
pub mod human;
pub mod json;
pub mod junit;
pub mod plain;
pub mod prairielearn;
pub mod provenance;
pub mod rejected;

use serde::Serialize;

/// Version of the JSON report; bumped when a field changes meaning or disappears.
pub const SCHEMA_VERSION: u32 = 2;

/// How one scenario ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every expectation held.
    Passed,
    /// An expectation did not hold, or requests got stuck in the code under test.
    Failed,
    /// The code under test panicked, crashed, or did not compile.
    Error,
    /// The scenario's process ran out of wall-clock time and was killed.
    Timeout,
}

impl Status {
    /// The status as one word.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Error => "error",
            Status::Timeout => "timeout",
        }
    }
}

/// The result of grading one crate against a lab's scenarios.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The lab (`lab4`).
    pub lab: String,
    /// What was graded (the student crate's folder, say).
    pub subject: String,
    /// Points earned.
    pub score: u32,
    /// Points available in the scenarios that ran.
    pub max_score: u32,
    /// Per rubric category, in the lab's order; categories without scenarios are left out.
    pub categories: Vec<CategoryScore>,
    /// Per scenario, in the lab's category order, then by file name.
    pub scenarios: Vec<ScenarioResult>,
    /// Where to start when scenarios failed at a step: see [`Lead`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_here: Option<Lead>,
    /// Hidden scenarios that exist but were not run here: 0 when they all ran
    /// (`--submission`), `null` where their files are not shipped (the student edition),
    /// so their number is not known; their points are.
    pub hidden_not_run: Option<usize>,
    /// Points of the hidden scenarios that were not run here (from the lab's
    /// `total_points`): 0 when they all ran.
    pub hidden_points_not_run: u32,
    /// The compiler's diagnostics when the code under test does not compile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compile_errors: Option<String>,
    /// Places in the graded files that break a rule no scenario can see reliably, such
    /// as reading the real clock.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source_warnings: Vec<SourceWarning>,
    /// Where the result comes from: grader version, hashes of the scenarios and of the
    /// graded files, and the command that reproduces it. Set when grading a submission
    /// and in the JUnit and Gradescope formats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::report::provenance::Provenance>,
}

/// A line of the graded code that breaks a lab rule.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SourceWarning {
    /// `file:line`, as people see it.
    pub location: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl Report {
    /// Whether every scenario passed.
    pub fn all_passed(&self) -> bool {
        self.compile_errors.is_none() && self.scenarios.iter().all(|s| s.status == Status::Passed)
    }
}

/// Points in one rubric category.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CategoryScore {
    /// Category id.
    pub id: String,
    /// Category title.
    pub title: String,
    /// Points earned.
    pub score: u32,
    /// Points available.
    pub max_score: u32,
}

/// The result of one scenario.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ScenarioResult {
    /// Scenario name.
    pub name: String,
    /// Scenario title.
    pub title: String,
    /// Rubric category id.
    pub category: String,
    /// How it ended.
    pub status: Status,
    /// Points earned (all or nothing).
    pub score: u32,
    /// Points available.
    pub max_score: u32,
    /// One line: why it did not pass, or `passed`.
    pub message: String,
    /// Where it went wrong, for failures that happened at a step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// For a scenario that did not pass: each target whose settings it changes from the
    /// lab's defaults, in words (`core_banking: opens after 10 failures in a row, ...`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<String>,
    /// The scenario's hint, for scenarios that did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// What happened at each step that ran, for scenarios that did not pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineEntry>,
    /// The backtrace of a panic, when one was asked for (`-v`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backtrace: Option<String>,
    /// For a panic in the code under test: where (`file:line:column`) and its message.
    /// Scenarios stopped by the same `todo!()` share it, so a report can group them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<String>,
    /// For a race check that did not pass: the schedule it failed on, told in words, and
    /// the command that replays it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interleaving: Option<Interleaving>,
    /// Whether requests got stuck inside the code under test (the failure's `observed`
    /// says so in words).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stuck: bool,
    /// For a failure at a step: the lab's rule it shows broken (the rule of the step that
    /// failed, by what was seen there), whose hint `hint` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef>,
    /// For a failure that most likely comes from the mistake "Start here" names, though
    /// this scenario is about another rule: where Start here points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub likely_cause: Option<Cause>,
    /// What the failure may show broken, for Start here to weigh (`judge::rules`).
    #[serde(skip)]
    pub pointers: Vec<Pointer>,
    /// Whether `rule` is another rule than the one the scenario is about (the step that
    /// failed checks something the scenario only relies on).
    #[serde(skip)]
    pub other_rule: bool,
}

/// A rule of the lab, as a report names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RuleRef {
    /// Its id in the lab's `rules.json`.
    pub id: String,
    /// The rule in one sentence.
    pub rule: String,
}

/// Where the failure that most likely caused another one is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Cause {
    /// The scenario "Start here" names.
    pub scenario: String,
    /// Its step where the difference shows, counted from 1.
    pub step: usize,
}

/// Something a failure may show broken: a rule of the lab, or, for a failure no rule
/// explains, what differed there (failures alike are counted together).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pointer {
    /// A rule of the lab. `named` when the scenario itself says the step checks it (its
    /// `rule` or `checks`); otherwise only a sign of the rule matched.
    Rule {
        /// Its id.
        id: String,
        /// Named by the scenario for that step.
        named: bool,
    },
    /// What differed, with target names and counts left out.
    Symptom(String),
}

/// How one request ended, as far as a step is concerned.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The request's id, counted from 1 in the order requests were sent.
    pub id: u64,
    /// How it ended in the lab's words (a code such as `E904`), `held` while it waits
    /// inside a target, or `panicked`.
    pub outcome: String,
}

/// The JSON Schema of the JSON report (`docs/report.schema.json`), as pretty JSON.
pub fn schema_text() -> String {
    let schema = schemars::schema_for!(Report);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Where to start: what most failures at a step have in common, in the simplest
/// scenario that shows it (see `judge::lead`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Lead {
    /// The scenario to look at first.
    pub scenario: String,
    /// Its step where the difference shows, counted from 1.
    pub step: usize,
    /// Fake-clock time of that step, `HH:MM:SS.mmm`.
    pub at: String,
    /// Each target whose settings the scenario changes from the lab's defaults, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<String>,
    /// What that step did, in words.
    pub action: String,
    /// What the scenario expected there.
    pub expected: String,
    /// What happened instead.
    pub observed: String,
    /// How many failing scenarios point at the same rule (or, where no rule explains
    /// them, fail the same way: the same unexpected answer at a step), this one included.
    pub shared_by: usize,
    /// The hint for it, unless hints are left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The rule most failures point at, shown broken at this step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef>,
}

/// One explored schedule of a race check, as a report tells it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Interleaving {
    /// Its number: the same code explores the same schedules in the same order.
    pub schedule: u64,
    /// How many schedules were explored, this one included.
    pub explored: u64,
    /// What the threads did, in the order they did it, one line per move.
    pub lines: Vec<String>,
    /// The command that runs exactly this schedule again.
    pub replay: String,
}

/// The first place where observed and expected differ.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Failure {
    /// The step, counted from 1.
    pub step: usize,
    /// Fake-clock time of the step, `HH:MM:SS.mmm`.
    pub at: String,
    /// What the step did, in words.
    pub action: String,
    /// What the scenario expected.
    pub expected: String,
    /// What happened instead.
    pub observed: String,
}

/// One step of a run, as the timeline of a report shows it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TimelineEntry {
    /// The step, counted from 1.
    pub step: usize,
    /// Fake-clock time, `HH:MM:SS.mmm`.
    pub at: String,
    /// What the step did.
    pub action: String,
    /// What came back (codes, or nothing), in words.
    pub result: String,
    /// Each target after the step in words (`core_banking OPEN calls=3 in_flight=0`),
    /// for the human report; the JSON report carries `observation` instead.
    #[serde(skip)]
    pub targets: Vec<String>,
    /// The fake-clock milliseconds of the step.
    pub at_ms: Option<u64>,
    /// How each request the step concerns ended, by request id (`held` for one still
    /// inside a target); empty for steps that send or release nothing.
    /// Requests sent one after the other only: those sent at the same moment are in
    /// `tally`, since which of them got which answer depends on thread timing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<Outcome>,
    /// For requests sent at the same moment: how many ended each way.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tally: std::collections::BTreeMap<String, u32>,
    /// What the lab's harness observed after the step, as data in the lab's own shape
    /// (lab 4: `targets[]` with `name`, `state`, `calls`, `in_flight`, `peak`,
    /// `answered`, and every `transitions` record so far); absent for a step that did
    /// not finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<serde_json::Value>,
    /// Transition records written during this step.
    pub transitions: Vec<String>,
    /// Whether this is the step where the scenario failed.
    pub failed_here: bool,
}
