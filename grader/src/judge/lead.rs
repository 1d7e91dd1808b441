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
//! 2. otherwise the failures at a step are grouped by what differed: what was observed
//!    that was not expected, or else what was expected and not observed, with the
//!    scenario's target names left out, whatever kind of step it showed at (a request
//!    that waits on the fake clock ends at the `advance` that wakes it, so the same
//!    wrong answer shows at a send in one scenario and at an advance in another).
//!    Deterministic scenarios come before race checks, which fail the same mistakes
//!    less directly; the largest group wins;
//! 3. within it, the simplest scenario (the earliest failing step, then fewest steps)
//!    whose hint applies at the step that failed is the one to look at, and its hint
//!    goes with the lead. A failure before the steps a scenario's hint is about
//!    (`hint_from_step`) only sets the scene wrong: when no scenario of the group
//!    failed where its hint applies, the lead is the simplest one, told as what was
//!    observed there, without a guess at the cause.
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
            let symptom = if r.stuck {
                "stuck".to_owned()
            } else {
                unexpected(&failure.expected, &failure.observed, scenario)
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
    // Its simplest member whose hint applies where it failed; if none, the simplest,
    // told as what was observed.
    let first = group
        .iter()
        .find(|c| c.result.hint.is_some())
        .unwrap_or(&group[0]);
    let failure = first.result.failure.as_ref()?;
    Some(Lead {
        scenario: first.result.name.clone(),
        step: failure.step,
        at: failure.at.clone(),
        settings: first.result.settings.clone(),
        action: failure.action.clone(),
        expected: failure.expected.clone(),
        observed: failure.observed.clone(),
        shared_by: group.len(),
        hint: first.result.hint.clone(),
    })
}

/// Simpler first: an earlier failing step (fewer steps to read up to the difference),
/// then fewer steps, then the rubric's order (kept by the stable sort).
fn simplicity(c: &Candidate<'_>) -> (usize, usize) {
    let step = c.result.failure.as_ref().map_or(usize::MAX, |f| f.step);
    (step, c.scenario.steps.len())
}

/// What was observed and not expected, or else what was expected and not observed,
/// with the scenario's target names, counts (`3x`) and repeats left out, so the same
/// wrong answer reads the same in every scenario whatever else the step expected: a
/// bulkhead that leaks a slot answers E905 where one scenario expects E500 and another
/// OK.
fn unexpected(expected: &str, observed: &str, scenario: &Scenario) -> String {
    let expected = parts(expected, scenario);
    let observed = parts(observed, scenario);
    let minus = |a: &[String], b: &[String]| -> Vec<String> {
        let mut left = b.to_vec();
        let mut out: Vec<String> = Vec::new();
        for p in a {
            match left.iter().position(|q| q == p) {
                Some(i) => {
                    left.remove(i);
                }
                None => out.push(p.clone()),
            }
        }
        out.sort();
        out.dedup();
        out
    };
    let extra = minus(&observed, &expected);
    if extra.is_empty() {
        format!("missing {}", minus(&expected, &observed).join(", "))
    } else {
        extra.join(", ")
    }
}

/// The parts of `text` (split at `, `), each `3x part` as three, with the scenario's
/// target names left out.
fn parts(text: &str, scenario: &Scenario) -> Vec<String> {
    let mut text = text.to_owned();
    for t in &scenario.targets {
        text = text.replace(&t.name, "_");
    }
    let mut out = Vec::new();
    for p in text.split(", ").map(str::trim) {
        match p.split_once("x ") {
            Some((n, rest)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                let n: usize = n.parse().unwrap_or(1);
                out.extend(std::iter::repeat_n(rest.to_owned(), n.min(1000)));
            }
            _ => out.push(p.to_owned()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Failure;

    /// A scenario of a lab under another name: the lead reads only its name, targets,
    /// kind (race or not) and number of steps.
    fn scenario(name: &str, from: &Scenario) -> Scenario {
        Scenario {
            name: name.to_owned(),
            ..from.clone()
        }
    }

    /// An ordinary scenario of the kit's first lab (any lab's will do, and a student
    /// edition holds only some), with steps enough for the failures below.
    fn a_scenario() -> Scenario {
        let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let labs = crate::labs::registered();
        let name = crate::lab::lab_names(&kit)
            .expect("the kit's labs")
            .into_iter()
            .find(|n| labs.get(n).is_some())
            .expect("a lab this grader knows");
        let lab = crate::lab::Lab::load(&labs, &kit, &name).expect("the lab loads");
        let selection = crate::grade::select(&lab, false, &[]).expect("its scenarios");
        selection
            .scenarios
            .into_iter()
            .find(|s| !s.race && s.steps.len() >= 5)
            .expect("a scenario of five steps or more")
    }

    /// A failure of `name` at `step` (`action`), with its hint.
    fn failed(
        name: &str,
        step: usize,
        action: &str,
        expected: &str,
        observed: &str,
    ) -> ScenarioResult {
        ScenarioResult {
            name: name.to_owned(),
            title: String::new(),
            category: String::new(),
            status: Status::Failed,
            score: 0,
            max_score: 5,
            message: String::new(),
            failure: Some(Failure {
                step,
                at: "00:00:00.000".to_owned(),
                action: action.to_owned(),
                expected: expected.to_owned(),
                observed: observed.to_owned(),
            }),
            settings: Vec::new(),
            hint: Some(format!("the hint of {name}")),
            timeline: Vec::new(),
            backtrace: None,
            stopped_at: None,
            interleaving: None,
            stuck: false,
        }
    }

    #[test]
    fn the_same_wrong_answer_at_a_send_and_at_an_advance_is_one_symptom() {
        let base = a_scenario();
        let names = ["sent", "woken", "woken_too", "other", "other_too"];
        let scenarios: Vec<Scenario> = names.iter().map(|n| scenario(n, &base)).collect();
        // Two scenarios fail alike at a send; three see one checkout confirmed without a
        // quote, once when it is sent and twice when an advance wakes it.
        let results = [
            failed("other", 2, "send 1 checkout", "unavailable", "pausing"),
            failed("other_too", 2, "send 1 checkout", "refused", "pausing"),
            failed(
                "sent",
                3,
                "send 1 checkout",
                "unavailable",
                "confirmed_at_0",
            ),
            failed(
                "woken",
                3,
                "advance the clock by 300 ms",
                "1x timeout",
                "1x confirmed_at_0",
            ),
            failed(
                "woken_too",
                4,
                "advance the clock by 1 ms",
                "1x unavailable",
                "1x confirmed_at_0",
            ),
        ];
        let lead = lead(&results, &scenarios).expect("a lead");
        assert_eq!(lead.shared_by, 3);
        assert_eq!(lead.scenario, "sent");
        assert_eq!(lead.hint.as_deref(), Some("the hint of sent"));
    }
}
