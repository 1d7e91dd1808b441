//! What lab 5's steps and settings must mean, checked before any code runs: flows,
//! answers, outcomes and states against the lab, counts that add up, a `release` that has
//! held calls to release, concurrent sends that cannot depend on thread timing, and
//! records and alerts written the way the gateway prints them.

use std::collections::BTreeMap;

use grader_lab::records::{self, Form};
use grader_lab::sends::{self, Holds};
use grader_lab::{Checker, did_you_mean};
use lab5_harness::wire::Settings;

use crate::steps::{OUTCOME_WORDS, RELEASE_WORDS, SCRIPT_WORDS, STATES, Step};
use crate::words::{ALERTS, NOUNS, RECORDS};

/// Problems with one flow's settings, as (field, message).
pub fn settings(s: &Settings) -> Vec<(&'static str, String)> {
    let mut problems = Vec::new();
    let mut at_least_one = |field: &'static str, value: u64| {
        if value == 0 {
            problems.push((field, format!("{field} must be 1 or more")));
        }
    };
    at_least_one("window", s.window);
    at_least_one("minimum_calls", s.minimum_calls);
    at_least_one("probes", s.probes);
    at_least_one("max_concurrent", s.max_concurrent);
    if s.max_age_ms == Some(0) {
        at_least_one("max_age_ms", 0);
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
        problems.push((
            "failure_rate_percent",
            "failure_rate_percent must be from 1 to 100".to_owned(),
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
        Step::Expect(_) | Step::ExpectTransitions(_) | Step::ExpectAlerts(_) => true,
        Step::Script(_) | Step::Advance(_) => false,
    }
}

/// Checks every step, in order.
pub fn steps(steps: &[&Step], c: &mut Checker<'_>) {
    let flows = c.targets();
    // Per flow: is its endpoint scripted to hold right now, and may calls be held in it?
    let mut holds = Holds::new();
    for (i, step) in steps.iter().enumerate() {
        // A step on an unknown flow is still checked for everything else, but what it
        // does to flows is not followed.
        let known = step
            .flow()
            .is_none_or(|flow| c.one_of(i, "flow", flow, &flows, "flow"));
        match step {
            Step::Script(x) => {
                if word(c, i, "answer", &x.answer, &SCRIPT_WORDS, "answer") && known {
                    holds.script(&x.flow, x.answer == "hold");
                }
            }
            Step::Send(x) => {
                let count = x.count.unwrap_or(1);
                sends::check_sent_count(c, i, count, NOUNS);
                if let Some(outcome) = &x.expect {
                    word(c, i, "expect", outcome, &OUTCOME_WORDS, "outcome");
                }
                for outcome in x.expect_each.iter().flatten() {
                    word(c, i, "expect_each", outcome, &OUTCOME_WORDS, "outcome");
                }
                let each = x.expect_each.as_deref();
                sends::check_each(c, i, count, x.expect.is_some(), each, NOUNS);
                holds.sent(&x.flow);
            }
            Step::SendConcurrent(x) => {
                sends::check_together_count(c, i, x.count, NOUNS);
                let holding = holds.sent_together(&x.flow);
                // A race check explores every interleaving and judges each, so which
                // message gets which answer may differ between them.
                if known && c.complete() && !c.race_check() && !holding {
                    sends::together_unheld(c, i, &x.flow, NOUNS);
                }
                if let Some(expect) = &x.expect {
                    concurrent_expect(c, i, expect, x.count);
                }
            }
            Step::Release(x) => {
                word(c, i, "answer", &x.answer, &RELEASE_WORDS, "answer");
                if let Some(outcome) = &x.expect {
                    word(c, i, "expect", outcome, &OUTCOME_WORDS, "outcome");
                }
                sends::check_released_count(c, i, x.count, NOUNS);
                if known && c.complete() && !holds.can_release(&x.flow) {
                    sends::release_unheld(c, i, &x.flow, NOUNS);
                }
            }
            Step::Advance(x) => c.advance(i, x.ms),
            Step::Expect(x) => {
                if let Some(state) = &x.state {
                    c.one_of(i, "state", state, &STATES, "state");
                }
                if let Some(answered) = &x.answered {
                    for answer in answered.keys() {
                        word(c, i, answer, answer, &RELEASE_WORDS, "answer");
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
            Step::ExpectAlerts(lines) => records::check_lines(c, i, lines, ALERTS, alert_line),
        }
    }
}

/// Checks that `text` is an HTTP status from 100 to 599 or one of `words`.
fn word(
    c: &mut Checker<'_>,
    step: usize,
    key: &str,
    text: &str,
    words: &[&str],
    what: &str,
) -> bool {
    if words.contains(&text) || is_status(text) {
        return true;
    }
    let help = if text.bytes().all(|b| b.is_ascii_digit()) {
        "an HTTP status is three digits, from 100 to 599".to_owned()
    } else {
        match did_you_mean(text, words.iter().copied()) {
            Some(close) => format!("did you mean `{close}`?"),
            None => format!(
                "use an HTTP status (100 to 599) or one of: {}",
                words.join(", ")
            ),
        }
    };
    c.problem(step, key, format!("unknown {what} `{text}`"), Some(help));
    false
}

/// Whether `text` is an HTTP status, three digits from 100 to 599.
pub fn is_status(text: &str) -> bool {
    text.len() == 3
        && text.bytes().all(|b| b.is_ascii_digit())
        && text.parse::<u16>().is_ok_and(|n| (100..=599).contains(&n))
}

fn concurrent_expect(c: &mut Checker<'_>, step: usize, expect: &BTreeMap<String, u32>, count: u32) {
    for outcome in expect.keys() {
        word(c, step, outcome, outcome, &OUTCOME_WORDS, "outcome");
    }
    sends::check_sum(c, step, expect, count, NOUNS);
}

/// Checks an alert line: `HH:MM:SS.mmm partner/TYPE opened: F of N calls failed` or
/// `HH:MM:SS.mmm partner/TYPE closed`.
fn alert_line(line: &str, flows: &[&str], form: Form) -> Result<(), String> {
    let rest = records::time_and_target(line, flows, form)?;
    if rest == "closed" {
        return Ok(());
    }
    let counts = rest
        .strip_prefix("opened: ")
        .and_then(|r| r.strip_suffix(" calls failed"))
        .ok_or("expected `opened: F of N calls failed` or `closed` after the flow")?;
    let (failures, sample) = counts
        .split_once(" of ")
        .ok_or("expected `F of N` between `opened:` and `calls failed`")?;
    let number = |n: &str| {
        n.parse::<u64>()
            .map_err(|_| format!("`{n}` is not a number"))
    };
    let (failures, sample) = (number(failures)?, number(sample)?);
    if failures > sample {
        return Err(format!(
            "{failures} failures cannot be among {sample} calls"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLOWS: [&str; 2] = ["acme/ORDERS", "globex/ORDERS"];

    #[test]
    fn records_and_alerts_are_read_as_the_gateway_prints_them() {
        let transition = |line| records::transition(line, &FLOWS, RECORDS);
        let alert = |line, flows: &[&str]| alert_line(line, flows, ALERTS);
        assert_eq!(
            transition("00:01:40.000 acme/ORDERS CLOSED -> OPEN"),
            Ok(())
        );
        assert!(transition("00:01:40.000 acme/INVOIC CLOSED -> OPEN").is_err());
        assert!(transition("0:01:40.000 acme/ORDERS CLOSED -> OPEN").is_err());
        assert!(transition("00:01:40.000 acme/ORDERS CLOSED OPEN").is_err());
        assert_eq!(
            alert(
                "00:01:40.000 acme/ORDERS opened: 5 of 10 calls failed",
                &FLOWS
            ),
            Ok(())
        );
        assert_eq!(alert("00:01:50.000 globex/ORDERS closed", &FLOWS), Ok(()));
        assert!(
            alert(
                "00:01:40.000 acme/ORDERS opened: 11 of 10 calls failed",
                &FLOWS
            )
            .is_err()
        );
        assert!(alert("00:01:40.000 acme/ORDERS opened 5 of 10", &FLOWS).is_err());
    }

    #[test]
    fn statuses_are_three_digits_from_100_to_599() {
        for good in ["100", "200", "429", "599"] {
            assert!(is_status(good), "{good}");
        }
        for bad in ["99", "600", "0200", "20x", ""] {
            assert!(!is_status(bad), "{bad}");
        }
    }

    #[test]
    fn settings_that_could_never_open_are_refused() {
        let fine = Settings {
            window: 10,
            minimum_calls: 10,
            failure_rate_percent: 50,
            max_age_ms: None,
            open_for_ms: 10_000,
            probes: 1,
            max_concurrent: 5,
        };
        assert!(settings(&fine).is_empty());
        let fields = |s: Settings| settings(&s).into_iter().map(|(f, _)| f).collect::<Vec<_>>();
        assert_eq!(
            fields(Settings {
                minimum_calls: 11,
                ..fine
            }),
            ["minimum_calls"]
        );
        assert_eq!(
            fields(Settings {
                failure_rate_percent: 0,
                ..fine
            }),
            ["failure_rate_percent"]
        );
        assert_eq!(
            fields(Settings {
                probes: 0,
                max_age_ms: Some(0),
                ..fine
            }),
            ["probes", "max_age_ms"]
        );
    }
}
