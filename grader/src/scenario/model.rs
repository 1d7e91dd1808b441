//! The scenario file format, as instructors write it.
//!
//! These are the only types read from scenario files. Every struct refuses unknown
//! fields, so a misspelt key is an error with its line and column, not a silently
//! ignored expectation. Steps are externally tagged (`{"advance": {"ms": 500}}`) so that
//! serde reports errors at the offending key.
//!
//! The same types generate the JSON Schema that editors use to complete and check
//! scenario files ([`crate::schema`]). Fields held as plain strings so that the validator
//! can suggest the closest correct word carry a `schemars(with = ...)` naming the word
//! list the schema offers instead.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::validate::{ANSWER_CODES, OUTCOMES, RELEASE_ANSWERS, SCRIPT_ANSWERS, STATES};

/// The scenario format version this grader reads.
pub const SCENARIO_FORMAT_VERSION: u32 = 1;

/// One scenario file.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Scenario",
    description = "One scenario of a lab: what to send to the relay under test, and what must happen. The format is described in labs/README.md."
)]
pub struct ScenarioFile<'a> {
    /// Where editors find this schema: `"../scenario.schema.json"`. The grader ignores it.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// Must be 1.
    #[schemars(range(min = 1, max = 1))]
    pub format_version: u32,
    /// A short unique identifier: lowercase letters, digits and `_`. The file is named
    /// after it (`<name>.json`).
    #[schemars(regex(pattern = r"^[a-z0-9_]+$"))]
    pub name: String,
    /// One sentence saying what the scenario shows.
    #[schemars(length(min = 1))]
    pub title: String,
    /// The rubric category it scores (see the lab's `lab.json`).
    #[schemars(with = "CategoryId")]
    pub category: String,
    /// Points for passing it (all or nothing).
    #[schemars(range(min = 1))]
    pub points: u32,
    /// `visible` (students run it) or `hidden` (only CI grading runs it).
    #[serde(default)]
    pub visibility: Visibility,
    /// Marks a scenario that no known buggy solution is expected to fail.
    #[serde(default)]
    pub smoke: bool,
    /// A race check: the steps run on the schedule-exploring runtime, once per explored
    /// schedule, and every expectation and every race property must hold on each.
    #[serde(default)]
    pub race: bool,
    /// What it does and why, in plain words, for `grader explain`.
    #[serde(default)]
    pub description: String,
    /// Shown to a student whose code fails it: the mistake it usually catches.
    #[schemars(length(min = 1))]
    pub hint: String,
    /// Settings that differ from the lab's defaults, per target.
    #[serde(default)]
    #[schemars(schema_with = "target_overrides_schema")]
    pub targets: BTreeMap<String, TargetOverride>,
    /// What to do and what to expect, in order. (Each step is read on its own, so that a
    /// problem in it is reported at its exact line and column.)
    #[serde(borrow)]
    #[schemars(with = "Vec<Step>", length(min = 1))]
    pub steps: Vec<&'a serde_json::value::RawValue>,
}

/// Whether students can run a scenario themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Shipped to students and run by `grader check`.
    #[default]
    Visible,
    /// Run only when grading submissions.
    Hidden,
}

/// Per-target settings for one scenario; missing fields keep the lab's values.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetOverride {
    /// Counted failures in a row that open the circuit.
    #[schemars(range(min = 1))]
    pub failure_threshold: Option<u32>,
    /// Milliseconds the circuit stays open before a trial.
    pub retry_after_ms: Option<u64>,
    /// The bulkhead's limit.
    #[schemars(range(min = 1))]
    pub max_concurrent: Option<u64>,
}

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
    /// How many requests, one after the other (default 1).
    #[schemars(range(min = 1))]
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
    /// How many requests at once.
    #[schemars(range(min = 1))]
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
    /// How many, oldest first; all of them when left out.
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
    /// What the released calls answer: `OK`, `B201`, `E500`, `E901` or `E902`.
    #[schemars(with = "ReleaseAnswer")]
    pub answer: String,
    /// The code every released request must end with, as the caller sees it.
    #[schemars(with = "Option<Outcome>")]
    pub expect: Option<String>,
}

/// `{"advance": {"ms": 30000}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvanceStep {
    /// Milliseconds of fake time.
    #[schemars(range(min = 1))]
    pub ms: u64,
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

/// A schema-only type: a string that must be one of a fixed list of words. The lists are
/// the validator's, so the schema and `grader validate` accept the same words.
macro_rules! word_list {
    ($(#[doc = $doc:literal])* $name:ident = $words:expr) => {
        $(#[doc = $doc])*
        pub struct $name;

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                let description = [$($doc.trim()),*].join(" ");
                json_schema!({"type": "string", "enum": $words, "description": description})
            }
        }
    };
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

/// A schema-only type: the name of one of the lab's targets. The schema of a lab lists
/// them (see [`crate::schema::for_lab`]).
pub struct TargetName;

impl JsonSchema for TargetName {
    fn schema_name() -> Cow<'static, str> {
        "TargetName".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "description": "A target of the lab, as named in its lab.json."})
    }
}

/// A schema-only type: the id of one of the lab's rubric categories.
pub struct CategoryId;

impl JsonSchema for CategoryId {
    fn schema_name() -> Cow<'static, str> {
        "CategoryId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "description": "A rubric category of the lab, as listed in its lab.json."})
    }
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

/// The schema of a scenario's `targets`: keys are target names, values their settings.
fn target_overrides_schema(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "description": "Settings that differ from the lab's defaults, per target.",
        "propertyNames": generator.subschema_for::<TargetName>(),
        "additionalProperties": generator.subschema_for::<TargetOverride>()
    })
}
