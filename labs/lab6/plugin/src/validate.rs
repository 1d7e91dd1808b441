//! What lab 6's steps and settings must mean, checked before any code runs: dependencies,
//! answers, outcomes, states and metrics against the lab, counts that add up, a `release`
//! that has held calls to release, concurrent sends that cannot depend on thread timing,
//! and records written the way the shop prints them.

use std::collections::BTreeMap;

use grader_lab::sends::{self, Holds};
use grader_lab::{Checker, records};
use lab6_harness::wire::Settings;

use crate::steps::{
    BROWSE_WORDS, CHECKOUT_WORDS, MAX_INSTANCES, MAX_LAYERS, METRICS, OUTCOME_WORDS, RELEASE_WORDS,
    SCRIPT_WORDS, STATES, Step, WAKE_ORDERS,
};
use crate::words::{NOUNS, RECORDS};

/// Problems with one dependency's settings, as (field, message).
pub fn settings(s: &Settings) -> Vec<(&'static str, String)> {
    let mut problems = Vec::new();
    let fields = [
        ("max_active", s.max_active),
        ("budget_ms", s.budget_ms),
        ("max_attempts", s.max_attempts),
        ("window", s.window),
        ("minimum_calls", s.minimum_calls),
        ("probes", s.probes),
    ];
    for (field, value) in fields {
        if value == 0 {
            problems.push((field, format!("{field} must be 1 or more")));
        }
    }
    if s.minimum_calls > s.window {
        problems.push((
            "minimum_calls",
            format!(
                "minimum_calls ({}) is more than the window holds ({}): the circuit could never open",
                s.minimum_calls, s.window
            ),
        ));
    }
    if !(1..=100).contains(&s.failure_rate_percent) {
        let message = "failure_rate_percent must be from 1 to 100".to_owned();
        problems.push(("failure_rate_percent", message));
    }
    if s.jitter_percent > 100 {
        let message = "jitter_percent must be from 0 to 100".to_owned();
        problems.push(("jitter_percent", message));
    }
    problems
}

/// Whether a step checks anything.
pub fn expects_something(step: &Step) -> bool {
    match step {
        Step::Send(x) => x.expect.is_some() || x.expect_each.is_some(),
        Step::SendConcurrent(x) => x.expect.is_some(),
        Step::Release(x) => x.expect.is_some() || x.count.is_some(),
        Step::Advance(x) => x.expect.is_some(),
        Step::Expect(_) | Step::ExpectTransitions(_) => true,
        Step::Script(_) | Step::WakeOrder(_) => false,
    }
}

/// The words a request to `target` can end with.
fn outcomes_of(target: &str) -> &'static [&'static str] {
    match target {
        "shipping" => &CHECKOUT_WORDS,
        "catalog" => &BROWSE_WORDS,
        _ => &OUTCOME_WORDS,
    }
}

/// Checks every step, in order.
pub fn steps(steps: &[&Step], c: &mut Checker<'_>) {
    let mut holds = Holds::new();
    for (i, step) in steps.iter().enumerate() {
        if let Some(target) = step.target() {
            if !c.target(i, target) {
                continue;
            }
        }
        if let Some(n) = step.instance() {
            if !(1..=MAX_INSTANCES).contains(&n) {
                let message = format!("instance must be from 1 to {MAX_INSTANCES}");
                c.problem(i, "instance", message, None);
            }
        }
        match step {
            Step::Script(x) => {
                if c.one_of(i, "answer", &x.answer, &SCRIPT_WORDS, "answer") {
                    holds.script(&x.target, x.answer == "hold");
                }
            }
            Step::Send(x) => {
                let count = x.count.unwrap_or(1);
                at_least_one(c, i, count);
                if x.layers.is_some_and(|n| !(1..=MAX_LAYERS).contains(&n)) {
                    let message = format!("layers must be from 1 to {MAX_LAYERS}");
                    c.problem(i, "layers", message, None);
                }
                let words = outcomes_of(&x.target);
                if let Some(outcome) = &x.expect {
                    c.one_of(i, "expect", outcome, words, "outcome");
                }
                for outcome in x.expect_each.iter().flatten() {
                    c.one_of(i, "expect_each", outcome, words, "outcome");
                }
                let each = x.expect_each.as_deref();
                sends::check_each(c, i, count, x.expect.is_some(), each, NOUNS);
                holds.sent(&x.target);
            }
            Step::SendConcurrent(x) => {
                at_least_one(c, i, x.count);
                if !holds.sent_together(&x.target) {
                    sends::together_unheld(c, i, &x.target, NOUNS);
                }
                if let Some(expect) = &x.expect {
                    counted(c, i, expect, outcomes_of(&x.target));
                    sends::check_sum(c, i, expect, x.count, NOUNS);
                }
            }
            Step::Release(x) => {
                c.one_of(i, "answer", &x.answer, &RELEASE_WORDS, "answer");
                if let Some(expect) = &x.expect {
                    counted(c, i, expect, outcomes_of(&x.target));
                }
                if x.count == Some(0) {
                    let message = "count must be at least 1 (leave it out to release all)";
                    c.problem(i, "count", message, None);
                }
                if !holds.can_release(&x.target) {
                    sends::release_unheld(c, i, &x.target, NOUNS);
                }
            }
            Step::Advance(x) => {
                if x.ms == 0 {
                    c.problem(i, "ms", "advancing by 0 ms does nothing", None);
                }
                if let Some(expect) = &x.expect {
                    counted(c, i, expect, &OUTCOME_WORDS);
                }
            }
            Step::WakeOrder(order) => {
                c.one_of(i, "wake_order", order, &WAKE_ORDERS, "order");
            }
            Step::Expect(x) => expect(c, i, x),
            Step::ExpectTransitions(lines) => {
                records::check_lines(c, i, lines, RECORDS, records::transition);
            }
        }
    }
}

