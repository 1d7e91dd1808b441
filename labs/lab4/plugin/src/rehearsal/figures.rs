//! The figures of a rehearsal, computed from its raw record: latency percentiles over time
//! and per phase, throughput, answers by code and cause, peaks of the gauges, and the
//! breakers' states as spans of time.

use std::collections::BTreeMap;

use lab4_rehearsal_protocol::{CallRecord, Outcome, Record, RelayRecord, RequestRecord, Script};
use serde::Serialize;

/// Every figure of one rehearsal.
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// The width of the time windows of the series, in milliseconds.
    pub window_ms: f64,
    /// The target whose dependency falls sick, the ones whose never does, and the sick
    /// dependency's phases; none if no dependency is ever sick.
    pub story: Option<Story>,
    /// Behind the relay under test (`protected`), then behind the blind one (`unprotected`).
    pub relays: Vec<RelayFigures>,
}

/// Who falls sick, when, and who should not notice.
#[derive(Clone, Debug, Serialize)]
pub struct Story {
    /// The first target whose dependency is ever sick (`core_banking`).
    pub sick: String,
    /// The targets whose dependencies never are (`claims`).
    pub bystanders: Vec<String>,
    /// The sick dependency's phases.
    pub phases: Vec<Span>,
}

/// A stretch of time in a named condition (a phase's behaviour, a breaker's state).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Span {
    /// Start, in milliseconds since the rehearsal started.
    pub from_ms: f64,
    /// End.
    pub to_ms: f64,
    /// `healthy`, `slow`, ... or `CLOSED`, `OPEN`, `HALF_OPEN`.
    pub what: String,
}

/// Everything measured behind one relay.
#[derive(Clone, Debug, Serialize)]
pub struct RelayFigures {
    /// `protected` or `unprotected`.
    pub name: String,
    /// The most worker threads inside `Relay::handle` at once.
    pub peak_busy: u32,
    /// Per target.
    pub targets: BTreeMap<String, TargetFigures>,
    /// Per target, the breaker's states over time (relays with breakers only).
    pub breaker: BTreeMap<String, Vec<Span>>,
    /// Where the states come from: `transitions` (the relay's records) or `samples`
    /// (its `breaker_state`, read every few milliseconds); none without breakers.
    pub breaker_source: Option<String>,
}

/// One target behind one relay.
#[derive(Clone, Debug, Serialize)]
pub struct TargetFigures {
    /// Requests by how they ended.
    pub outcomes: BTreeMap<Outcome, u64>,
    /// The most requests for it inside the relay at once.
    pub peak_in_relay: u32,
    /// The most calls from the relay to its dependency at once.
    pub peak_calls: u32,
    /// The most calls its dependency worked on at once.
    pub peak_at_dependency: u32,
    /// Per phase of the story.
    pub phases: Vec<PhaseFigures>,
    /// Per time window.
    pub windows: Vec<Window>,
}

/// One target behind one relay during one phase of the sick dependency.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseFigures {
    /// The phase.
    pub phase: Span,
    /// Requests sent during it (not counting those the generator could not send).
    pub sent: u64,
    /// Their median latency.
    pub p50_ms: Option<f64>,
    /// Their 99th percentile latency.
    pub p99_ms: Option<f64>,
    /// Answers (OK, B201) per second.
    pub answers_per_s: f64,
    /// Calls from the relay to the dependency started per second.
    pub calls_per_s: f64,
    /// Requests sent during it, by how they ended.
    pub outcomes: BTreeMap<Outcome, u64>,
}

/// One target behind one relay during one time window.
#[derive(Clone, Debug, Serialize)]
pub struct Window {
    /// Start of the window.
    pub from_ms: f64,
    /// Requests sent in it.
    pub sent: u32,
    /// Median latency of those requests.
    pub p50_ms: Option<f64>,
    /// 99th percentile latency of those requests.
    pub p99_ms: Option<f64>,
    /// Calls to the dependency started in it.
    pub calls: u32,
    /// Requests sent in it, by how they ended.
    pub outcomes: BTreeMap<Outcome, u32>,
}

/// The windows of a run of `duration_ms`: sixty of them, whatever the length.
pub fn window_ms(duration_ms: f64) -> f64 {
    duration_ms / 60.0
}

