//! Lab 5's scenario steps, as instructors write them.
//!
//! Every struct refuses unknown fields, so a misspelt key is an error with its line and
//! column, not a silently ignored expectation. Steps are externally tagged
//! (`{"advance": {"ms": 500}}`) so that serde reports errors at the offending key.
//!
//! Answers and outcomes are HTTP statuses (any from 100 to 599) or words, so they are held
//! as strings and checked by the validator, which suggests the closest word for a typo;
//! the schema-only types at the end give editors the same rules as patterns.

use std::borrow::Cow;
use std::collections::BTreeMap;

use grader_lab::limits::{MAX_CONCURRENT_REQUESTS, MAX_REQUESTS};
use grader_lab::schema::{JsonSchema, Schema, SchemaGenerator, TargetName, json_schema};
use grader_lab::steps::AdvanceStep;
use grader_lab::word_list;
use serde::Deserialize;

/// Words a flow's endpoint can be scripted with, besides an HTTP status.
pub const SCRIPT_WORDS: [&str; 4] = ["timeout", "refused", "hold", "panic"];
/// Words a held call can be released with, besides an HTTP status.
pub const RELEASE_WORDS: [&str; 2] = ["timeout", "refused"];
/// Words a message can be expected to end with, besides an HTTP status.
pub const OUTCOME_WORDS: [&str; 5] = ["timeout", "refused", "circuit_open", "no_capacity", "held"];
/// Circuit states.
pub use grader_lab::records::STATES;

/// One step of a scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Tell a flow's endpoint how to answer from now on.
    Script(ScriptStep),
    /// Send messages one after the other.
    Send(SendStep),
    /// Send messages all at the same moment.
    SendConcurrent(SendConcurrentStep),
    /// Let held calls finish with an answer.
    Release(ReleaseStep),
    /// Move the fake clock forward.
    Advance(AdvanceStep),
    /// Check a flow and its circuit.
    Expect(ExpectStep),
    /// Check the whole list of transition records so far.
    ExpectTransitions(#[schemars(with = "Vec<TransitionLine>")] Vec<String>),
    /// Check the whole list of alerts sent to the operators so far.
    ExpectAlerts(#[schemars(with = "Vec<AlertLine>")] Vec<String>),
}

/// `{"script": {"flow": "acme/ORDERS", "answer": "503"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    /// The flow, `partner/MESSAGE_TYPE`.
    #[schemars(with = "TargetName")]
    pub flow: String,
    /// An HTTP status (`200`, `422`, `503`, ...), `timeout`, `refused`, `hold` or `panic`.
    #[schemars(with = "ScriptAnswer")]
    pub answer: String,
}

/// `{"send": {"flow": "acme/ORDERS", "count": 3, "expect": "503"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendStep {
    /// The flow.
    #[schemars(with = "TargetName")]
    pub flow: String,
    /// How many messages, one after the other (default 1; at most 1000).
    #[schemars(range(min = 1, max = MAX_REQUESTS))]
    pub count: Option<u32>,
    /// The outcome every one of them must end with (`held` for one waiting in the partner).
    #[schemars(with = "Option<OutcomeWord>")]
    pub expect: Option<String>,
    /// The outcome each must end with, in order; its length must equal `count`.
    #[schemars(with = "Option<Vec<OutcomeWord>>")]
    pub expect_each: Option<Vec<String>>,
}

/// `{"send_concurrent": {"flow": "acme/ORDERS", "count": 10, "expect": {"held": 3, "circuit_open": 7}}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendConcurrentStep {
    /// The flow.
    #[schemars(with = "TargetName")]
    pub flow: String,
    /// How many messages at once (at most 100: each is a thread).
    #[schemars(range(min = 1, max = MAX_CONCURRENT_REQUESTS))]
    pub count: u32,
    /// How many must end with each outcome (`held`: waiting in the partner); adds up to
    /// `count`.
    #[schemars(with = "Option<OutcomeCounts>")]
    pub expect: Option<BTreeMap<String, u32>>,
}

/// `{"release": {"flow": "acme/ORDERS", "count": 1, "answer": "503", "expect": "503"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseStep {
    /// The flow whose held calls to release.
    #[schemars(with = "TargetName")]
    pub flow: String,
    /// How many, oldest first; all of them when left out (at most 1000).
    #[schemars(range(min = 1, max = MAX_REQUESTS))]
    pub count: Option<u32>,
    /// What the released calls answer: an HTTP status, `timeout` or `refused`.
    #[schemars(with = "ReleaseAnswer")]
    pub answer: String,
    /// The outcome every released message must end with, as its caller sees it.
    #[schemars(with = "Option<OutcomeWord>")]
    pub expect: Option<String>,
}