fn at_least_one(c: &mut Checker<'_>, step: usize, count: u32) {
    if count == 0 {
        c.problem(step, "count", "count must be at least 1", None);
    }
}

/// Checks the words of an outcome count.
fn counted(c: &mut Checker<'_>, step: usize, expect: &BTreeMap<String, u32>, words: &[&str]) {
    for outcome in expect.keys() {
        c.one_of(step, outcome, outcome, words, "outcome");
    }
}

fn expect(c: &mut Checker<'_>, i: usize, x: &crate::steps::ExpectStep) {
    if let Some(state) = &x.state {
        c.one_of(i, "state", state, &STATES, "state");
    }
    for answer in x.answered.iter().flat_map(BTreeMap::keys) {
        c.one_of(i, answer, answer, &RELEASE_WORDS, "answer");
    }
    for metric in x.metrics.iter().flat_map(BTreeMap::keys) {
        c.one_of(i, metric, metric, &METRICS, "metric");
    }
    let empty = x.state.is_none()
        && x.calls.is_none()
        && x.in_flight.is_none()
        && x.peak.is_none()
        && x.answered.is_none()
        && x.held.is_none()
        && x.queued.is_none()
        && x.pausing.is_none()
        && x.metrics.is_none();
    if empty {
        c.problem(
            i,
            "expect",
            "this expect step checks nothing",
            Some(
                "give at least one of: state, calls, in_flight, peak, answered, held, queued, pausing, metrics"
                    .into(),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TARGETS: [&str; 2] = ["shipping", "catalog"];

    #[test]
    fn records_are_read_as_the_shop_prints_them() {
        let transition = |line| records::transition(line, &TARGETS, RECORDS);
        assert_eq!(transition(RECORDS.example), Ok(()));
        assert_eq!(
            transition("00:00:10.000 shipping OPEN -> HALF_OPEN"),
            Ok(())
        );
        assert_eq!(
            transition("00:00:10.000 payments OPEN -> HALF_OPEN"),
            Err("unknown dependency `payments`".into())
        );
        assert!(transition("00:00:10.000 shipping OPEN -> AJAR").is_err());
    }

    #[test]
    fn settings_that_cannot_work_are_refused() {
        let fine = Settings {
            max_active: 8,
            max_queued: 10,
            max_queue_wait_ms: 20,
            budget_ms: 300,
            max_attempts: 3,
            backoff_ms: 50,
            jitter_percent: 100,
            jitter_seed: 1,
            window: 10,
            minimum_calls: 10,
            failure_rate_percent: 50,
            open_for_ms: 10_000,
            probes: 1,
        };
        assert!(settings(&fine).is_empty());
        let fields = |s: Settings| settings(&s).into_iter().map(|(f, _)| f).collect::<Vec<_>>();
        assert_eq!(
            fields(Settings {
                max_active: 0,
                max_attempts: 0,
                ..fine
            }),
            ["max_active", "max_attempts"]
        );
        assert_eq!(
            fields(Settings {
                minimum_calls: 11,
                jitter_percent: 101,
                ..fine
            }),
            ["minimum_calls", "jitter_percent"]
        );
        assert_eq!(
            fields(Settings {
                max_queued: 0,
                backoff_ms: 0,
                ..fine
            }),
            Vec::<&str>::new(),
            "no queue and no pause are choices"
        );
    }
}
