//! Lab 6's scenario steps, as instructors write them.
//!
//! Every struct refuses unknown fields, so a misspelt key is an error with its line and
//! column. Steps are externally tagged (`{"advance": {"ms": 20}}`). Words (answers,
//! outcomes, states, metrics) are held as strings and checked by the validator, which
//! suggests the closest word for a typo; the schema lists the same words.

use std::collections::BTreeMap;

use grader_lab::schema::{JsonSchema, Schema, SchemaGenerator, TargetName, json_schema};
use grader_lab::word_list;
use serde::Deserialize;

/// How a dependency can be scripted to answer.
pub const SCRIPT_WORDS: [&str; 6] = ["ok", "no_tariff", "unavailable", "refused", "hold", "panic"];
/// What held calls can be released with.
pub const RELEASE_WORDS: [&str; 4] = ["ok", "no_tariff", "unavailable", "refused"];
/// How a checkout (a request to `shipping`) can end, or where it can wait.
pub const CHECKOUT_WORDS: [&str; 11] = [
    "confirmed",
    "no_tariff",
    "timeout",
    "no_capacity",
    "queue_expired",
    "circuit_open",
    "unavailable",
    "refused",
    "held",
    "queued",
    "pausing",
];
/// How a page view (a request to `catalog`) can end, or where it can wait.
pub const BROWSE_WORDS: [&str; 10] = [
    "shown",
    "timeout",
    "no_capacity",
    "queue_expired",
    "circuit_open",
    "unavailable",
    "refused",
    "held",
    "queued",
    "pausing",
];
/// Every outcome word, for steps whose requests may be of either kind.
pub const OUTCOME_WORDS: [&str; 12] = [
    "confirmed",
    "no_tariff",
    "shown",
    "timeout",
    "no_capacity",
    "queue_expired",
    "circuit_open",
    "unavailable",
    "refused",
    "held",
    "queued",
    "pausing",
];
/// The orders in which requests woken at the same moment go on.
pub const WAKE_ORDERS: [&str; 2] = ["oldest_first", "newest_first"];
/// Circuit states.
pub use grader_lab::records::STATES;
/// The shop's metrics.
pub use lab6_harness::wire::METRICS;
/// The most shop instances a scenario may run.
pub const MAX_INSTANCES: u32 = 8;
/// The most layers a request may go through.
pub const MAX_LAYERS: u32 = 3;

/// One step of a scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Tell a dependency how to answer from now on.
    Script(ScriptStep),
    /// Send requests one after the other: checkouts to `shipping`, page views to `catalog`.
    Send(SendStep),
    /// Send requests all at the same moment.
    SendConcurrent(SendConcurrentStep),
    /// Answer held calls.
    Release(ReleaseStep),
    /// Move the fake clock forward; waiters wake in deadline order.
    Advance(AdvanceStep),
    /// From now on, requests woken at the same moment go on in this order:
    /// `oldest_first` (the default) or `newest_first`.
    WakeOrder(#[schemars(with = "WakeOrderWord")] String),
    /// Check a dependency, and a shop instance's view of it.
    Expect(ExpectStep),
    /// Check the whole list of transition records of shop instance 1 so far.
    ExpectTransitions(#[schemars(with = "Vec<TransitionLine>")] Vec<String>),
}

/// `{"script": {"target": "shipping", "answer": "unavailable"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    /// `shipping` (the vendor) or `catalog`.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// `ok`, `no_tariff`, `unavailable`, `refused`, `hold` or `panic`.
    #[schemars(with = "ScriptAnswer")]
    pub answer: String,
}

/// `{"send": {"target": "shipping", "count": 3, "expect": "confirmed"}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendStep {
    /// `shipping` (checkouts) or `catalog` (page views).
    #[schemars(with = "TargetName")]
    pub target: String,
    /// How many requests, one after the other (default 1).
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
    /// Which shop instance receives them (default 1).
    #[schemars(range(min = 1, max = 8))]
    pub instance: Option<u32>,
    /// Layers each request goes through, the shop included (default 1); each outer layer
    /// retries the whole operation up to `max_attempts` times after a failure.
    #[schemars(range(min = 1, max = 3))]
    pub layers: Option<u32>,
    /// The outcome every one of them must have after the step.
    #[schemars(with = "Option<OutcomeWord>")]
    pub expect: Option<String>,
    /// The outcome each must have, in order; its length must equal `count`.
    #[schemars(with = "Option<Vec<OutcomeWord>>")]
    pub expect_each: Option<Vec<String>>,
}

/// `{"send_concurrent": {"target": "shipping", "count": 19, "expect": {"held": 8, "queued": 10, "no_capacity": 1}}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendConcurrentStep {
    /// `shipping` or `catalog`.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// How many requests at once.
    #[schemars(range(min = 1))]
    pub count: u32,
    /// Which shop instance receives them (default 1).
    #[schemars(range(min = 1, max = 8))]
    pub instance: Option<u32>,
    /// How many must have each outcome after the step; adds up to `count`.
    #[schemars(with = "Option<OutcomeCounts>")]
    pub expect: Option<BTreeMap<String, u32>>,
}