/// `{"expect": {"flow": "acme/ORDERS", "state": "OPEN", "calls": 10}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectStep {
    /// The flow.
    #[schemars(with = "TargetName")]
    pub flow: String,
    /// Circuit state: `CLOSED`, `OPEN` or `HALF_OPEN`.
    #[schemars(with = "Option<CircuitState>")]
    pub state: Option<String>,
    /// Calls that reached the flow's endpoint so far.
    pub calls: Option<u64>,
    /// Calls in progress at the endpoint now.
    pub in_flight: Option<u64>,
    /// The most calls ever in progress at the endpoint at once.
    pub peak: Option<u64>,
    /// Calls the endpoint finished so far, per answer (answers left out: any count).
    #[schemars(with = "Option<AnswerCounts>")]
    pub answered: Option<BTreeMap<String, u64>>,
}

impl Step {
    /// The flow a step is about, if it is about one.
    pub fn flow(&self) -> Option<&str> {
        match self {
            Step::Script(x) => Some(&x.flow),
            Step::Send(x) => Some(&x.flow),
            Step::SendConcurrent(x) => Some(&x.flow),
            Step::Release(x) => Some(&x.flow),
            Step::Expect(x) => Some(&x.flow),
            Step::Advance(_) | Step::ExpectTransitions(_) | Step::ExpectAlerts(_) => None,
        }
    }
}

word_list! {
    /// A circuit state.
    CircuitState = STATES
}

/// A schema-only type: a string matching `pattern`, described by `description`.
macro_rules! pattern_type {
    ($name:ident, $pattern:expr, $description:expr) => {
        #[doc = $description]
        pub struct $name;

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({"type": "string", "pattern": $pattern, "description": $description})
            }
        }
    };
}

pattern_type!(
    ScriptAnswer,
    "^([1-5][0-9][0-9]|timeout|refused|hold|panic)$",
    "How a flow's endpoint answers from now on: an HTTP status from 100 to 599, timeout, refused, hold (keep each call waiting until a release step) or panic."
);
pattern_type!(
    ReleaseAnswer,
    "^([1-5][0-9][0-9]|timeout|refused)$",
    "What released calls answer: an HTTP status from 100 to 599, timeout or refused."
);
pattern_type!(
    OutcomeWord,
    "^([1-5][0-9][0-9]|timeout|refused|circuit_open|no_capacity|held)$",
    "How a message ends, as its caller sees it: an HTTP status, timeout, refused, circuit_open, no_capacity, or held (still waiting inside the partner)."
);
pattern_type!(
    TransitionLine,
    r"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} [A-Za-z0-9_-]+/[A-Za-z0-9_-]+ (CLOSED|OPEN|HALF_OPEN) -> (CLOSED|OPEN|HALF_OPEN)$",
    "One transition record: fake-clock time, flow, old state -> new state, such as \"00:01:40.000 acme/ORDERS CLOSED -> OPEN\"."
);
pattern_type!(
    AlertLine,
    r"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} [A-Za-z0-9_-]+/[A-Za-z0-9_-]+ (opened: [0-9]+ of [0-9]+ calls failed|closed)$",
    "One alert: fake-clock time, flow, and \"opened: F of N calls failed\" or \"closed\", such as \"00:01:40.000 acme/ORDERS opened: 5 of 10 calls failed\"."
);

/// A schema-only type: how many messages end with each outcome.
pub struct OutcomeCounts;

impl JsonSchema for OutcomeCounts {
    fn schema_name() -> Cow<'static, str> {
        "OutcomeCounts".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let key = generator.subschema_for::<OutcomeWord>();
        json_schema!({
            "type": "object",
            "propertyNames": key,
            "additionalProperties": {"type": "integer", "minimum": 0},
            "description": "How many messages must end with each outcome; the numbers add up to count."
        })
    }
}

/// A schema-only type: how many calls an endpoint answered with each answer.
pub struct AnswerCounts;

impl JsonSchema for AnswerCounts {
    fn schema_name() -> Cow<'static, str> {
        "AnswerCounts".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let key = generator.subschema_for::<ReleaseAnswer>();
        json_schema!({
            "type": "object",
            "propertyNames": key,
            "additionalProperties": {"type": "integer", "minimum": 0},
            "description": "Calls the endpoint finished, per answer (an HTTP status, timeout or refused)."
        })
    }
}
