//! Lab 5's expectations against what its harness observed after each step.

use grader_lab::{Difference, Snapshot, StepRecord, quantity, records, sends};
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
            let want = [x.calls, x.in_flight, x.peak];
            if let Some(difference) =
                sends::expect_counters(&x.flow, want, [f.calls, f.in_flight, f.peak])
            {
                return Some(difference);
            }
            for (answer, want) in x.answered.iter().flatten() {
                let got = f.answered.get(answer).copied().unwrap_or(0);
                if *want != got {
                    return Some((
                        format!(
                            "{} answered {answer} by {}",
                            quantity(*want, "call"),
                            x.flow
                        ),
                        format!("{got}"),
                    ));
                }
            }
            None
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
