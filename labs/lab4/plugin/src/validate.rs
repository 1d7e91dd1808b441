//! What lab 4's steps and settings must mean, checked before any code runs: words against
//! the lab (targets, codes, states), counts that add up, a `release` that has held calls
//! to release, and concurrent sends that cannot depend on thread timing.

use grader_lab::sends::{self, Holds};
use grader_lab::{Checker, records};
use lab4_harness::systems;
use lab4_harness::wire::Settings;

use crate::steps::{ANSWER_CODES, OUTCOMES, RELEASE_ANSWERS, SCRIPT_ANSWERS, STATES, Step};
use crate::words::{NOUNS, RECORDS};

/// Notes a problem when `target`'s system never gives `answer` (claims has no
/// insufficient funds). `answer` is one of the scripted answers already.
fn its_own_answer(c: &mut Checker<'_>, i: usize, target: &str, answer: &str) {
    if !ANSWER_CODES.contains(&answer) || systems::meaning(target, answer).is_some() {
        return;
    }
    let answers: Vec<&str> = systems::answers(target)
        .iter()
        .map(|(code, _)| code.as_str())
        .collect();
    c.problem(
        i,
        "answer",
        format!("{target} never answers {answer}"),
        Some(format!("{target} answers {}", answers.join(", "))),
    );
}

/// Problems with one target's settings, as (field, message).
pub fn settings(s: &Settings) -> Vec<(&'static str, String)> {
    let mut problems = Vec::new();
    if s.failure_threshold == 0 {
        problems.push((
            "failure_threshold",
            "failure_threshold must be 1 or more".to_owned(),
        ));
    }
    if s.max_concurrent == 0 {
        problems.push((
            "max_concurrent",
            "max_concurrent must be 1 or more".to_owned(),
        ));
    }
    problems
}

/// Whether a step checks anything.
pub fn expects_something(step: &Step) -> bool {
    match step {
        Step::Send(x) => x.expect.is_some() || x.expect_each.is_some(),
        Step::SendConcurrent(x) => x.expect.is_some(),
        Step::Release(x) => x.expect.is_some(),
        Step::Expect(_) | Step::ExpectTransitions(_) => true,
        Step::Script(_) | Step::Advance(_) => false,
    }
}

/// Checks every step, in order.
pub fn steps(steps: &[&Step], c: &mut Checker<'_>) {
    // Per target: is it scripted to hold right now, and may calls be held in it?
    let mut holds = Holds::new();
    for (i, step) in steps.iter().enumerate() {
        let target = match step {
            Step::Script(x) => Some(&x.target),
            Step::Send(x) => Some(&x.target),
            Step::SendConcurrent(x) => Some(&x.target),
            Step::Release(x) => Some(&x.target),
            Step::Expect(x) => Some(&x.target),
            Step::Advance(_) | Step::ExpectTransitions(_) => None,
        };
        // A step with an unknown target is still checked for everything else, but what
        // it does to targets is not followed.
        let known = target.is_none_or(|t| c.target(i, t));
        match step {
            Step::Script(x) => {
                if c.one_of(i, "answer", &x.answer, &SCRIPT_ANSWERS, "answer") && known {
                    holds.script(&x.target, x.answer == "hold");
                    its_own_answer(c, i, &x.target, &x.answer);
                }
            }
            Step::Send(x) => {
                let count = x.count.unwrap_or(1);
                sends::check_sent_count(c, i, count, NOUNS);
                if let Some(code) = &x.expect {
                    c.one_of(i, "expect", code, &OUTCOMES, "outcome");
                }
                for code in x.expect_each.iter().flatten() {
                    c.one_of(i, "expect_each", code, &OUTCOMES, "outcome");
                }
                let each = x.expect_each.as_deref();
                sends::check_each(c, i, count, x.expect.is_some(), each, NOUNS);
                holds.sent(&x.target);
            }
            Step::SendConcurrent(x) => {
                sends::check_together_count(c, i, x.count, NOUNS);
                let holding = holds.sent_together(&x.target);
                // A race check explores every interleaving and judges each, so which
                // request gets which answer may differ between them.
                if known && c.complete() && !c.race_check() && !holding {
                    sends::together_unheld(c, i, &x.target, NOUNS);
                }
                if let Some(expect) = &x.expect {
                    for code in expect.keys() {
                        c.one_of(i, code, code, &OUTCOMES, "outcome");
                    }
                    sends::check_sum(c, i, expect, x.count, NOUNS);
                }
            }
            Step::Release(x) => {
                if c.one_of(i, "answer", &x.answer, &RELEASE_ANSWERS, "answer") && known {
                    its_own_answer(c, i, &x.target, &x.answer);
                }
                if let Some(code) = &x.expect {
                    c.one_of(i, "expect", code, &OUTCOMES, "outcome");
                }
                sends::check_released_count(c, i, x.count, NOUNS);
                if known && c.complete() && !holds.can_release(&x.target) {
                    sends::release_unheld(c, i, &x.target, NOUNS);
                }
            }
            Step::Advance(x) => c.advance(i, x.ms),
            Step::Expect(x) => {
                if let Some(state) = &x.state {
                    c.one_of(i, "state", state, &STATES, "state");
                }
                if let Some(answered) = &x.answered {
                    for code in answered.keys() {
                        c.one_of(i, code, code, &ANSWER_CODES, "answer code");
                    }
                }
                let empty = x.state.is_none()
                    && x.calls.is_none()
                    && x.in_flight.is_none()
                    && x.peak.is_none()
                    && x.answered.is_none();
                if empty {
                    c.problem(
                        i,
                        "expect",
                        "this expect step checks nothing",
                        Some(
                            "give at least one of: state, calls, in_flight, peak, answered".into(),
                        ),
                    );
                }
            }
            Step::ExpectTransitions(lines) => {
                records::check_lines(c, i, lines, RECORDS, records::transition);
            }
        }
    }
}
