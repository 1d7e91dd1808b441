//! Lab 5's steps and settings in words, for reports and `grader explain`.

use grader_lab::duration;
use grader_lab::sends::{self, Nouns};
use lab5_harness::wire::Settings;

use crate::steps::Step;

/// What this lab's requests are, and where a held one waits.
pub const NOUNS: Nouns = Nouns {
    request: "message",
    mock: "the partner",
};

/// A step in words: `send 3 messages on acme/ORDERS, one after the other`.
pub fn describe(step: &Step) -> String {
    let messages = |n: u32| if n == 1 { "message" } else { "messages" };
    match step {
        Step::Script(x) => match x.answer.as_str() {
            "hold" => format!("script {} to hold calls until released", x.flow),
            "panic" => format!("script {}'s client to panic", x.flow),
            answer => format!("script {} to answer {answer}", x.flow),
        },
        Step::Send(x) => match x.count.unwrap_or(1) {
            1 => format!("send 1 message on {}", x.flow),
            n => format!(
                "send {n} {} on {}, one after the other",
                messages(n),
                x.flow
            ),
        },
        Step::SendConcurrent(x) => format!(
            "send {} {} on {} at the same moment",
            x.count,
            messages(x.count),
            x.flow
        ),
        Step::Release(x) => match x.count {
            Some(n) => format!(
                "release {n} held {} at {} with {}",
                if n == 1 { "call" } else { "calls" },
                x.flow,
                x.answer
            ),
            None => format!("release every held call at {} with {}", x.flow, x.answer),
        },
        Step::Advance(x) => format!("advance the clock by {}", duration(x.ms)),
        Step::Expect(x) => format!("check {}", x.flow),
        Step::ExpectTransitions(_) => "check the transition records".to_owned(),
        Step::ExpectAlerts(_) => "check the alerts".to_owned(),
    }
}

/// What a step expects, in words, or `None` for a step that expects nothing.
pub fn expectation(step: &Step) -> Option<String> {
    match step {
        Step::Send(x) => {
            let each = x.expect_each.as_deref();
            sends::sent_words(NOUNS, x.count, x.expect.as_deref(), each)
        }
        Step::SendConcurrent(x) => {
            let expect = x.expect.as_ref()?;
            Some(sends::together_words(&x.flow, expect))
        }
        Step::Release(x) => sends::released_words(NOUNS, x.count, x.expect.as_deref()),
        Step::Expect(x) => {
            let mut parts = Vec::new();
            if let Some(state) = &x.state {
                parts.push(format!("circuit {state}"));
            }
            if let Some(n) = x.calls {
                parts.push(format!("{n} calls reached it so far"));
            }
            if let Some(n) = x.in_flight {
                parts.push(format!("{n} in progress now"));
            }
            if let Some(n) = x.peak {
                parts.push(format!("never more than {n} at once"));
            }
            for (answer, n) in x.answered.iter().flatten() {
                parts.push(format!("answered {answer} {n} times"));
            }
            Some(parts.join(", "))
        }
        Step::ExpectTransitions(lines) => {
            Some(listed(lines, "no transition recorded yet", "records"))
        }
        Step::ExpectAlerts(lines) => Some(listed(lines, "no alert sent yet", "alerts")),
        Step::Script(_) | Step::Advance(_) => None,
    }
}

fn listed(lines: &[String], none: &str, what: &str) -> String {
    if lines.is_empty() {
        return none.to_owned();
    }
    let lines: Vec<String> = lines.iter().map(|l| format!("        {l}")).collect();
    format!("exactly these {what}, in order:\n{}", lines.join("\n"))
}

/// A flow's settings in words.
pub fn settings(s: &Settings) -> String {
    let age = match s.max_age_ms {
        Some(ms) => format!("each counted for {}", duration(ms)),
        None => "never age out".to_owned(),
    };
    format!(
        "opens when {} % of the latest {} outcomes fail (with at least {} of them; outcomes {age}), stays open {}, closes after {} successful probe{}, at most {} messages at once",
        s.failure_rate_percent,
        s.window,
        s.minimum_calls,
        duration(s.open_for_ms),
        s.probes,
        if s.probes == 1 { "" } else { "s" },
        s.max_concurrent
    )
}
