//! Lab 4's expectations against what its harness observed after each step.

use grader_lab::{Difference, Snapshot, StepRecord, quantity, records, sends};
use lab4_harness::wire::Observation;

use crate::steps::Step;
use crate::words::RECORDS;

/// Compares one step's expectations with its record: the first difference.
pub fn step(step: &Step, r: &StepRecord<Observation>) -> Option<Difference> {
    check(step, r).map(|(expected, observed)| Difference { expected, observed })
}

fn check(step: &Step, r: &StepRecord<Observation>) -> Option<(String, String)> {
    let outcomes: Vec<String> = r.requests.iter().map(|q| q.outcome.clone()).collect();
    match step {
        Step::Send(x) => {
            let each = x.expect_each.as_deref();
            sends::expect_sent(x.count, x.expect.as_deref(), each, &outcomes)
        }
        Step::SendConcurrent(x) => sends::expect_counts(x.expect.as_ref()?, &outcomes),
        Step::Release(x) => sends::expect_released(x.count, x.expect.as_deref(), &outcomes),
        Step::Expect(x) => {
            let t = r.observation.targets.iter().find(|t| t.name == x.target)?;
            if let Some(state) = &x.state {
                let got = t
                    .state
                    .clone()
                    .unwrap_or_else(|| "no state (breaker_state returned None)".into());
                if &got != state {
                    return Some((
                        format!("{} breaker {state}", x.target),
                        format!("{} breaker {got}", x.target),
                    ));
                }
            }
            let want = [x.calls, x.in_flight, x.peak];
            if let Some(difference) =
                sends::expect_counters(&x.target, want, [t.calls, t.in_flight, t.peak])
            {
                return Some(difference);
            }
            if let Some(answered) = &x.answered {
                for (code, want) in answered {
                    let got = t.answered.get(code).copied().unwrap_or(0);
                    if *want != got {
                        return Some((
                            format!(
                                "{} answered {code} by {}",
                                quantity(*want, "call"),
                                x.target
                            ),
                            format!("{got}"),
                        ));
                    }
                }
            }
            None
        }
        Step::ExpectTransitions(want) => {
            let got = r.observation.transitions.clone().unwrap_or_default();
            records::compare(want, &got, RECORDS)
        }
        Step::Script(_) | Step::Advance(_) => None,
    }
}

/// Each target's state and counters, and the transition records so far.
pub fn snapshot(o: &Observation) -> Snapshot {
    Snapshot {
        targets: o
            .targets
            .iter()
            .map(|t| {
                format!(
                    "{} {} calls={} in_flight={} peak={}",
                    t.name,
                    t.state.as_deref().unwrap_or("?"),
                    t.calls,
                    t.in_flight,
                    t.peak
                )
            })
            .collect(),
        records: o.transitions.clone().unwrap_or_default(),
    }
}