/// Computes every figure of `record`, a rehearsal of `script` (fitted to the run).
pub fn compute(script: &Script, record: &Record) -> Figures {
    let duration_ms = script.duration_s * 1000.0;
    let window = window_ms(duration_ms);
    let story = story(script);
    let relays = record
        .relays
        .iter()
        .map(|r| relay(script, r, story.as_ref(), window))
        .collect();
    Figures {
        window_ms: window,
        story,
        relays,
    }
}

fn story(script: &Script) -> Option<Story> {
    let sick = script.targets.iter().find(|t| t.ever_sick())?;
    let duration_ms = script.duration_s * 1000.0;
    Some(Story {
        sick: sick.name.clone(),
        bystanders: script
            .targets
            .iter()
            .filter(|t| !t.ever_sick())
            .map(|t| t.name.clone())
            .collect(),
        phases: sick
            .spans(script.duration_s)
            .into_iter()
            .map(|(from, to, p)| Span {
                from_ms: from * 1000.0,
                to_ms: (to * 1000.0).min(duration_ms),
                what: p.behaviour.as_str().to_owned(),
            })
            .collect(),
    })
}

fn relay(script: &Script, r: &RelayRecord, story: Option<&Story>, window: f64) -> RelayFigures {
    let duration_ms = script.duration_s * 1000.0;
    let targets = script
        .targets
        .iter()
        .map(|t| {
            let requests: Vec<&RequestRecord> =
                r.requests.iter().filter(|q| q.target == t.name).collect();
            let calls: Vec<&CallRecord> = r.calls.iter().filter(|c| c.target == t.name).collect();
            let peak = |f: &dyn Fn(&lab4_rehearsal_protocol::TargetSample) -> u32| {
                r.samples
                    .iter()
                    .filter_map(|s| s.targets.get(&t.name).map(f))
                    .max()
                    .unwrap_or(0)
            };
            let figures = TargetFigures {
                outcomes: count(requests.iter().map(|q| q.outcome)),
                peak_in_relay: peak(&|s| s.in_relay.peak),
                peak_calls: peak(&|s| s.calls.peak),
                peak_at_dependency: peak(&|s| s.at_dependency.peak),
                phases: story
                    .map(|s| {
                        s.phases
                            .iter()
                            .map(|p| phase(p, &requests, &calls))
                            .collect()
                    })
                    .unwrap_or_default(),
                windows: windows(&requests, &calls, window, duration_ms),
            };
            (t.name.clone(), figures)
        })
        .collect();
    let (breaker, breaker_source) = breaker_spans(script, r);
    RelayFigures {
        name: r.name.clone(),
        peak_busy: r.samples.iter().map(|s| s.busy.peak).max().unwrap_or(0),
        targets,
        breaker,
        breaker_source,
    }
}

fn phase(p: &Span, requests: &[&RequestRecord], calls: &[&CallRecord]) -> PhaseFigures {
    let inside: Vec<&RequestRecord> = requests
        .iter()
        .copied()
        .filter(|q| q.sent_ms >= p.from_ms && q.sent_ms < p.to_ms)
        .collect();
    let seconds = ((p.to_ms - p.from_ms) / 1000.0).max(1e-9);
    let mut latencies: Vec<f64> = sent(&inside).map(|q| q.ms).collect();
    latencies.sort_by(f64::total_cmp);
    let started = calls
        .iter()
        .filter(|c| c.start_ms >= p.from_ms && c.start_ms < p.to_ms)
        .count();
    PhaseFigures {
        phase: p.clone(),
        sent: latencies.len() as u64,
        p50_ms: percentile(&latencies, 50.0),
        p99_ms: percentile(&latencies, 99.0),
        answers_per_s: round(
            inside.iter().filter(|q| q.outcome.is_answer()).count() as f64 / seconds,
        ),
        calls_per_s: round(started as f64 / seconds),
        outcomes: count(inside.iter().map(|q| q.outcome)),
    }
}

