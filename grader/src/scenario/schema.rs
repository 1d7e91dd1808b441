//! The JSON Schema of scenario files, generated from the types in
//! [`crate::scenario::model`] and from the lab plug-in's step and settings types, so the
//! schema cannot describe a format the grader does not read.
//!
//! Each lab keeps its schema beside its `lab.json` (`labs/<lab>/scenario.schema.json`),
//! with the lab's target names and category ids filled in, and every scenario file points
//! to it with `"$schema": "../scenario.schema.json"`. Editors that know JSON Schema then
//! complete keys and words and underline mistakes as the file is typed. The file is
//! checked in; a test fails when it no longer matches the types or the lab.

use std::path::PathBuf;

use grader_lab::DynPlugin;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use crate::lab::Lab;
use crate::scenario::model::ScenarioFile;

/// The file name of a lab's scenario schema, in the lab's folder.
pub const FILE_NAME: &str = "scenario.schema.json";

/// What scenario files put in `"$schema"` to find their lab's schema.
pub const REFERENCE: &str = "../scenario.schema.json";

/// Where `lab`'s schema lives.
pub fn path(lab: &Lab) -> PathBuf {
    lab.dir.join(FILE_NAME)
}

/// The schema of scenario files of a lab whose plug-in is `plugin`: the envelope with the
/// plug-in's steps and settings (every setting optional in a scenario); targets and
/// categories are any string.
pub fn generic(plugin: &dyn DynPlugin) -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let step = plugin.step_schema(&mut generator).to_value();
    let mut settings = plugin.settings_schema(&mut generator).to_value();
    if let Some(object) = settings.as_object_mut() {
        object.remove("required");
        object.remove("title");
        object.insert(
            "description".into(),
            json!("Per-target settings for one scenario; missing fields keep the lab's values."),
        );
    }
    let lab_defs: Vec<(String, Value)> = generator
        .definitions()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut schema = generator
        .into_root_schema_for::<ScenarioFile<'static>>()
        .to_value();
    if let Some(defs) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
        defs.extend(lab_defs);
        defs.insert("Step".into(), step);
        defs.insert("TargetOverride".into(), settings);
    }
    schema
}

/// The schema of `lab`'s scenario files: the general one, with the lab's targets and
/// categories (and rules) as the only words allowed where a target or a category (or a
/// rule) goes, and without `"race"` for a lab that has no race checks, nor `"rule"` and
/// `"checks"` for a lab without rules (validation refuses them there).
pub fn for_lab(lab: &Lab) -> Value {
    let mut schema = generic(lab.plugin.as_ref());
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        if !lab.has_race_checks() {
            properties.remove("race");
        }
        // A lab without rules has scenarios that give hints of their own.
        if lab.rules.rules.is_empty() {
            properties.remove("rule");
            properties.remove("checks");
        }
    }
    let targets: Vec<&str> = lab
        .manifest
        .targets
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    let categories: Vec<&str> = lab
        .manifest
        .categories
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    if let Some(defs) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
        if let Some(def) = defs.get_mut("TargetName").and_then(Value::as_object_mut) {
            def.insert("enum".into(), json!(targets));
        }
        if let Some(def) = defs.get_mut("CategoryId").and_then(Value::as_object_mut) {
            def.insert("enum".into(), json!(categories));
        }
        if let Some(def) = defs.get_mut("RuleId").and_then(Value::as_object_mut) {
            def.insert("enum".into(), json!(lab.rules.ids()));
        }
    }
    if let Some(root) = schema.as_object_mut() {
        root.insert(
            "title".into(),
            json!(format!("A scenario of {}", lab.manifest.name)),
        );
    }
    schema
}

/// The schema as it is written to disk: pretty JSON and a final newline.
pub fn to_text(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_kind_of_every_registered_lab_is_in_its_schema() {
        let labs = crate::labs::registered();
        for name in labs.names() {
            let plugin = labs.get(name).expect("a registered lab");
            let schema = generic(plugin.as_ref());
            let listed: Vec<String> = schema["$defs"]["Step"]["oneOf"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["required"][0].as_str().map(str::to_owned))
                .collect();
            assert!(!listed.is_empty(), "{name}: no steps in {schema}");
            assert_eq!(listed, plugin.step_kinds(), "{name}");
            assert_eq!(schema["properties"]["steps"]["type"], "array");
            assert_eq!(schema["additionalProperties"], false);
            assert!(schema["$defs"]["TargetOverride"]["required"].is_null());
        }
    }
}
