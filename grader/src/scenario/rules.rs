//! What a scenario says about the lab's rules: the rule it is about (`rule`, or a hint of
//! its own in a lab without rules) and the rules some of its steps check (`checks`),
//! checked against the lab's `rules.json`.

use super::model::ScenarioFile;
use super::parsed::Parsed;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::lab::Lab;

/// A rule some steps of a scenario check, as the judge reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRule {
    /// The rule's id.
    pub rule: String,
    /// The steps, counted from 1.
    pub steps: Vec<usize>,
    /// Only when the step observed this word and did not expect it.
    pub seen: Option<String>,
    /// Only when the step expected this word and did not observe it.
    pub instead_of: Option<String>,
}

/// The `checks` of a scenario file, as the judge reads them.
pub fn step_rules(file: &ScenarioFile<'_>) -> Vec<StepRule> {
    file.checks
        .iter()
        .map(|c| StepRule {
            rule: c.rule.clone(),
            steps: c.steps.iter().map(|s| *s as usize).collect(),
            seen: c.seen.clone(),
            instead_of: c.instead_of.clone(),
        })
        .collect()
}

/// Every problem with the rules a scenario file names.
pub fn problems(lab: &Lab, parsed: &Parsed<'_>, file: &ScenarioFile<'_>) -> Vec<Diagnostic> {
    let source = &parsed.source;
    let header = &parsed.header;
    let ids = lab.rules.ids();
    let rules_file =
        crate::lab::kit::shown_path(&lab.kit, &lab.dir.join(crate::lab::rules::FILE_NAME));
    let mut problems = Vec::new();
    let unknown = |id: &str, at: usize| -> Diagnostic {
        let d = source.at(
            at,
            if ids.is_empty() {
                format!(
                    "rule `{id}`: {} has no rules ({} does not exist)",
                    lab.manifest.name,
                    rules_file.display()
                )
            } else {
                format!("unknown rule `{id}`")
            },
        );
        match did_you_mean(id, ids.iter().copied()) {
            Some(close) => d.help(format!("did you mean `{close}`?")),
            None if ids.is_empty() => d.help("give the scenario a \"hint\" of its own instead"),
            None => d.help(format!(
                "the rules of {} are listed in {}",
                lab.manifest.name,
                rules_file.display()
            )),
        }
    };
    match (&file.rule, &file.hint) {
        (Some(_), Some(_)) => problems.push(
            source
                .at(
                    header.key("hint"),
                    "the scenario names a rule and gives a hint of its own: the rule's hint is the one shown",
                )
                .help(format!(
                    "remove \"hint\" (change the rule's hint in {} if it needs other words)",
                    rules_file.display()
                )),
        ),
        (None, None) => problems.push(
            source
                .at(header.key("name"), "the scenario names no rule and gives no hint")
                .help(if ids.is_empty() {
                    "add a \"hint\": the mistake this scenario usually catches".to_owned()
                } else {
                    format!(
                        "add \"rule\": the id of the rule it is about, one of those in {}",
                        rules_file.display()
                    )
                }),
        ),
        _ => {}
    }
    if let Some(id) = file
        .rule
        .as_deref()
        .filter(|id| lab.rules.get(id).is_none())
    {
        problems.push(unknown(id, header.key("rule")));
    }
    let checks = source.key_in(header.key("checks")..source.text.len(), "checks");
    let count = parsed.steps.len();
    for (i, c) in file.checks.iter().enumerate() {
        // The i-th entry's `rule` key, after the `checks` key.
        let at = source
            .text
            .get(checks..)
            .and_then(|rest| rest.match_indices("\"rule\"").nth(i))
            .map_or(checks, |(off, _)| checks + off);
        if lab.rules.get(&c.rule).is_none() {
            problems.push(unknown(&c.rule, at));
        }
        if c.steps.is_empty() {
            problems.push(
                source
                    .at(at, format!("the check of rule `{}` names no step", c.rule))
                    .help("list the steps (counted from 1) that check it"),
            );
        }
        if parsed.steps_read {
            for n in c.steps.iter().filter(|n| **n == 0 || **n as usize > count) {
                problems.push(
                    source
                        .at(
                            at,
                            format!(
                                "the check of rule `{}` names step {n}, but the scenario has {}",
                                c.rule,
                                grader_lab::quantity(count as u64, "step")
                            ),
                        )
                        .help("name steps of the scenario, counted from 1"),
                );
            }
        }
        if c.seen.as_deref().is_some_and(|w| w.trim().is_empty()) {
            problems.push(
                source
                    .at(at, format!("the check of rule `{}` has an empty `seen`", c.rule))
                    .help("name a word the step observes when this rule is broken, or leave `seen` out"),
            );
        }
        if c.instead_of.as_deref().is_some_and(|w| w.trim().is_empty()) {
            problems.push(
                source
                    .at(at, format!("the check of rule `{}` has an empty `instead_of`", c.rule))
                    .help("name a word the step expects and does not observe when this rule is broken, or leave `instead_of` out"),
            );
        }
    }
    problems
}