fn windows(
    requests: &[&RequestRecord],
    calls: &[&CallRecord],
    window: f64,
    duration_ms: f64,
) -> Vec<Window> {
    let n = (duration_ms / window).ceil().max(1.0) as usize;
    let index = |t: f64| ((t / window).floor().max(0.0) as usize).min(n - 1);
    let mut by_window: Vec<Vec<&RequestRecord>> = vec![Vec::new(); n];
    for q in requests {
        by_window[index(q.sent_ms)].push(q);
    }
    let mut started = vec![0u32; n];
    for c in calls {
        started[index(c.start_ms)] += 1;
    }
    by_window
        .into_iter()
        .enumerate()
        .map(|(i, qs)| {
            let mut latencies: Vec<f64> = sent(&qs).map(|q| q.ms).collect();
            latencies.sort_by(f64::total_cmp);
            Window {
                from_ms: round(i as f64 * window),
                sent: latencies.len() as u32,
                p50_ms: percentile(&latencies, 50.0),
                p99_ms: percentile(&latencies, 99.0),
                calls: started[i],
                outcomes: count(qs.iter().map(|q| q.outcome))
                    .into_iter()
                    .map(|(o, c)| (o, c as u32))
                    .collect(),
            }
        })
        .collect()
}

/// The requests that were sent (not those the generator could not send).
fn sent<'a>(requests: &'a [&'a RequestRecord]) -> impl Iterator<Item = &'a RequestRecord> {
    requests
        .iter()
        .copied()
        .filter(|q| q.outcome != Outcome::NotSent)
}

/// The breakers' states as spans: from the relay's transition records when it kept any,
/// else from the sampled states.
fn breaker_spans(
    script: &Script,
    r: &RelayRecord,
) -> (BTreeMap<String, Vec<Span>>, Option<String>) {
    let duration_ms = script.duration_s * 1000.0;
    let sampled = r
        .samples
        .iter()
        .any(|s| s.targets.values().any(|t| t.state.is_some()));
    if r.transitions.is_empty() && !sampled {
        return (BTreeMap::new(), None);
    }
    let from_transitions = !r.transitions.is_empty();
    let spans = script
        .targets
        .iter()
        .map(|t| {
            let changes: Vec<(f64, String)> = if from_transitions {
                r.transitions
                    .iter()
                    .filter(|x| x.target == t.name)
                    .map(|x| (x.at_ms, x.to.clone()))
                    .collect()
            } else {
                r.samples
                    .iter()
                    .filter_map(|s| Some((s.t_ms, s.targets.get(&t.name)?.state.clone()?)))
                    .collect()
            };
            (t.name.clone(), spans_of(&changes, duration_ms))
        })
        .collect();
    let source = if from_transitions {
        "transitions"
    } else {
        "samples"
    };
    (spans, Some(source.to_owned()))
}

/// Spans from a list of (time, new state), starting CLOSED at 0 and ending at `end_ms`.
pub fn spans_of(changes: &[(f64, String)], end_ms: f64) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut current = Span {
        from_ms: 0.0,
        to_ms: end_ms,
        what: "CLOSED".into(),
    };
    for (at, state) in changes {
        if *state == current.what {
            continue;
        }
        current.to_ms = at.min(end_ms);
        spans.push(current);
        current = Span {
            from_ms: at.min(end_ms),
            to_ms: end_ms,
            what: state.clone(),
        };
    }
    spans.push(current);
    spans.retain(|s| s.to_ms > s.from_ms || s.what != "CLOSED");
    spans
}

/// The nearest-rank percentile `p` of sorted `values`.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(round(sorted[rank.min(sorted.len()) - 1]))
}

fn count<T: Ord>(items: impl Iterator<Item = T>) -> BTreeMap<T, u64> {
    let mut counts = BTreeMap::new();
    for item in items {
        *counts.entry(item).or_insert(0) += 1;
    }
    counts
}

/// `x` to two decimals.
pub fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&[], 99.0), None);
    }

    #[test]
    fn state_spans_follow_the_changes() {
        let changes = vec![
            (1000.0, "OPEN".to_owned()),
            (3000.0, "HALF_OPEN".to_owned()),
            (3005.0, "CLOSED".to_owned()),
        ];
        let spans = spans_of(&changes, 5000.0);
        let what: Vec<(f64, f64, &str)> = spans
            .iter()
            .map(|s| (s.from_ms, s.to_ms, s.what.as_str()))
            .collect();
        assert_eq!(
            what,
            [
                (0.0, 1000.0, "CLOSED"),
                (1000.0, 3000.0, "OPEN"),
                (3000.0, 3005.0, "HALF_OPEN"),
                (3005.0, 5000.0, "CLOSED"),
            ]
        );
    }
}