/// `{"release": {"target": "shipping", "count": 1, "answer": "ok", "expect": {"confirmed": 1}}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseStep {
    /// The dependency whose held calls to answer.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// How many, oldest first; all of them when left out. With a count, exactly that
    /// many must be held.
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
    /// `ok`, `no_tariff`, `unavailable` or `refused`.
    #[schemars(with = "ReleaseAnswer")]
    pub answer: String,
    /// How many of the requests whose calls were answered must have each outcome after the
    /// step (a caller that gave up earlier has its earlier outcome).
    #[schemars(with = "Option<OutcomeCounts>")]
    pub expect: Option<BTreeMap<String, u32>>,
}

/// `{"advance": {"ms": 21, "expect": {"queue_expired": 10}}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvanceStep {
    /// Milliseconds of fake time.
    #[schemars(range(min = 1))]
    pub ms: u64,
    /// How many of the requests that returned during the step ended each way (`{}`:
    /// none returned).
    #[schemars(with = "Option<OutcomeCounts>")]
    pub expect: Option<BTreeMap<String, u32>>,
}

/// `{"expect": {"target": "shipping", "state": "OPEN", "calls": 10, "metrics": {"timeout": 8}}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectStep {
    /// The dependency.
    #[schemars(with = "TargetName")]
    pub target: String,
    /// Which shop instance's view `state`, `held`, `queued`, `pausing` and `metrics` are
    /// about (default 1); `calls`, `in_flight`, `peak` and `answered` are the dependency's,
    /// whoever called it.
    #[schemars(range(min = 1, max = 8))]
    pub instance: Option<u32>,
    /// The instance's circuit state for the dependency: `CLOSED`, `OPEN` or `HALF_OPEN`.
    #[schemars(with = "Option<CircuitState>")]
    pub state: Option<String>,
    /// Calls that reached the dependency so far.
    pub calls: Option<u64>,
    /// Calls in progress at the dependency now (including those whose caller gave up).
    pub in_flight: Option<u64>,
    /// The most calls ever in progress at the dependency at once.
    pub peak: Option<u64>,
    /// Calls the dependency finished so far, per answer (answers left out: any count).
    #[schemars(with = "Option<AnswerCounts>")]
    pub answered: Option<BTreeMap<String, u64>>,
    /// The instance's requests to the dependency waiting for its answer now.
    pub held: Option<u64>,
    /// ... waiting in the admission queue now.
    pub queued: Option<u64>,
    /// ... pausing before a retry now.
    pub pausing: Option<u64>,
    /// The instance's metrics for the dependency (metrics left out: any value).
    #[schemars(with = "Option<MetricCounts>")]
    pub metrics: Option<BTreeMap<String, u64>>,
}

impl Step {
    /// The dependency a step is about, if it is about one.
    pub fn target(&self) -> Option<&str> {
        match self {
            Step::Script(x) => Some(&x.target),
            Step::Send(x) => Some(&x.target),
            Step::SendConcurrent(x) => Some(&x.target),
            Step::Release(x) => Some(&x.target),
            Step::Expect(x) => Some(&x.target),
            Step::Advance(_) | Step::WakeOrder(_) | Step::ExpectTransitions(_) => None,
        }
    }

    /// The shop instance a step names, if it names one.
    pub fn instance(&self) -> Option<u32> {
        match self {
            Step::Send(x) => x.instance,
            Step::SendConcurrent(x) => x.instance,
            Step::Expect(x) => x.instance,
            _ => None,
        }
    }
}

word_list! {
    /// How a dependency answers from now on: ok, no_tariff, unavailable, refused, hold (keep each call until a release step) or panic.
    ScriptAnswer = SCRIPT_WORDS
}
word_list! {
    /// What released calls answer.
    ReleaseAnswer = RELEASE_WORDS
}
word_list! {
    /// How a request ended (confirmed, no_tariff, shown, or why no valid answer came), or where it waits after the step (held, queued, pausing).
    OutcomeWord = OUTCOME_WORDS
}
word_list! {
    /// A circuit state.
    CircuitState = STATES
}
word_list! {
    /// Whose turn comes first among requests woken at the same moment: the one sent first (oldest_first) or last (newest_first).
    WakeOrderWord = WAKE_ORDERS
}

/// A schema-only type: one transition record.
pub struct TransitionLine;

impl JsonSchema for TransitionLine {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TransitionLine".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": r"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} [a-z_]+ (CLOSED|OPEN|HALF_OPEN) -> (CLOSED|OPEN|HALF_OPEN)$",
            "description": "One transition record: fake-clock time, dependency, old state -> new state, such as \"00:00:00.150 shipping CLOSED -> OPEN\"."
        })
    }
}

/// A schema-only type: a map from one word list's words to counts.
macro_rules! counts_type {
    ($name:ident, $key:ty, $description:expr) => {
        #[doc = $description]
        pub struct $name;

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                let key = generator.subschema_for::<$key>();
                json_schema!({
                    "type": "object",
                    "propertyNames": key,
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "description": $description
                })
            }
        }
    };
}

word_list! {
    /// A metric of the shop.
    MetricName = METRICS
}

counts_type!(
    OutcomeCounts,
    OutcomeWord,
    "How many requests must have each outcome."
);
counts_type!(
    AnswerCounts,
    ReleaseAnswer,
    "Calls the dependency finished, per answer."
);
counts_type!(
    MetricCounts,
    MetricName,
    "The shop's metrics: attempts that timed out, were turned away (queue full, open circuit), left the queue, and valid no-tariff answers."
);
