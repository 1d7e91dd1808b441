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
pub mod provenance;
pub mod rejected;

use serde::Serialize;

/// Version of the JSON report; bumped when a field changes meaning or disappears.
pub const SCHEMA_VERSION: u32 = 1;

/// How one scenario ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The lab (`lab4`).
    pub lab: String,
    /// What was graded (`crates/relay_base`).
    pub subject: String,
    /// Points earned.
    pub score: u32,
    /// Points available in the scenarios that ran.
    pub max_score: u32,
    /// Per rubric category, in the lab's order; categories without scenarios are left out.
    pub categories: Vec<CategoryScore>,
    /// Per scenario, in the lab's category order, then by file name.
    pub scenarios: Vec<ScenarioResult>,
    /// Hidden scenarios that exist but were not run here.
    pub hidden_not_run: usize,
    /// Points of the hidden scenarios that were not run here.
    #[serde(skip_serializing_if = "is_zero")]
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
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
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
}

/// One explored schedule of a race check, as a report tells it.
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
pub struct TimelineEntry {
    /// The step, counted from 1.
    pub step: usize,
    /// Fake-clock time, `HH:MM:SS.mmm`.
    pub at: String,
    /// What the step did.
    pub action: String,
    /// What came back (codes, or nothing).
    pub result: String,
    /// Each target after the step: `core_banking OPEN calls=3 in_flight=0`.
    pub targets: Vec<String>,
    /// Transition records written during this step.
    pub transitions: Vec<String>,
    /// Whether this is the step where the scenario failed.
    pub failed_here: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
