//! Reading scenario files, with every error placed at its line and column.

use std::path::Path;

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::model::{SCENARIO_FORMAT_VERSION, ScenarioFile};
use super::parsed::{Header, Parsed};
use super::{PlacedStep, Scenario, recover};
use crate::diagnostic::{Diagnostic, Pos, Source};
use crate::lab::Lab;

/// Every mistake of `text` (a file of people's, shown as `shown`) as a `T`, given serde's
/// first, each placed: for files read whole, such as mutants.
pub fn every_json_mistake<T: serde::de::DeserializeOwned>(
    shown: &Path,
    text: &str,
    first: serde_json::Error,
) -> Vec<Diagnostic> {
    let parse = |t: &str| serde_json::from_str::<T>(t).map(|_| ());
    let mistakes = recover::every_mistake(text, 0..text.len(), first, parse);
    let mut problems = mistake_problems(&Source::new(shown, text), mistakes, &[]);
    problems.sort_by_key(|d| d.pos);
    problems
}

/// Problems for the mistakes of one JSON value of `source`. An unknown word where the
/// lab's step kinds are allowed is an unknown kind of step.
fn mistake_problems(
    source: &Source<'_>,
    mistakes: recover::Mistakes,
    kinds: &[String],
) -> Vec<Diagnostic> {
    let mut problems: Vec<Diagnostic> = mistakes
        .list
        .into_iter()
        .map(|m| {
            let message = if !kinds.is_empty() && m.allowed == kinds {
                m.message.replacen("unknown word", "unknown step", 1)
            } else {
                m.message
            };
            let d = source.at(m.offset, message);
            match m.help {
                Some(help) => d.help(help),
                None => d,
            }
        })
        .collect();
    if mistakes.more {
        if let Some(last) = problems.last() {
            let more = Diagnostic {
                message: format!(
                    "more problems here than the {} shown; fix these and run again",
                    recover::MAX_MISTAKES
                ),
                help: None,
                ..last.clone()
            };
            problems.push(more);
        }
    }
    problems
}

