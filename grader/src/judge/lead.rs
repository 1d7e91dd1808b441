//! "Start here": what the failures of one grading have in common, and the one place to
//! look first.
//!
//! A mistake in the code under test usually breaks many scenarios the same way: a
//! breaker that opens one failure late fails every scenario that first opens the
//! circuit, at the step that checks it, whatever the scenario is about. So the lead is
//! not the first failure in the rubric's order but the most common way of failing:
//!
//! 1. requests stuck inside the code under test come first: they stop every scenario
//!    that meets them, and their hint says what the harness saw (whose lock);
//! 2. otherwise the failures at a step are grouped by what differed (the kind of step,
//!    what was expected and what was observed, with the scenario's target names left
//!    out), deterministic scenarios before race checks, which fail the same mistakes
//!    less directly; the largest group wins;
//! 3. within it, the simplest scenario (fewest steps, then the earliest failing step)
//!    is the one to look at, and its hint goes with the lead.
//!
//! Nothing here is about one lab: steps are known by their plug-in's words.

use crate::report::{Lead, ScenarioResult, Status};
use crate::scenario::Scenario;

/// One failure at a step, as the lead weighs it.
struct Candidate<'a> {
    result: &'a ScenarioResult,
    scenario: &'a Scenario,
    /// What differed, with target names left out.
    symptom: String,
}

/// The lead of a grading, or `None` when nothing failed at a step.
pub fn lead(results: &[ScenarioResult], scenarios: &[Scenario]) -> Option<Lead> {
    let failed: Vec<Candidate<'_>> = results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .filter_map(|r| {
            let scenario = scenarios.iter().find(|s| s.name == r.name)?;
            let failure = r.failure.as_ref()?;
            let kind = failure.action.split_whitespace().next().unwrap_or_default();
            let symptom = if r.stuck {
                "stuck".to_owned()
            } else {
                format!(
                    "{kind}|{}|{}",
                    anonymous(&failure.expected, scenario),
                    anonymous(&failure.observed, scenario)
                )
            };
            Some(Candidate {
                result: r,
                scenario,
                symptom,
            })
        })
        .collect();
    let stuck: Vec<&Candidate<'_>> = failed.iter().filter(|c| c.result.stuck).collect();
    let deterministic: Vec<&Candidate<'_>> = failed.iter().filter(|c| !c.scenario.race).collect();
    let pool: Vec<&Candidate<'_>> = if !stuck.is_empty() {
        stuck
    } else if !deterministic.is_empty() {
        deterministic
    } else {
        failed.iter().collect()
    };
    // Groups in the order of their simplest member, so ties go to the simpler one.
    let mut ordered = pool.clone();
    ordered.sort_by_key(|c| simplicity(c));
    let mut groups: Vec<Vec<&Candidate<'_>>> = Vec::new();
    for c in ordered {
        match groups.iter_mut().find(|g| g[0].symptom == c.symptom) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    // The largest group; the first of equals (its simplest scenario is the simplest).
    let group = groups.iter().rev().max_by_key(|g| g.len())?;
    let first = group[0];
    let failure = first.result.failure.as_ref()?;
    Some(Lead {
        scenario: first.result.name.clone(),
        step: failure.step,
        action: failure.action.clone(),
        expected: failure.expected.clone(),
        observed: failure.observed.clone(),
        shared_by: group.len(),
        hint: first.result.hint.clone(),
    })
}

/// Simpler first: fewer steps, then an earlier failing step, then the rubric's order
/// (kept by the stable sort).
fn simplicity(c: &Candidate<'_>) -> (usize, usize) {
    let step = c.result.failure.as_ref().map_or(usize::MAX, |f| f.step);
    (c.scenario.steps.len(), step)
}

/// `text` with the scenario's target names, counts (`3x`) and repeats left out, so the
/// same difference reads the same in every scenario.
fn anonymous(text: &str, scenario: &Scenario) -> String {
    let mut text = text.to_owned();
    for t in &scenario.targets {
        text = text.replace(&t.name, "_");
    }
    let mut parts: Vec<String> = text
        .split(", ")
        .map(|p| {
            let p = p.trim();
            match p.split_once("x ") {
                Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest.to_owned(),
                _ => p.to_owned(),
            }
        })
        .collect();
    parts.sort();
    parts.dedup();
    parts.join(", ")
}
