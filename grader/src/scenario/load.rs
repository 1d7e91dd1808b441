//! Reading scenario files, with every error placed at its line and column.

use std::path::Path;

use grader_protocol::TargetPlan;
use serde_json::error::Category;

use super::model::{SCENARIO_FORMAT_VERSION, ScenarioFile, Step};
use super::{PlacedStep, Scenario};
use crate::diagnostic::{Diagnostic, Pos};
use crate::lab::Lab;

/// A sentence for a serde_json error, without serde's own "at line X column Y" suffix.
pub fn describe_json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    };
    match e.classify() {
        Category::Syntax => format!("this is not valid JSON: {text}"),
        Category::Eof => format!("the file ends too early: {text}"),
        Category::Data | Category::Io => text,
    }
}

/// Reads and parses one scenario file. `shown` is the path used in messages.
///
/// Returns every problem found by parsing; [`super::validate`] then checks the meaning.
pub fn parse(lab: &Lab, text: &str, shown: &Path) -> Result<Scenario, Vec<Diagnostic>> {
    let file: ScenarioFile<'_> = serde_json::from_str(text).map_err(|e| {
        vec![Diagnostic::at(
            shown,
            Pos {
                line: e.line(),
                col: e.column(),
            },
            describe_json_error(&e),
        )]
    })?;
    let mut problems = Vec::new();
    if file.format_version != SCENARIO_FORMAT_VERSION {
        problems.push(
            Diagnostic::at(
                shown,
                key_pos(text, 0, text.len(), "format_version"),
                format!(
                    "format_version {} is not supported; this grader reads version {SCENARIO_FORMAT_VERSION}",
                    file.format_version
                ),
            )
            .help(format!("set \"format_version\": {SCENARIO_FORMAT_VERSION}")),
        );
    }
    let mut steps = Vec::new();
    for raw in &file.steps {
        let slice = raw.get();
        let offset = slice.as_ptr() as usize - text.as_ptr() as usize;
        let pos = Pos::of_offset(text, offset);
        match serde_json::from_str::<Step>(slice) {
            Ok(step) => steps.push(PlacedStep {
                step,
                pos,
                span: offset..offset + slice.len(),
            }),
            Err(e) => {
                let inner = if e.line() == 1 {
                    Pos {
                        line: pos.line,
                        col: pos.col + e.column() - 1,
                    }
                } else {
                    Pos {
                        line: pos.line + e.line() - 1,
                        col: e.column(),
                    }
                };
                let mut d = Diagnostic::at(shown, inner, describe_json_error(&e));
                if e.to_string().contains("unknown variant") {
                    d = d.help(
                        "a step is one of: script, send, send_concurrent, release, advance, expect, expect_transitions",
                    );
                }
                problems.push(d);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let targets = lab
        .manifest
        .targets
        .iter()
        .map(|t| {
            let o = file.targets.get(&t.name).cloned().unwrap_or_default();
            TargetPlan {
                name: t.name.clone(),
                failure_threshold: o.failure_threshold.unwrap_or(t.failure_threshold),
                retry_after_ms: o.retry_after_ms.unwrap_or(t.retry_after_ms),
                max_concurrent: o.max_concurrent.unwrap_or(t.max_concurrent),
            }
        })
        .collect();
    let scenario = Scenario {
        path: shown.to_path_buf(),
        name: file.name,
        title: file.title,
        category: file.category,
        points: file.points,
        visibility: file.visibility,
        smoke: file.smoke,
        description: file.description,
        hint: file.hint,
        targets,
        steps,
    };
    let problems = super::validate::check(lab, &scenario, &file.targets, text);
    if problems.is_empty() {
        Ok(scenario)
    } else {
        Err(problems)
    }
}

/// Where `"key"` first appears in `text[start..end]`, or where that range starts.
pub fn key_pos(text: &str, start: usize, end: usize, key: &str) -> Pos {
    let needle = format!("\"{key}\"");
    let found = text
        .get(start..end)
        .and_then(|range| range.find(&needle))
        .map_or(start, |i| start + i);
    Pos::of_offset(text, found)
}

/// Reads every `*.json` in `dir`, sorted by file name.
pub fn load_dir(lab: &Lab, dir: &Path) -> Result<Vec<Scenario>, Vec<Diagnostic>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    load_files(lab, &paths)
}

/// Reads the given scenario files, collecting every problem of every file.
pub fn load_files(
    lab: &Lab,
    paths: &[std::path::PathBuf],
) -> Result<Vec<Scenario>, Vec<Diagnostic>> {
    let mut scenarios = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        let shown = crate::kit::shown_path(&lab.kit, path);
        match std::fs::read_to_string(path) {
            Ok(text) => match parse(lab, &text, &shown) {
                Ok(s) => scenarios.push(s),
                Err(mut p) => problems.append(&mut p),
            },
            Err(e) => problems.push(Diagnostic::file(&shown, format!("cannot read it: {e}"))),
        }
    }
    problems.extend(super::validate::check_set(&scenarios));
    if problems.is_empty() {
        Ok(scenarios)
    } else {
        Err(problems)
    }
}
