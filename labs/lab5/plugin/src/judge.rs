//! Lab 5's expectations against what its harness observed after each step.

use grader_lab::{Difference, Snapshot, StepRecord, records, sends};
use lab5_harness::wire::Observation;

use crate::steps::Step;
use crate::words::{ALERTS, RECORDS};

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
            let f = r.observation.flows.iter().find(|f| f.name == x.flow)?;
            let state = (x.state.as_deref(), f.state.as_deref());
            sends::expect_state(&x.flow, "circuit", "circuit_state", state.0, state.1)
                .or_else(|| {
                    let want = [x.calls, x.in_flight, x.peak];
                    sends::expect_counters(&x.flow, want, [f.calls, f.in_flight, f.peak])
                })
                .or_else(|| sends::expect_answered(&x.flow, x.answered.as_ref(), &f.answered))
        }
        Step::ExpectTransitions(want) => {
            let got = r.observation.transitions.clone().unwrap_or_default();
            records::compare(want, &got, RECORDS)
        }
        Step::ExpectAlerts(want) => {
            let got = &r.observation.alerts;
            records::compare(want, got, ALERTS)
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
