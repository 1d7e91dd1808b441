//! Scenarios in plain words, for `grader explain` and `grader list`.

use std::fmt::Write as _;

use crate::judge::{clock, describe, duration};
use crate::lab::Lab;
use crate::scenario::{Scenario, Step, Visibility};

/// What a step expects, in words, or `None` for a step that expects nothing.
pub fn expectation(step: &Step) -> Option<String> {
    let outcome = |code: &str| match code {
        "held" => "wait inside the target (held)".to_owned(),
        code => format!("end with {code}"),
    };
    match step {
        Step::Send(x) => match (&x.expect, &x.expect_each) {
            (Some(code), _) if x.count.unwrap_or(1) == 1 => {
                Some(format!("it must {}", outcome(code)))
            }
            (Some(code), _) => Some(format!("each must {}", outcome(code))),
            (None, Some(each)) => {
                Some(format!("in order, they must end with: {}", each.join(", ")))
            }
            (None, None) => None,
        },
        Step::SendConcurrent(x) => x.expect.as_ref().map(|m| {
            let parts: Vec<String> = m
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(code, n)| match code.as_str() {
                    "held" => format!("{n} held in {}", x.target),
                    code => format!("{n} {code}"),
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
            if let Some(code) = &x.expect {
                parts.push(format!("each released request must end with {code}"));
            }
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Step::Expect(x) => {
            let mut parts = Vec::new();
            if let Some(state) = &x.state {
                parts.push(format!("breaker {state}"));
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

/// The whole scenario in words: what it sets up, does, and checks, with the fake-clock
/// time of every step.
pub fn explain(lab: &Lab, s: &Scenario) -> String {
    let mut out = String::new();
    let category = lab
        .category(&s.category)
        .map_or(s.category.as_str(), |c| c.title.as_str());
    let visibility = match s.visibility {
        Visibility::Visible => "visible",
        Visibility::Hidden => "hidden: only run when submissions are graded",
    };
    let _ = writeln!(out, "{}: {}", s.name, s.title);
    let _ = writeln!(
        out,
        "category: {category}; {} points; {visibility}",
        s.points
    );
    let _ = writeln!(out, "file: {}", s.path.display());
    if !s.description.is_empty() {
        let _ = writeln!(out, "\n{}", s.description);
    }
    if s.race {
        let schedules = lab
            .manifest
            .race
            .as_ref()
            .map_or_else(|| "many".to_owned(), |r| r.schedules.to_string());
        let _ = writeln!(
            out,
            "\nA race check: the steps run on the schedule explorer, once on each of {schedules} interleavings (the same ones every run). On every one, each check below must hold, and: at most one call reaches a target while its breaker is HALF_OPEN, a target never has more than max_concurrent calls in progress, each transition record starts where the one before ended, no lock of the relay is held while a target is called, and every request returns."
        );
    }
    let _ = writeln!(out, "\nSettings:");
    for t in &s.targets {
        let _ = writeln!(
            out,
            "  {}: opens after {} failures in a row, retries after {}, at most {} calls at once",
            t.name,
            t.failure_threshold,
            duration(t.retry_after_ms),
            t.max_concurrent
        );
    }
    let _ = writeln!(
        out,
        "\nSteps (every target answers OK until scripted otherwise):"
    );
    let mut now = 0u64;
    for (i, placed) in s.steps.iter().enumerate() {
        let _ = write!(
            out,
            "  {:>2}. {} {}",
            i + 1,
            clock(now),
            describe(&placed.step)
        );
        match expectation(&placed.step) {
            Some(e) => {
                let _ = writeln!(out, "\n      checks: {e}");
            }
            None => {
                let _ = writeln!(out);
            }
        }
        if let Step::Advance(a) = &placed.step {
            now += a.ms;
        }
    }
    let _ = writeln!(out, "\nHint shown when it fails: {}", s.hint);
    out
}
