//! The scenario file format, as instructors write it.
//!
//! These are the only types read from scenario files. Every struct refuses unknown
//! fields, so a misspelt key is an error with its line and column, not a silently
//! ignored expectation. Steps are externally tagged (`{"advance": {"ms": 500}}`) so that
//! serde reports errors at the offending key.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The scenario format version this grader reads.
pub const SCENARIO_FORMAT_VERSION: u32 = 1;

/// One scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile<'a> {
    /// Must be 1.
    pub format_version: u32,
    /// A short unique identifier: lowercase letters, digits and `_`.
    pub name: String,
    /// One sentence saying what the scenario shows.
    pub title: String,
    /// The rubric category it scores (see the lab's `lab.json`).
    pub category: String,
    /// Points for passing it (all or nothing).
    pub points: u32,
    /// `visible` (students run it) or `hidden` (only CI grading runs it).
    #[serde(default)]
    pub visibility: Visibility,
    /// Marks a scenario that no known buggy solution is expected to fail.
    #[serde(default)]
    pub smoke: bool,
    /// What it does and why, in plain words, for `grader explain`.
    #[serde(default)]
    pub description: String,
    /// Shown to a student whose code fails it: the mistake it usually catches.
    pub hint: String,
    /// Settings that differ from the lab's defaults, per target.
    #[serde(default)]
    pub targets: BTreeMap<String, TargetOverride>,
    /// What to do and what to expect, in order.
    #[serde(borrow)]
    pub steps: Vec<&'a serde_json::value::RawValue>,
}

/// Whether students can run a scenario themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Shipped to students and run by `grader check`.
    #[default]
    Visible,
    /// Run only when grading submissions.
    Hidden,
}

/// Per-target settings for one scenario; missing fields keep the lab's values.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetOverride {
    /// Counted failures in a row that open the circuit.
    pub failure_threshold: Option<u32>,
    /// Milliseconds the circuit stays open before a trial.
    pub retry_after_ms: Option<u64>,
    /// The bulkhead's limit.
    pub max_concurrent: Option<u64>,
}

/// One step of a scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Tell a target how to answer from now on.
    Script(ScriptStep),
    /// Send requests one after the other.
    Send(SendStep),
    /// Send requests all at the same moment.
    SendConcurrent(SendConcurrentStep),
    /// Let held calls finish with an answer.
    Release(ReleaseStep),
    /// Move the fake clock forward.
    Advance(AdvanceStep),
    /// Check the state of a target and its breaker.
    Expect(ExpectStep),
    /// Check the whole list of transition records so far.
    ExpectTransitions(Vec<String>),
}

/// `{"script": {"target": "core_banking", "answer": "E500"}}`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    /// The target.
    pub target: String,
    /// `OK`, `B201`, `E500`, `E901`, `E902`, `hold` or `panic`.
    pub answer: String,
}

/// `{"send": {"target": "core_banking", "count": 3, "expect": "E500"}}`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendStep {
    /// The target.
    pub target: String,
    /// How many requests, one after the other (default 1).
    pub count: Option<u32>,
    /// The code every one of them must end with (`held` for one waiting in the target).
    pub expect: Option<String>,
    /// The code each must end with, in order; its length must equal `count`.
    pub expect_each: Option<Vec<String>>,
}

/// `{"send_concurrent": {"target": "core_banking", "count": 5, "expect": {"held": 3, "E905": 2}}}`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendConcurrentStep {
    /// The target.
    pub target: String,
    /// How many requests at once.
    pub count: u32,
    /// How many must end with each code (`held`: waiting in the target); adds up to `count`.
    pub expect: Option<BTreeMap<String, u32>>,
}

/// `{"release": {"target": "core_banking", "count": 1, "answer": "E500", "expect": "E500"}}`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseStep {
    /// The target whose held calls to release.
    pub target: String,
    /// How many, oldest first; all of them when left out.
    pub count: Option<u32>,
    /// What the released calls answer: `OK`, `B201`, `E500`, `E901` or `E902`.
    pub answer: String,
    /// The code every released request must end with, as the caller sees it.
    pub expect: Option<String>,
}

/// `{"advance": {"ms": 30000}}`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdvanceStep {
    /// Milliseconds of fake time.
    pub ms: u64,
}

/// `{"expect": {"target": "core_banking", "state": "OPEN", "calls": 3}}`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectStep {
    /// The target.
    pub target: String,
    /// Breaker state: `CLOSED`, `OPEN` or `HALF_OPEN`.
    pub state: Option<String>,
    /// Calls that reached the target so far.
    pub calls: Option<u64>,
    /// Calls in progress at the target now.
    pub in_flight: Option<u64>,
    /// The most calls ever in progress at the target at once.
    pub peak: Option<u64>,
    /// Calls the target finished so far, per code it answered (codes left out: any count).
    pub answered: Option<BTreeMap<String, u64>>,
}
