//! The scenario file format every lab shares: the envelope around the lab's own steps and
//! settings, as instructors write it.
//!
//! The envelope refuses unknown fields, so a misspelt key is an error with its line and
//! column, not a silently ignored expectation. Each step and each target's settings are
//! kept as raw JSON here and read by the lab's plug-in, each on its own, so that a
//! problem in one is placed exactly.
//!
//! The same types generate the JSON Schema that editors use to complete and check
//! scenario files ([`crate::scenario::schema`]), with the lab's steps and settings put in.

use std::borrow::Cow;
use std::collections::BTreeMap;

use grader_lab::schema::TargetName;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The scenario format version this grader reads.
pub const SCENARIO_FORMAT_VERSION: u32 = 1;

/// One scenario file.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Scenario",
    description = "One scenario of a lab: what to do to the code under test, and what must happen. The format is described in labs/README.md."
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
    /// The rule this scenario is about: the id of one of the lab's rules (its
    /// `rules.json`), whose hint a student whose code fails it sees. Give `rule` or
    /// `hint`, not both.
    #[serde(default)]
    #[schemars(with = "Option<RuleId>")]
    pub rule: Option<String>,
    /// In a lab without rules: shown to a student whose code fails it, the mistake it
    /// usually catches. Give `rule` or `hint`, not both.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub hint: Option<String>,
    /// The step (counted from 1) from which the scenario's rule (or hint) applies: the
    /// steps before it only set the scene, and a failure there points at the rule of its
    /// step in `checks`, or is reported as what was observed. Without it the rule
    /// applies from the first step.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub hint_from_step: Option<u32>,
    /// The last step (counted from 1) the scenario's rule (or hint) is about. Without it
    /// the rule applies to the last step.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub hint_until_step: Option<u32>,
    /// Other rules of the lab that some steps check (the scene a scenario sets usually
    /// rests on other rules): a failure at one of these steps points at that rule. Read
    /// in order, before the scenario's own `rule`: the first that covers the failing
    /// step, and whose `seen` and `instead_of` (when given) match what differed there, is
    /// the step's rule.
    #[serde(default)]
    pub checks: Vec<Check>,
    /// Settings that differ from the lab's defaults, per target.
    #[serde(default, borrow)]
    #[schemars(schema_with = "target_overrides_schema")]
    pub targets: BTreeMap<String, &'a RawValue>,
    /// What to do and what to expect, in order. (Each step is read on its own, so that a
    /// problem in it is reported at its exact line and column.)
    #[serde(borrow)]
    #[schemars(with = "Vec<Step>", length(min = 1))]
    pub steps: Vec<&'a RawValue>,
}

/// A rule of the lab that some steps of a scenario check.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The id of one of the lab's rules (`rules.json`).
    #[schemars(with = "RuleId")]
    pub rule: String,
    /// The steps (counted from 1) that check it.
    #[schemars(length(min = 1))]
    pub steps: Vec<u32>,
    /// Only when the step observed this word and did not expect it (an outcome such as
    /// `E904`, a state such as `CLOSED`): for a step that checks several rules, the one
    /// this symptom shows broken.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub seen: Option<String>,
    /// Only when the step expected this word and did not observe it (a count's noun
    /// such as `calls` or `queued`, an outcome such as `OK`): for a step that checks
    /// several things at once, the one whose difference shows this rule broken.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub instead_of: Option<String>,
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

/// A schema-only type: one step of the lab's scenarios. The schema of a lab puts its
/// plug-in's steps here (see [`crate::scenario::schema::for_lab`]).
pub struct Step;

impl JsonSchema for Step {
    fn schema_name() -> Cow<'static, str> {
        "Step".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"description": "One step of a scenario: one of the lab's step kinds."})
    }
}

/// A schema-only type: one target's settings for one scenario. The schema of a lab puts
/// its plug-in's settings here, every field optional.
pub struct TargetOverride;

impl JsonSchema for TargetOverride {
    fn schema_name() -> Cow<'static, str> {
        "TargetOverride".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "object"})
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

/// A schema-only type: the id of one of the lab's rules.
pub struct RuleId;

impl JsonSchema for RuleId {
    fn schema_name() -> Cow<'static, str> {
        "RuleId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "description": "A rule of the lab, as listed in its rules.json."})
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
