//! Reading scenario files, with every error placed at its line and column.

use std::path::Path;

use super::model::{SCENARIO_FORMAT_VERSION, ScenarioFile};
use super::{PlacedStep, Scenario};
use crate::diagnostic::{Diagnostic, Pos, describe_json_error};
use crate::lab::Lab;

/// The byte offset of a 1-based line and column (in characters) of `text`.
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    text[line_start..]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(text.len(), |(i, _)| line_start + i)
}

/// Where in `text` a serde_json error points. serde places "unknown field", "unknown
/// variant" and "a string of the wrong type" at the closing quote of the word; this
/// moves them to its opening quote, where a person looks for the word.
pub fn error_offset(text: &str, e: &serde_json::Error) -> usize {
    let offset = offset_of(text, e.line(), e.column());
    let message = e.to_string();
    let about_a_word = ["unknown field", "unknown variant", "invalid type: string"]
        .iter()
        .any(|m| message.starts_with(m));
    if !about_a_word || text.as_bytes().get(offset) != Some(&b'"') {
        return offset;
    }
    let before = &text.as_bytes()[..offset];
    let mut i = offset;
    while i > 0 {
        i -= 1;
        if before[i] == b'"' && (i == 0 || before[i - 1] != b'\\') {
            return i;
        }
    }
    offset
}

/// A diagnostic for a serde_json error in `text`, placed as [`error_offset`] says.
pub fn json_error(shown: &Path, text: &str, e: &serde_json::Error) -> Diagnostic {
    let pos = Pos::of_offset(text, error_offset(text, e));
    let mut d = Diagnostic::at(shown, pos, describe_json_error(e));
    if e.to_string().starts_with("missing field") {
        d = d.help(format!(
            "the lab's {} lists every field, and which are required",
            crate::scenario::schema::FILE_NAME
        ));
    }
    d
}

/// [`json_error`] for a step of a lab whose step kinds are `kinds`: an unknown kind gets
/// the list of the lab's kinds.
fn step_error(shown: &Path, text: &str, e: &serde_json::Error, kinds: &[String]) -> Diagnostic {
    let d = json_error(shown, text, e);
    let unknown_kind = e.to_string().starts_with("unknown variant")
        && kinds
            .last()
            .is_some_and(|k| e.to_string().contains(&format!("`{k}`")));
    if unknown_kind {
        d.help(format!("a step is one of: {}", kinds.join(", ")))
    } else {
        d
    }
}

/// Reads and parses one scenario file. `shown` is the path used in messages.
///
/// Returns every problem found by parsing; [`super::validate`] then checks the meaning.
pub fn parse(lab: &Lab, text: &str, shown: &Path) -> Result<Scenario, Vec<Diagnostic>> {
    let file: ScenarioFile<'_> =
        serde_json::from_str(text).map_err(|e| vec![json_error(shown, text, &e)])?;
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
    let kinds = lab.plugin.step_kinds();
    for raw in &file.steps {
        let slice = raw.get();
        let offset = slice.as_ptr() as usize - text.as_ptr() as usize;
        let pos = Pos::of_offset(text, offset);
        match lab.plugin.parse_step(slice) {
            Ok(step) => steps.push(PlacedStep {
                step,
                pos,
                span: offset..offset + slice.len(),
            }),
            Err(e) => {
                // The error is placed in the step's text; place it in the file's.
                let mut d = step_error(shown, slice, &e, &kinds);
                if let Some(inner) = d.pos {
                    d.pos = Some(if inner.line == 1 {
                        Pos {
                            line: pos.line,
                            col: pos.col + inner.col - 1,
                        }
                    } else {
                        Pos {
                            line: pos.line + inner.line - 1,
                            col: inner.col,
                        }
                    });
                }
                problems.push(d);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let targets = super::settings::resolve(lab, &file.targets);
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
        plugin: super::LabPlugin(lab.plugin.clone()),
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

/// Reads the given scenario files, collecting every problem of every file.
pub fn load_files(
    lab: &Lab,
    paths: &[std::path::PathBuf],
) -> Result<Vec<Scenario>, Vec<Diagnostic>> {
    let mut scenarios = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        let shown = crate::lab::kit::shown_path(&lab.kit, path);
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