/// Reads and parses one scenario file. `shown` is the path used in messages.
///
/// Every problem is reported in one go: each mistake of the envelope and of each step (a
/// step with one is left out of the checks of what the steps mean), then what
/// [`super::validate`] finds in what could be read.
pub fn parse(lab: &Lab, text: &str, shown: &Path) -> Result<Scenario, Vec<Diagnostic>> {
    let source = Source::new(shown, text);
    let mut problems = Vec::new();
    let envelope = match serde_json::from_str::<ScenarioFile<'_>>(text) {
        Ok(file) => Some(file),
        Err(e) => {
            let syntax = e.is_syntax() || e.is_eof();
            let parse = |t: &str| serde_json::from_str::<ScenarioFile<'_>>(t).map(|_| ());
            let mistakes = recover::every_mistake(text, 0..text.len(), e, parse);
            problems.extend(mistake_problems(&source, mistakes, &[]));
            if syntax {
                return Err(problems);
            }
            None
        }
    };
    let Some(top) = recover::members(text, 0..text.len()) else {
        // Not an object at all: serde's words about it (a sequence of some length) help
        // nobody.
        return Err(vec![
            source
                .at(
                    0,
                    "a scenario file is one JSON object, `{...}`, and this is not one",
                )
                .help(format!(
                    "copy a scenario of the lab to start from; the lab's {} lists every field",
                    super::schema::FILE_NAME
                )),
        ]);
    };
    let header = Header::read(text, &top);
    if let Some(v) = header.format_version {
        if v != u64::from(SCENARIO_FORMAT_VERSION) {
            problems.push(
                source
                    .at(
                        header.key("format_version"),
                        format!(
                            "format_version {v} is not supported; this grader reads version {SCENARIO_FORMAT_VERSION}"
                        ),
                    )
                    .help(format!("set \"format_version\": {SCENARIO_FORMAT_VERSION}")),
            );
        }
    }
    let member = |key: &str| top.iter().find(|m| m.key == key).map(|m| m.value.clone());
    let kinds = lab.plugin.step_kinds();
    let mut steps = Vec::new();
    let step_ranges = member("steps").and_then(|r| recover::elements(text, r));
    let steps_read = step_ranges.is_some();
    for range in step_ranges.unwrap_or_default() {
        let slice = &text[range.clone()];
        match lab.plugin.parse_step(slice) {
            Ok(step) => steps.push(Some(PlacedStep {
                step,
                pos: source.lines.pos(range.start),
                span: range,
            })),
            Err(e) => {
                // The file is valid JSON, so a syntax error in a step is serde's way of
                // saying it is not an object with one key.
                if e.is_syntax() || e.is_eof() {
                    problems.push(
                        source
                            .at(
                                range.start,
                                "a step is an object with exactly one key: the kind of step",
                            )
                            .help(format!("one of: {}", kinds.join(", "))),
                    );
                    steps.push(None);
                    continue;
                }
                let parse = |t: &str| lab.plugin.parse_step(t).map(|_| ());
                let mistakes = recover::every_mistake(text, range, e, parse);
                problems.extend(mistake_problems(&source, mistakes, &kinds));
                steps.push(None);
            }
        }
    }
    let mut overrides = BTreeMap::new();
    for m in member("targets")
        .and_then(|r| recover::members(text, r))
        .unwrap_or_default()
    {
        if let Ok(raw) = serde_json::from_str::<&RawValue>(&text[m.value.clone()]) {
            overrides.entry(m.key).or_insert(raw);
        }
    }
    let parsed = Parsed {
        source,
        header,
        steps,
        steps_read,
        overrides,
    };
    problems.extend(super::validate::check(lab, &parsed));
    if let Some(f) = &envelope {
        problems.extend(hint_step_problems(
            &parsed,
            f.hint_from_step,
            f.hint_until_step,
        ));
        problems.extend(super::rules::problems(lab, &parsed, f));
    }
    let (Some(file), true) = (envelope, problems.is_empty()) else {
        // In file order, as a compiler lists them.
        problems.sort_by_key(|d| d.pos);
        return Err(problems);
    };
    let targets = super::settings::resolve(lab, &parsed.overrides);
    let changed_settings = targets
        .iter()
        .filter(|t| parsed.overrides.contains_key(&t.name))
        .map(|t| {
            let words = lab
                .plugin
                .describe_settings(&t.settings)
                .unwrap_or_else(|| t.settings.to_string());
            format!("{}: {words}", t.name)
        })
        .collect();
    let generated = lab
        .manifest
        .generated
        .as_ref()
        .is_some_and(|g| g.category == file.category);
    let checks = super::rules::step_rules(&file);
    Ok(Scenario {
        path: shown.to_path_buf(),
        name: file.name,
        title: file.title,
        category: file.category,
        points: file.points,
        visibility: file.visibility,
        smoke: file.smoke,
        race: file.race,
        description: file.description,
        hint: match &file.rule {
            Some(id) => lab
                .rules
                .get(id)
                .map(|r| r.hint.clone())
                .unwrap_or_default(),
            None => file.hint.clone().unwrap_or_default(),
        },
        checks,
        rule: file.rule,
        rules: lab.rules.clone(),
        hint_from_step: file.hint_from_step.map_or(1, |n| n as usize),
        hint_until_step: file
            .hint_until_step
            .map_or(parsed.steps.len(), |n| n as usize),
        targets,
        changed_settings,
        steps: parsed.steps.into_iter().flatten().collect(),
        plugin: super::LabPlugin(lab.plugin.clone()),
        generated,
    })
}

/// The steps a hint is about must be steps of the scenario, the first before the last.
fn hint_step_problems(
    parsed: &Parsed<'_>,
    from: Option<u32>,
    until: Option<u32>,
) -> Vec<Diagnostic> {
    let count = parsed.steps.len();
    let mut problems = Vec::new();
    if !parsed.steps_read {
        return problems;
    }
    for (key, n) in [("hint_from_step", from), ("hint_until_step", until)] {
        if let Some(n) = n.filter(|n| *n as usize > count) {
            let at = parsed.header.key(key);
            problems.push(
                parsed
                    .source
                    .at(
                        at,
                        format!(
                            "{key} is {n}, but the scenario has {}",
                            grader_lab::quantity(count as u64, "step")
                        ),
                    )
                    .help("name a step of the scenario, counted from 1"),
            );
        }
    }
    if let (Some(a), Some(b)) = (from, until) {
        if a > b {
            problems.push(
                parsed
                    .source
                    .at(
                        parsed.header.key("hint_until_step"),
                        format!("hint_until_step is {b}, before hint_from_step {a}"),
                    )
                    .help("the hint is about the steps from hint_from_step to hint_until_step"),
            );
        }
    }
    problems
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
