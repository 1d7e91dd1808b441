//! The plug-in as the core holds it: one object-safe trait for every lab, with steps,
//! settings and observations behind type erasure. Every [`Plugin`] is a [`DynPlugin`].

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;

use grader_protocol::TargetPlan;

use crate::{Checker, Difference, Draft, Harness, Plugin, Snapshot, StepRecord, Words, picture};

/// A step of some lab's scenario, as the core holds it: only that lab's plug-in can look
/// inside.
#[derive(Clone)]
pub struct AnyStep {
    lab: &'static str,
    step: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for AnyStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AnyStep({})", self.lab)
    }
}

/// [`Plugin`] for the core: lab-neutral types only.
pub trait DynPlugin: Send + Sync {
    /// [`Plugin::name`].
    fn name(&self) -> &'static str;
    /// [`Plugin::harness`].
    fn harness(&self) -> Harness;
    /// [`Plugin::race_harness`].
    fn race_harness(&self) -> Option<Harness>;
    /// [`Plugin::rehearsal`].
    fn rehearsal(&self) -> Option<&dyn crate::rehearsal::Rehearsal>;
    /// [`Plugin::words`].
    fn words(&self) -> &Words;
    /// [`Plugin::target_noun`].
    fn target_noun(&self) -> &'static str;
    /// [`Plugin::stuck_hint`].
    fn stuck_hint(&self, seen: Option<&str>) -> String;
    /// The step kinds, as scenario files spell them (`script`, `send`, ...).
    fn step_kinds(&self) -> Vec<String>;
    /// The JSON Schema of one step; the definitions it refers to go into `generator`.
    fn step_schema(&self, generator: &mut SchemaGenerator) -> Schema;
    /// The JSON Schema of a target's settings, all fields required.
    fn settings_schema(&self, generator: &mut SchemaGenerator) -> Schema;
    /// Parses one step from its JSON text.
    fn parse_step(&self, text: &str) -> Result<AnyStep, serde_json::Error>;
    /// Reads a target's settings: serde's error when they do not fit the lab's type,
    /// else [`Plugin::check_settings`]' problems.
    fn read_settings(
        &self,
        settings: &Value,
    ) -> Result<Vec<(&'static str, String)>, serde_json::Error>;
    /// [`Plugin::describe_settings`]; `None` for settings that do not fit the lab's type.
    fn describe_settings(&self, settings: &Value) -> Option<String>;
    /// [`Plugin::check_steps`].
    fn check_steps(&self, steps: &[&AnyStep], checker: &mut Checker<'_>);
    /// [`Plugin::expects_something`].
    fn expects_something(&self, step: &AnyStep) -> bool;
    /// [`Plugin::action`], as JSON.
    fn action(&self, step: &AnyStep) -> Value;
    /// [`Plugin::advances_clock`].
    fn advances_clock(&self, step: &AnyStep) -> u64;
    /// [`Plugin::simultaneous`].
    fn simultaneous(&self, step: &AnyStep) -> bool;
    /// [`Plugin::judge`]; `Err` when the observation is not what the lab's harness writes.
    fn judge(&self, step: &AnyStep, record: &StepRecord) -> Result<Option<Difference>, String>;
    /// [`Plugin::snapshot`]; `Err` when the observation is not what the lab's harness
    /// writes.
    fn snapshot(&self, observation: &Value) -> Result<Snapshot, String>;
    /// [`Plugin::describe`].
    fn describe(&self, step: &AnyStep) -> String;
    /// [`Plugin::expectation`].
    fn expectation(&self, step: &AnyStep) -> Option<String>;
    /// [`Plugin::generate`]; `Err` when the targets' settings do not fit the lab's type.
    fn generate(&self, seed: u64, defaults: &[TargetPlan]) -> Result<Option<Draft>, String>;
    /// [`Plugin::fill`]; `Err` when an observation is not what the lab's harness writes.
    fn fill(
        &self,
        step: &Value,
        record: &StepRecord,
        before: Option<&Value>,
        last: bool,
    ) -> Result<Vec<Value>, String>;
    /// [`Plugin::rule_hint`].
    fn rule_hint(&self, step: &AnyStep, difference: &Difference) -> Option<String>;
    /// [`Plugin::unpinned`]; `Err` when an observation is not what the lab's harness writes.
    fn unpinned(&self, steps: &[Value], records: &[StepRecord]) -> Result<Option<usize>, String>;
    /// [`picture::Picture::lane`], for a lab that describes its picture.
    fn picture_lane(&self, step: &AnyStep) -> Option<picture::Lane>;
    /// [`picture::Picture::fate`]; [`picture::Fate::Other`] for a lab that says nothing.
    fn picture_fate(&self, outcome: &str) -> picture::Fate;
    /// [`picture::Picture::look`]; empty for a lab that says nothing or an observation
    /// that is not the lab's.
    fn picture_look(&self, observation: &Value) -> picture::Look;
    /// [`picture::Picture::traits`] of a target's settings (as the plan carries them).
    fn picture_traits(&self, settings: &Value) -> picture::Traits;
    /// [`picture::Picture::probe_word`].
    fn picture_probe_word(&self) -> &'static str;
}

/// A step that is not this plug-in's (the core never makes one): described as such,
/// judged as a grader error.
const FOREIGN: &str = "a step of another lab";

impl<P: Plugin> DynPlugin for P {
    fn name(&self) -> &'static str {
        Plugin::name(self)
    }

    fn harness(&self) -> Harness {
        Plugin::harness(self)
    }

    fn race_harness(&self) -> Option<Harness> {
        Plugin::race_harness(self)
    }

    fn rehearsal(&self) -> Option<&dyn crate::rehearsal::Rehearsal> {
        Plugin::rehearsal(self)
    }

    fn words(&self) -> &Words {
        Plugin::words(self)
    }

    fn target_noun(&self) -> &'static str {
        Plugin::target_noun(self)
    }

