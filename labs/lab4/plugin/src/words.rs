//! Lab 4's steps and settings in words, for reports and `grader explain`.

use grader_lab::sends::{self, Nouns};
use grader_lab::{duration, quantity};
use lab4_harness::wire::Settings;

use crate::steps::Step;

/// What this lab's requests are, and where a held one waits.
pub const NOUNS: Nouns = Nouns {
    request: "request",
    mock: "the target",
};

/// A step in words: `send 3 requests to core_banking, one after the other`.
pub fn describe(step: &Step) -> String {
    let plural = |n: u32| if n == 1 { "request" } else { "requests" };
    match step {
        Step::Script(x) => match x.answer.as_str() {
            "hold" => format!("script {} to hold calls until released", x.target),
            "panic" => format!("script {} to panic", x.target),
            code => format!("script {} to answer {code}", x.target),
        },
        Step::Send(x) => {
            let n = x.count.unwrap_or(1);
            if n == 1 {
                format!("send 1 request to {}", x.target)
            } else {
                format!(
                    "send {n} {} to {}, one after the other",
                    plural(n),
                    x.target
                )
            }
        }
        Step::SendConcurrent(x) => {
            format!(
                "send {} {} to {} at the same moment",
                x.count,
                plural(x.count),
                x.target
            )
        }
        Step::Release(x) => match x.count {
            Some(n) => format!(
                "release {n} held {} at {} with {}",
                if n == 1 { "call" } else { "calls" },
                x.target,
                x.answer
            ),
            None => format!("release every held call at {} with {}", x.target, x.answer),
        },
        Step::Advance(x) => format!("advance the clock by {}", duration(x.ms)),
        Step::Expect(x) => format!("check {}", x.target),
        Step::ExpectTransitions(_) => "check the transition records".to_owned(),
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
            Some(sends::together_words(&x.target, expect))
        }
        Step::Release(x) => sends::released_words(NOUNS, x.count, x.expect.as_deref()),
        Step::Expect(x) => {
            let mut parts = Vec::new();
            if let Some(state) = &x.state {
                parts.push(format!("breaker {state}"));
            }
            if let Some(n) = x.calls {
                parts.push(format!("{} reached it so far", quantity(n, "call")));
            }
            if let Some(n) = x.in_flight {
                parts.push(format!("{n} in progress now"));
            }
            if let Some(n) = x.peak {
                parts.push(format!("never more than {n} at once"));
            }
            if let Some(answered) = &x.answered {
                for (code, n) in answered {
                    parts.push(format!("answered {code} {n} times"));
                }
            }
            Some(parts.join(", "))
        }
        Step::ExpectTransitions(lines) if lines.is_empty() => {
            Some("no transition recorded yet".to_owned())
        }
        Step::ExpectTransitions(lines) => Some(format!(
            "exactly these records, in order:\n{}",
            lines
                .iter()
                .map(|l| format!("        {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )),
        Step::Script(_) | Step::Advance(_) => None,
    }
}

/// A target's settings in words.
pub fn settings(s: &Settings) -> String {
    format!(
        "opens after {} in a row, retries after {}, at most {} at once",
        quantity(s.failure_threshold, "failure"),
        duration(s.retry_after_ms),
        quantity(s.max_concurrent, "call")
    )
}
