//! Lab 4's expectations against what its harness observed after each step.

use grader_lab::{Difference, Snapshot, StepRecord, records, sends};
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
            let state = (x.state.as_deref(), t.state.as_deref());
            sends::expect_state(&x.target, "breaker", "breaker_state", state.0, state.1)
                .or_else(|| {
                    let want = [x.calls, x.in_flight, x.peak];
                    sends::expect_counters(&x.target, want, [t.calls, t.in_flight, t.peak])
                })
                .or_else(|| sends::expect_answered(&x.target, x.answered.as_ref(), &t.answered))
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
