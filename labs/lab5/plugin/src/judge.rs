//! Lab 5's expectations against what its harness observed after each step.

use std::collections::BTreeMap;

use grader_lab::{Difference, Snapshot, StepRecord, counts};
use lab5_harness::wire::Observation;

use crate::steps::Step;

/// Compares one step's expectations with its record: the first difference.
pub fn step(step: &Step, r: &StepRecord<Observation>) -> Option<Difference> {
    check(step, r).map(|(expected, observed)| Difference { expected, observed })
}

fn check(step: &Step, r: &StepRecord<Observation>) -> Option<(String, String)> {
    let outcomes: Vec<String> = r.requests.iter().map(|q| q.outcome.clone()).collect();
    match step {
        Step::Send(x) => {
            let want: Vec<String> = match (&x.expect, &x.expect_each) {
                (Some(outcome), _) => vec![outcome.clone(); x.count.unwrap_or(1) as usize],
                (None, Some(each)) => each.clone(),
                (None, None) => return None,
            };
            (want != outcomes).then(|| (list(&want), list(&outcomes)))
        }
        Step::SendConcurrent(x) => {
            let want: BTreeMap<String, u32> = x
                .expect
                .as_ref()?
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            let mut got: BTreeMap<String, u32> = BTreeMap::new();
            for o in outcomes {
                *got.entry(o).or_default() += 1;
            }
            (want != got).then(|| (counts(&want), counts(&got)))
        }
        Step::Release(x) => {
            if let Some(n) = x.count {
                if outcomes.len() != n as usize {
                    let calls = if n == 1 { "call" } else { "calls" };
                    return Some((
                        format!("{n} held {calls} to release"),
                        format!("{} held", outcomes.len()),
                    ));
                }
            }
            let want = vec![x.expect.clone()?; outcomes.len()];
            (want != outcomes).then(|| (list(&want), list(&outcomes)))
        }
        Step::Expect(x) => {
            let f = r.observation.flows.iter().find(|f| f.name == x.flow)?;
            if let Some(state) = &x.state {
                let got = f
                    .state
                    .clone()
                    .unwrap_or_else(|| "no state (circuit_state returned None)".into());
                if &got != state {
                    return Some((
                        format!("{} circuit {state}", x.flow),
                        format!("{} circuit {got}", x.flow),
                    ));
                }
            }
            let fields = [
                (x.calls, f.calls, "calls reached"),
                (x.in_flight, f.in_flight, "calls in progress at"),
                (x.peak, f.peak, "calls at once at most at"),
            ];
            for (want, got, words) in fields {
                if want.is_some_and(|want| want != got) {
                    return Some((format!("{} {words} {}", want?, x.flow), format!("{got}")));
                }
            }
            for (answer, want) in x.answered.iter().flatten() {
                let got = f.answered.get(answer).copied().unwrap_or(0);
                if *want != got {
                    return Some((
                        format!("{want} calls answered {answer} by {}", x.flow),
                        format!("{got}"),
                    ));
                }
            }
            None
        }
        Step::ExpectTransitions(want) => {
            let got = r.observation.transitions.clone().unwrap_or_default();
            (want != &got).then(|| {
                (
                    lines(want, "no transition records"),
                    lines(&got, "no transition records"),
                )
            })
        }
        Step::ExpectAlerts(want) => {
            let got = &r.observation.alerts;
            (want != got).then(|| (lines(want, "no alerts"), lines(got, "no alerts")))
        }
        Step::Script(_) | Step::Advance(_) => None,
    }
}

/// Each flow's state and counters, and the records and alerts so far.
pub fn snapshot(o: &Observation) -> Snapshot {
    Snapshot {
        targets: o
            .flows
            .iter()
            .map(|f| {
                format!(
                    "{} {} calls={} in_flight={} peak={}",
                    f.name,
                    f.state.as_deref().unwrap_or("?"),
                    f.calls,
                    f.in_flight,
                    f.peak
                )
            })
            .collect(),
        records: o.journal.clone(),
    }
}

fn list(outcomes: &[String]) -> String {
    if outcomes.is_empty() {
        "nothing".to_owned()
    } else {
        outcomes.join(", ")
    }
}

fn lines(lines: &[String], none: &str) -> String {
    if lines.is_empty() {
        none.to_owned()
    } else {
        format!("[{}]", lines.join("; "))
    }
}
