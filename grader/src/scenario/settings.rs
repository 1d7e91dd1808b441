//! Targets' settings: the lab's defaults (`lab.json`) with a scenario's overrides.
//!
//! The settings are the lab's own type, which its plug-in reads; here they are JSON
//! objects. A scenario's override names any of the fields, each replacing the default.
//! Each field is tried on its own over the defaults, so a wrong key or value is reported
//! where it is written.

use grader_protocol::TargetPlan;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostic, Source, describe_json_error};
use crate::lab::Lab;

/// Every target of the lab, in its order, with the settings a scenario runs it with.
pub fn resolve(lab: &Lab, overrides: &BTreeMap<String, &RawValue>) -> Vec<TargetPlan> {
    lab.manifest
        .targets
        .iter()
        .map(|t| {
            let mut settings = t.settings.clone();
            if let Some(Ok(Value::Object(o))) = overrides
                .get(&t.name)
                .map(|raw| serde_json::from_str::<Value>(raw.get()))
            {
                settings.extend(o);
            }
            TargetPlan {
                name: t.name.clone(),
                settings: Value::Object(settings),
            }
        })
        .collect()
}

/// Why `value` does not fit setting `key`, worded as the setting's rule where it has one
/// ("probes is -5, but probes must be 1 or more"), not as the type the lab stores it in.
/// The rule is found by asking the lab about 0 in its place: a whole-number setting that
/// refuses 0 says what it wants instead; one that takes 0 is a whole number, 0 or more.
pub fn value_problem(
    lab: &Lab,
    defaults: &Map<String, Value>,
    key: &str,
    value: &Value,
    e: &serde_json::Error,
) -> String {
    let mut zero = defaults.clone();
    zero.insert(key.to_owned(), Value::from(0u64));
    let shown = match value {
        Value::String(text) => format!("the text \"{text}\""),
        other => other.to_string(),
    };
    match lab.plugin.read_settings(&Value::Object(zero)) {
        Ok(found) => match found.into_iter().find(|(field, _)| *field == key) {
            Some((_, rule)) => format!("{key} is {shown}, but {rule}"),
            None => format!("{key} is {shown}, but it must be a whole number, 0 or more"),
        },
        // Not a whole-number setting: serde's words are all there is.
        Err(_) => describe_json_error(e),
    }
}

/// Every problem with a scenario's overrides of known targets, placed in `text` (the
/// file, shown as `path`). Unknown target names are the envelope's to report.
pub fn problems(
    lab: &Lab,
    overrides: &BTreeMap<String, &RawValue>,
    source: &Source<'_>,
) -> Vec<Diagnostic> {
    let text = source.text;
    let mut problems = Vec::new();
    for t in &lab.manifest.targets {
        let Some(raw) = overrides.get(&t.name) else {
            continue;
        };
        let start = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let end = start + raw.get().len();
        let at = |key: &str| source.key_in(start..end, key);
        let fields = match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(fields)) => fields,
            _ => {
                problems.push(source.at(
                    start,
                    format!(
                        "the settings of `{}` must be an object of setting names and values",
                        t.name
                    ),
                ));
                continue;
            }
        };
        // Defaults the lab's own type refuses are the manifest's problem, not this file's.
        if lab
            .plugin
            .read_settings(&Value::Object(t.settings.clone()))
            .is_err()
        {
            continue;
        }
        // The fields that fit the lab's type are then checked together for their values.
        let mut merged: Map<String, Value> = t.settings.clone();
        for (key, value) in &fields {
            let mut one = t.settings.clone();
            one.insert(key.clone(), value.clone());
            match lab.plugin.read_settings(&Value::Object(one)) {
                Ok(_) => {
                    merged.insert(key.clone(), value.clone());
                }
                Err(e) => problems
                    .push(source.at(at(key), value_problem(lab, &t.settings, key, value, &e))),
            }
        }
        if let Ok(found) = lab.plugin.read_settings(&Value::Object(merged)) {
            for (field, message) in found {
                if fields.contains_key(field) {
                    problems.push(source.at(at(field), message));
                }
            }
        }
    }
    problems
}
