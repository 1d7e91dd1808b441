//! Lab 5's steps and settings in words, for reports and `grader explain`.

use grader_lab::duration;
use lab5_harness::wire::Settings;

use crate::steps::Step;

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
    let outcome = |o: &str| match o {
        "held" => "wait inside the partner (held)".to_owned(),
        o => format!("end with {o}"),
    };
    match step {
        Step::Send(x) => match (&x.expect, &x.expect_each) {
            (Some(o), _) if x.count.unwrap_or(1) == 1 => Some(format!("it must {}", outcome(o))),
            (Some(o), _) => Some(format!("each must {}", outcome(o))),
            (None, Some(each)) => {
                Some(format!("in order, they must end with: {}", each.join(", ")))
            }
            (None, None) => None,
        },
        Step::SendConcurrent(x) => x.expect.as_ref().map(|m| {
            let parts: Vec<String> = m
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(o, n)| match o.as_str() {
                    "held" => format!("{n} held at {}", x.flow),
                    o => format!("{n} {o}"),
                })
                .collect();
            format!("exactly {}, in any order", parts.join(" and "))
        }),
        Step::Release(x) => {
            let mut parts = Vec::new();
            if let Some(n) = x.count {
                parts.push(format!(
                    "{n} call{} must be held",
                    if n == 1 { "" } else { "s" }
                ));
            }
            if let Some(o) = &x.expect {
                parts.push(format!("each released message must end with {o}"));
            }
            (!parts.is_empty()).then(|| parts.join("; "))
        }
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
