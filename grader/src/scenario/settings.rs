//! Targets' settings: the lab's defaults (`lab.json`) with a scenario's overrides.
//!
//! The settings are the lab's own type, which its plug-in reads; here they are JSON
//! objects. A scenario's override names any of the fields, each replacing the default.
//! Each field is tried on its own over the defaults, so a wrong key or value is reported
//! where it is written.

use std::collections::BTreeMap;
use std::path::Path;

use grader_protocol::TargetPlan;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::load::key_pos;
use crate::diagnostic::{Diagnostic, Pos, describe_json_error};
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

/// Every problem with a scenario's overrides of known targets, placed in `text` (the
/// file, shown as `path`). Unknown target names are the envelope's to report.
pub fn problems(
    lab: &Lab,
    overrides: &BTreeMap<String, &RawValue>,
    text: &str,
    path: &Path,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for t in &lab.manifest.targets {
        let Some(raw) = overrides.get(&t.name) else {
            continue;
        };
        let start = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let end = start + raw.get().len();
        let at = |key: &str| key_pos(text, start, end, key);
        let fields = match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(fields)) => fields,
            _ => {
                problems.push(Diagnostic::at(
                    path,
                    Pos::of_offset(text, start),
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
        let mut fine = true;
        for (key, value) in &fields {
            let mut one = t.settings.clone();
            one.insert(key.clone(), value.clone());
            if let Err(e) = lab.plugin.read_settings(&Value::Object(one)) {
                problems.push(Diagnostic::at(path, at(key), describe_json_error(&e)));
                fine = false;
            }
        }
        if !fine {
            continue;
        }
        let mut merged: Map<String, Value> = t.settings.clone();
        merged.extend(fields.clone());
        if let Ok(found) = lab.plugin.read_settings(&Value::Object(merged)) {
            for (field, message) in found {
                if fields.contains_key(field) {
                    problems.push(Diagnostic::at(path, at(field), message));
                }
            }
        }
    }
    problems
}
