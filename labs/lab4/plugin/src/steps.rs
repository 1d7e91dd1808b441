//! Lab 4's scenario steps, as instructors write them.
//!
//! Every struct refuses unknown fields, so a misspelt key is an error with its line and
//! column, not a silently ignored expectation. Steps are externally tagged
//! (`{"advance": {"ms": 500}}`) so that serde reports errors at the offending key.
//!
//! The same types generate the steps' part of the lab's JSON Schema. Fields held as plain
//! strings, so that the validator can suggest the closest correct word, carry a
//! `schemars(with = ...)` naming the word list the schema offers instead.

use std::borrow::Cow;
use std::collections::BTreeMap;

use grader_lab::limits::{MAX_CONCURRENT_REQUESTS, MAX_REQUESTS};
use grader_lab::schema::TargetName;
use grader_lab::steps::AdvanceStep;
use grader_lab::word_list;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

/// Answers a target can be scripted with.
pub const SCRIPT_ANSWERS: [&str; 7] = ["OK", "B201", "E500", "E901", "E902", "hold", "panic"];
/// Answers a held call can be released with.
pub const RELEASE_ANSWERS: [&str; 5] = ["OK", "B201", "E500", "E901", "E902"];
/// Outcomes a request can be expected to end with.
pub const OUTCOMES: [&str; 8] = ["OK", "B201", "E500", "E901", "E902", "E904", "E905", "held"];
/// Codes a target can answer with.
pub const ANSWER_CODES: [&str; 5] = ["OK", "B201", "E500", "E901", "E902"];
/// Breaker states.
pub use grader_lab::records::STATES;

/// One step of a scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
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
    ExpectTransitions(#[schemars(with = "Vec<TransitionLine>")] Vec<String>),
}

/// `{"script": {"target": "core_banking", "answer": "E500"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    /// The target.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// `OK`, `B201`, `E500`, `E901`, `E902`, `hold` or `panic`.
    #[schemars(with = "ScriptAnswer")]
    pub answer: String,
}

/// `{"send": {"target": "core_banking", "count": 3, "expect": "E500"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendStep {
    /// The target.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// How many requests, one after the other (default 1; at most 1000).
    #[schemars(range(min = 1, max = MAX_REQUESTS))]
    pub count: Option<u32>,
    /// The code every one of them must end with (`held` for one waiting in the target).
    #[schemars(with = "Option<Outcome>")]
    pub expect: Option<String>,
    /// The code each must end with, in order; its length must equal `count`.
    #[schemars(with = "Option<Vec<Outcome>>")]
    pub expect_each: Option<Vec<String>>,
}

/// `{"send_concurrent": {"target": "core_banking", "count": 5, "expect": {"held": 3, "E905": 2}}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendConcurrentStep {
    /// The target.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// How many requests at once (at most 100: each is a thread).
    #[schemars(range(min = 1, max = MAX_CONCURRENT_REQUESTS))]
    pub count: u32,
    /// How many must end with each code (`held`: waiting in the target); adds up to `count`.
    #[schemars(with = "Option<BTreeMap<Outcome, u32>>")]
    pub expect: Option<BTreeMap<String, u32>>,
}

/// `{"release": {"target": "core_banking", "count": 1, "answer": "E500", "expect": "E500"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseStep {
    /// The target whose held calls to release.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// How many, oldest first; all of them when left out (at most 1000).
    #[schemars(range(min = 1, max = MAX_REQUESTS))]
    pub count: Option<u32>,
    /// What the released calls answer: `OK`, `B201`, `E500`, `E901` or `E902`.
    #[schemars(with = "ReleaseAnswer")]
    pub answer: String,
    /// The code every released request must end with, as the caller sees it.
    #[schemars(with = "Option<Outcome>")]
    pub expect: Option<String>,
}

/// `{"expect": {"target": "core_banking", "state": "OPEN", "calls": 3}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectStep {
    /// The target.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// Breaker state: `CLOSED`, `OPEN` or `HALF_OPEN`.
    #[schemars(with = "Option<BreakerState>")]
    pub state: Option<String>,
    /// Calls that reached the target so far.
    pub calls: Option<u64>,
    /// Calls in progress at the target now.
    pub in_flight: Option<u64>,
    /// The most calls ever in progress at the target at once.
    pub peak: Option<u64>,
    /// Calls the target finished so far, per code it answered (codes left out: any count).
    #[schemars(with = "Option<BTreeMap<AnswerCode, u64>>")]
    pub answered: Option<BTreeMap<String, u64>>,
}

word_list! {
    /// What a target answers from now on: a code, `hold` (keep each call waiting until a
    /// `release` step), or `panic`.
    ScriptAnswer = SCRIPT_ANSWERS
}
word_list! {
    /// What released calls answer.
    ReleaseAnswer = RELEASE_ANSWERS
}
word_list! {
    /// How a request ends, as its caller sees it; `held` means it is still waiting inside
    /// the target.
    Outcome = OUTCOMES
}
word_list! {
    /// A code a target answered with.
    AnswerCode = ANSWER_CODES
}
word_list! {
    /// A breaker state.
    BreakerState = STATES
}

/// A schema-only type: one transition record, `HH:MM:SS.mmm target FROM -> TO`.
pub struct TransitionLine;

impl JsonSchema for TransitionLine {
    fn schema_name() -> Cow<'static, str> {
        "TransitionLine".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": r"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} [a-z0-9_]+ (CLOSED|OPEN|HALF_OPEN) -> (CLOSED|OPEN|HALF_OPEN)$",
            "description": "One transition record: fake-clock time, target, old state -> new state, such as \"00:02:00.000 core_banking CLOSED -> OPEN\"."
        })
    }
}
