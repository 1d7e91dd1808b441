//! Lab 6's expectations against what its harness observed after each step.

use grader_lab::{Difference, Snapshot, StepRecord, quantity, records, sends};
use lab6_harness::wire::{LaneSnapshot, METRICS, Observation};

use crate::steps::{ExpectStep, Step};
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
        Step::Release(x) => {
            if let Some(n) = x.count {
                if outcomes.len() != n as usize {
                    return Some((
                        format!("{n} held call{} to answer", plural(u64::from(n))),
                        format!("{} held", outcomes.len()),
                    ));
                }
            }
            sends::expect_counts(x.expect.as_ref()?, &outcomes)
        }
        Step::Advance(x) => sends::expect_counts(x.expect.as_ref()?, &outcomes),
        Step::Expect(x) => expect(x, &r.observation),
        Step::ExpectTransitions(want) => {
            let got = r
                .observation
                .transitions
                .first()
                .cloned()
                .flatten()
                .unwrap_or_default();
            records::compare(want, &got, RECORDS)
        }
        Step::Script(_) | Step::WakeOrder(_) => None,
    }
}

fn expect(x: &ExpectStep, o: &Observation) -> Option<(String, String)> {
    let d = o.dependencies.iter().find(|d| d.name == x.target)?;
    let want = [x.calls, x.in_flight, x.peak];
    if let Some(difference) =
        sends::expect_counters(&x.target, want, [d.calls, d.in_flight, d.peak])
    {
        return Some(difference);
    }
    if let Some(difference) = sends::expect_answered(&x.target, x.answered.as_ref(), &d.answered) {
        return Some(difference);
    }
    let instance = x.instance.unwrap_or(1);
    let lane = o
        .instances
        .get(instance as usize - 1)?
        .lanes
        .iter()
        .find(|l| l.name == x.target)?;
    let whose = if o.instances.len() > 1 {
        format!("instance {instance}'s ")
    } else {
        String::new()
    };
    let name = format!("{whose}{}", x.target);
    let state = (x.state.as_deref(), lane.state.as_deref());
    if let Some(difference) =
        sends::expect_state(&name, "circuit", "circuit_state", state.0, state.1)
    {
        return Some(difference);
    }
    let waiting = [
        (x.held, lane.held, "waiting for an answer from"),
        (x.queued, lane.queued, "queued for"),
        (x.pausing, lane.pausing, "pausing before a retry to"),
    ];
    for (want, got, words) in waiting {
        if let Some(want) = want.filter(|want| *want != got) {
            let requests = if whose.is_empty() {
                quantity(want, "request")
            } else {
                format!("{want} of {whose}requests")
            };
            return Some((format!("{requests} {words} {}", x.target), format!("{got}")));
        }
    }
    for (metric, want) in x.metrics.iter().flatten() {
        let Some(metrics) = &lane.metrics else {
            return Some((
                format!("{whose}{} metrics", x.target),
                "no metrics (Shop::metrics returned None)".into(),
            ));
        };
        let got = metrics.get(metric).copied().unwrap_or(0);
        if *want != got {
            return Some((
                format!("{whose}{} metric {metric} = {want}", x.target),
                format!("{metric} = {got}"),
            ));
        }
    }
    None
}

/// Each dependency's counters, then each instance's view of it, and the records so far.
pub fn snapshot(o: &Observation) -> Snapshot {
    let many = o.instances.len() > 1;
    let mut targets = Vec::new();
    for (i, d) in o.dependencies.iter().enumerate() {
        let counters = format!(
            "calls={} in_flight={} peak={}",
            d.calls, d.in_flight, d.peak
        );
        if many {
            targets.push(format!("{} {counters}", d.name));
        }
        for (n, instance) in o.instances.iter().enumerate() {
            let Some(lane) = instance.lanes.get(i) else {
                continue;
            };
            let view = lane_words(lane);
            targets.push(if many {
                format!("  #{} {} {view}", n + 1, d.name)
            } else {
                format!("{} {view} {counters}", d.name)
            });
        }
    }
    Snapshot {
        targets,
        records: o.journal.clone(),
    }
}

/// `CLOSED held=8 queued=10 no_capacity=1`: the state, the requests waiting, and the
/// metrics that are not zero.
fn lane_words(lane: &LaneSnapshot) -> String {
    let mut words = vec![lane.state.clone().unwrap_or_else(|| "?".into())];
    for (n, what) in [
        (lane.held, "held"),
        (lane.queued, "queued"),
        (lane.pausing, "pausing"),
    ] {
        if n > 0 {
            words.push(format!("{what}={n}"));
        }
    }
    for metric in METRICS {
        let n = lane
            .metrics
            .as_ref()
            .and_then(|m| m.get(metric))
            .copied()
            .unwrap_or(0);
        if n > 0 {
            words.push(format!("{metric}={n}"));
        }
    }
    words.join(" ")
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
