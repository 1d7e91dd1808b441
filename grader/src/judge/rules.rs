//! Which of the lab's rules a failure shows broken.
//!
//! A failure at a step points at the rules its scenario says that step checks (an entry
//! of its `checks`, then its own `rule` over `hint_from_step`..`hint_until_step`), and at
//! every rule of the lab's `rules.json` whose signs match what was seen there, whatever
//! the scenario is about. The first rule the scenario names for the step is the failure's
//! own; "Start here" weighs all of them across the failures of a grading (`lead`).
//!
//! What was seen is the symptom: what the step observed and did not expect, or else
//! what it expected and did not observe, with target names and counts left out, so the
//! same wrong answer reads the same in every scenario.

use grader_protocol::Violation;

use crate::report::{Failure, Pointer, RuleRef};
use crate::scenario::Scenario;

/// What differed at a failing step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symptom {
    /// The parts observed and not expected, sorted, once each.
    pub extra: Vec<String>,
    /// The parts expected and not observed, sorted, once each.
    pub missing: Vec<String>,
    /// Every part observed.
    pub observed: Vec<String>,
}

impl Symptom {
    /// What differed between `expected` and `observed` at a step of `scenario`.
    pub fn of(expected: &str, observed: &str, scenario: &Scenario) -> Symptom {
        let expected = parts(expected, scenario);
        let observed = parts(observed, scenario);
        Symptom {
            extra: minus(&observed, &expected),
            missing: minus(&expected, &observed),
            observed,
        }
    }

    /// The symptom in words, the same in every scenario: `E904`, `_ breaker CLOSED`,
    /// `missing held`.
    pub fn key(&self) -> String {
        if self.extra.is_empty() {
            format!("missing {}", self.missing.join(", "))
        } else {
            self.extra.join(", ")
        }
    }

    /// Whether `word` was observed and not expected.
    pub fn seen(&self, word: &str) -> bool {
        has_word(&self.extra, word)
    }

    /// Whether `word` was expected and not observed.
    pub fn instead_of(&self, word: &str) -> bool {
        has_word(&self.missing, word)
    }

    /// Whether every part observed is `word` or has it.
    pub fn only(&self, word: &str) -> bool {
        !self.observed.is_empty()
            && self
                .observed
                .iter()
                .all(|p| has_word(std::slice::from_ref(p), word))
    }
}

/// Whether one of `parts` is `word` or has it as one of its words.
fn has_word(parts: &[String], word: &str) -> bool {
    parts
        .iter()
        .any(|p| p == word || p.split([' ', ',', ';', '[', ']']).any(|w| w == word))
}

/// The parts of `a` not in `b` (as many times as `b` lacks them), sorted, once each.
fn minus(a: &[String], b: &[String]) -> Vec<String> {
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

/// What a failure at step `failure.step` of `scenario` points at: the rules the scenario
/// names for the step (its own first), then the rules whose signs match; or, when no rule
/// does, its symptom.
pub fn pointers(scenario: &Scenario, failure: &Failure) -> Vec<Pointer> {
    let symptom = Symptom::of(&failure.expected, &failure.observed, scenario);
    let step = failure.step;
    let mut out: Vec<Pointer> = Vec::new();
    let mut push = |id: &str, named: bool| {
        if !out
            .iter()
            .any(|p| matches!(p, Pointer::Rule { id: i, .. } if i == id))
        {
            out.push(Pointer::Rule {
                id: id.to_owned(),
                named,
            });
        }
    };
    for c in &scenario.checks {
        let seen = c.seen.as_deref().is_none_or(|w| symptom.seen(w))
            && c.instead_of
                .as_deref()
                .is_none_or(|w| symptom.instead_of(w));
        if c.steps.contains(&step) && seen && scenario.rules.get(&c.rule).is_some() {
            push(&c.rule, true);
        }
    }
    if let Some(own) = &scenario.rule {
        if own_steps(scenario, step) {
            push(own, true);
        }
    }
    let after_advance = after_advance(scenario, step);
    for rule in &scenario.rules.rules {
        let signed = rule.signs.iter().any(|s| {
            s.seen.as_deref().is_none_or(|w| symptom.seen(w))
                && (s.instead_of.is_empty() || s.instead_of.iter().any(|w| symptom.instead_of(w)))
                && (!s.only || s.seen.as_deref().is_some_and(|w| symptom.only(w)))
                && (!s.after_advance || after_advance)
        });
        if signed {
            push(&rule.id, false);
        }
    }
    if out.is_empty() {
        out.push(Pointer::Symptom(symptom.key()));
    }
    out
}

/// What a failure of requests stuck in the code under test points at: the lab's rule
/// for stuck requests, or the symptom `stuck`.
pub fn stuck_pointers(scenario: &Scenario) -> Vec<Pointer> {
    match scenario.rules.stuck() {
        Some(rule) => vec![Pointer::Rule {
            id: rule.id.clone(),
            named: true,
        }],
        None => vec![Pointer::Symptom("stuck".to_owned())],
    }
}

/// What a broken race property points at: the rule that lists it, or what broke.
pub fn violation_pointers(scenario: &Scenario, v: &Violation) -> Vec<Pointer> {
    match scenario.rules.for_property(&v.property) {
        Some(rule) => vec![Pointer::Rule {
            id: rule.id.clone(),
            named: true,
        }],
        None => vec![Pointer::Symptom(format!("race: {}", v.property))],
    }
}

/// The failure's own rule: the first the scenario names for the step, else the first
/// whose sign matched.
pub fn own_rule(scenario: &Scenario, pointers: &[Pointer]) -> Option<RuleRef> {
    let first = |named: bool| {
        pointers.iter().find_map(|p| match p {
            Pointer::Rule { id, named: n } if *n == named => Some(id.as_str()),
            _ => None,
        })
    };
    rule_ref(scenario, first(true).or_else(|| first(false))?)
}

/// The rule `id` of the scenario's lab, as a report names it.
pub fn rule_ref(scenario: &Scenario, id: &str) -> Option<RuleRef> {
    scenario.rules.get(id).map(|r| RuleRef {
        id: r.id.clone(),
        rule: r.rule.clone(),
    })
}

/// Whether step `step` (from 1) is one the scenario's own rule or hint is about.
pub fn own_steps(scenario: &Scenario, step: usize) -> bool {
    step >= scenario.hint_from_step && step <= scenario.hint_until_step
}

/// Whether the clock moved since the last step before `step` (from 1) that expects
/// something, or moves in that step itself: the failing step is the first check after a
/// wait.
fn after_advance(scenario: &Scenario, step: usize) -> bool {
    let upto = step.min(scenario.steps.len());
    if let Some(this) = scenario
        .steps
        .get(upto.saturating_sub(1))
        .filter(|_| upto > 0)
    {
        if scenario.plugin.advances_clock(&this.step) > 0 {
            return true;
        }
    }
    let before = &scenario.steps[..upto.saturating_sub(1)];
    for placed in before.iter().rev() {
        if scenario.plugin.advances_clock(&placed.step) > 0 {
            return true;
        }
        if scenario.plugin.expectation(&placed.step).is_some() {
            return false;
        }
    }
    false
}