    fn stuck_hint(&self, seen: Option<&str>) -> String {
        Plugin::stuck_hint(self, seen)
    }

    fn step_kinds(&self) -> Vec<String> {
        let schema = P::Step::json_schema(&mut SchemaGenerator::default());
        let kinds = schema
            .get("oneOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|variant| variant.get("required")?.get(0)?.as_str())
            .map(str::to_owned);
        kinds.collect()
    }

    fn step_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        P::Step::json_schema(generator)
    }

    fn settings_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        P::Settings::json_schema(generator)
    }

    fn parse_step(&self, text: &str) -> Result<AnyStep, serde_json::Error> {
        let step: P::Step = serde_json::from_str(text)?;
        Ok(AnyStep {
            lab: Plugin::name(self),
            step: Arc::new(step),
        })
    }

    fn read_settings(
        &self,
        settings: &Value,
    ) -> Result<Vec<(&'static str, String)>, serde_json::Error> {
        let typed: P::Settings = serde_json::from_value(settings.clone())?;
        Ok(self.check_settings(&typed))
    }

    fn describe_settings(&self, settings: &Value) -> Option<String> {
        let typed: P::Settings = serde_json::from_value(settings.clone()).ok()?;
        Some(Plugin::describe_settings(self, &typed))
    }

    fn check_steps(&self, steps: &[&AnyStep], checker: &mut Checker<'_>) {
        let typed: Option<Vec<&P::Step>> = steps.iter().map(|s| mine::<P>(s)).collect();
        if let Some(typed) = typed {
            Plugin::check_steps(self, &typed, checker);
        }
    }

    fn expects_something(&self, step: &AnyStep) -> bool {
        mine::<P>(step).is_some_and(|s| Plugin::expects_something(self, s))
    }

    fn action(&self, step: &AnyStep) -> Value {
        mine::<P>(step)
            .and_then(|s| serde_json::to_value(Plugin::action(self, s)).ok())
            .unwrap_or(Value::Null)
    }

    fn advances_clock(&self, step: &AnyStep) -> u64 {
        mine::<P>(step).map_or(0, |s| Plugin::advances_clock(self, s))
    }

    fn simultaneous(&self, step: &AnyStep) -> bool {
        mine::<P>(step).is_some_and(|s| Plugin::simultaneous(self, s))
    }

    fn judge(&self, step: &AnyStep, record: &StepRecord) -> Result<Option<Difference>, String> {
        let step = mine::<P>(step).ok_or_else(|| FOREIGN.to_owned())?;
        let observation: P::Observation = serde_json::from_value(record.observation.clone())
            .map_err(|e| {
                format!(
                    "its observation after step {} does not fit lab {}: {e}",
                    record.step + 1,
                    Plugin::name(self)
                )
            })?;
        let typed = StepRecord {
            step: record.step,
            at_ms: record.at_ms,
            requests: record.requests.clone(),
            observation,
        };
        Ok(Plugin::judge(self, step, &typed))
    }

    fn snapshot(&self, observation: &Value) -> Result<Snapshot, String> {
        let observation: P::Observation =
            serde_json::from_value(observation.clone()).map_err(|e| {
                format!(
                    "an observation does not fit lab {}: {e}",
                    Plugin::name(self)
                )
            })?;
        Ok(Plugin::snapshot(self, &observation))
    }

    fn describe(&self, step: &AnyStep) -> String {
        mine::<P>(step).map_or_else(|| FOREIGN.to_owned(), |s| Plugin::describe(self, s))
    }

    fn expectation(&self, step: &AnyStep) -> Option<String> {
        Plugin::expectation(self, mine::<P>(step)?)
    }

    fn generate(&self, seed: u64, defaults: &[TargetPlan]) -> Result<Option<Draft>, String> {
        let typed = defaults
            .iter()
            .map(|t| {
                let settings: P::Settings =
                    serde_json::from_value(t.settings.clone()).map_err(|e| {
                        format!(
                            "the settings of {} do not fit lab {}: {e}",
                            t.name,
                            Plugin::name(self)
                        )
                    })?;
                Ok(TargetPlan {
                    name: t.name.clone(),
                    settings,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Plugin::generate(self, seed, &typed))
    }

    fn fill(
        &self,
        step: &Value,
        record: &StepRecord,
        before: Option<&Value>,
        last: bool,
    ) -> Result<Vec<Value>, String> {
        let typed = typed_record::<P>(self, record)?;
        let before = before.map(|o| observation::<P>(self, o)).transpose()?;
        Ok(Plugin::fill(self, step, &typed, before.as_ref(), last))
    }

    fn rule_hint(&self, step: &AnyStep, difference: &Difference) -> Option<String> {
        Plugin::rule_hint(self, mine::<P>(step)?, difference)
    }

    fn unpinned(&self, steps: &[Value], records: &[StepRecord]) -> Result<Option<usize>, String> {
        let typed = records
            .iter()
            .map(|r| typed_record::<P>(self, r))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Plugin::unpinned(self, steps, &typed))
    }

    fn picture_lane(&self, step: &AnyStep) -> Option<picture::Lane> {
        Plugin::picture(self)?.lane(mine::<P>(step)?)
    }

    fn picture_fate(&self, outcome: &str) -> picture::Fate {
        Plugin::picture(self).map_or(picture::Fate::Other, |p| p.fate(outcome))
    }

    fn picture_look(&self, observation: &Value) -> picture::Look {
        // Read in place: a page reads every observation of every scenario.
        let typed = P::Observation::deserialize(observation);
        match (Plugin::picture(self), typed) {
            (Some(p), Ok(observation)) => p.look(&observation),
            _ => picture::Look::default(),
        }
    }

    fn picture_traits(&self, settings: &Value) -> picture::Traits {
        let typed = P::Settings::deserialize(settings);
        match (Plugin::picture(self), typed) {
            (Some(p), Ok(settings)) => p.traits(&settings),
            _ => picture::Traits::default(),
        }
    }

    fn picture_probe_word(&self) -> &'static str {
        Plugin::picture(self).map_or("trial", |p| p.probe_word())
    }
}

/// A record with the lab's own observation, or why it does not fit.
fn typed_record<P: Plugin>(
    plugin: &P,
    record: &StepRecord,
) -> Result<StepRecord<P::Observation>, String> {
    Ok(StepRecord {
        step: record.step,
        at_ms: record.at_ms,
        requests: record.requests.clone(),
        observation: observation::<P>(plugin, &record.observation)?,
    })
}

/// The lab's own observation, or why `value` does not fit it.
fn observation<P: Plugin>(plugin: &P, value: &Value) -> Result<P::Observation, String> {
    serde_json::from_value(value.clone()).map_err(|e| {
        format!(
            "an observation does not fit lab {}: {e}",
            Plugin::name(plugin)
        )
    })
}

/// The plug-in's own step inside `step`.
fn mine<P: Plugin>(step: &AnyStep) -> Option<&P::Step> {
    step.step.downcast_ref::<P::Step>()
}
