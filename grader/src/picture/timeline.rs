//! A scenario's run as a timeline: its steps as columns on the fake clock, a lane per
//! request from the step that sent it to the moment it returned, a band per breaker, the
//! lab's counts after each step, the records as marks, and the first step that differs.
//!
//! Everything comes from the events the harness wrote: the step records (outcomes and
//! observations) and, when the harness's requests know the fake clock, when each request
//! was sent and returned (`Event::Requests`); without those, a request is taken as sent at
//! its step's time and returned at the time of the first step that names its outcome.

mod trials;

use std::collections::BTreeMap;

use grader_lab::picture::{Fate, MarkKind, Tone};
use grader_protocol::{Event, RequestTimes, StepRecord, StuckRecord};

use crate::report::{ScenarioResult, Status};
use crate::scenario::Scenario;

/// A scenario's run, ready to draw.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// One per step shown, in order: column `i` is step `i`.
    pub columns: Vec<Column>,
    /// One per request, in id order.
    pub lanes: Vec<Lane>,
    /// One per breaker, in the lab's order.
    pub bands: Vec<Band>,
    /// The lab's counts (a mock's calls in flight, a queue's length).
    pub gauges: Vec<Gauge>,
    /// The records the code under test wrote, each at the step it first showed.
    pub marks: Vec<Mark>,
    /// The step where observed and expected first differ, or where the run stopped.
    pub focus: Option<Focus>,
    /// Whether the steps after the focus are left out (a hidden scenario).
    pub cut: bool,
    /// A word on what is drawn, when it is not simply the run (a race check's schedule).
    pub caption: Option<String>,
    /// The lab's word for a call let through while a breaker is `HALF_OPEN`.
    pub probe_word: &'static str,
}

/// One step.
#[derive(Clone, Debug)]
pub struct Column {
    /// Fake-clock milliseconds when it started.
    pub at_ms: u64,
    /// How far it moves the clock.
    pub advance_ms: u64,
    /// What it does, in words.
    pub action: String,
    /// Whether its requests leave together (their order is not theirs to tell).
    pub together: bool,
}

/// One request.
#[derive(Clone, Debug)]
pub struct Lane {
    /// Its id.
    pub id: u64,
    /// The breaker it goes through.
    pub band: String,
    /// The step that sent it, and its rank among that step's requests.
    pub sent: (usize, usize),
    /// Fake-clock milliseconds when it was sent.
    pub sent_ms: u64,
    /// The step during which it returned, and when; `None` while it is still out.
    pub end: Option<(usize, u64)>,
    /// How it ended (or how it last waited), in the lab's words.
    pub outcome: String,
    /// What that means.
    pub fate: Fate,
    /// How it waited after each step it was still out at.
    pub waits: BTreeMap<usize, Fate>,
    /// Whether it reached the target while its breaker was `HALF_OPEN`.
    pub probe: bool,
    /// Fake-clock milliseconds when its budget ran out, for labs with one.
    pub deadline_ms: Option<u64>,
    /// Whether it was found stuck in the code under test.
    pub stuck: bool,
}

/// One breaker's state after each step.
#[derive(Clone, Debug)]
pub struct Band {
    /// Its name.
    pub name: String,
    /// Per column: the state's word and tone, `None` for a step not observed.
    pub after: Vec<Option<(String, Tone)>>,
}

/// One count after each step.
#[derive(Clone, Debug)]
pub struct Gauge {
    /// What it counts.
    pub name: String,
    /// Per column, `None` for a step not observed.
    pub values: Vec<Option<u64>>,
    /// The most it ever was, when the lab knows.
    pub peak: Option<u64>,
}

/// A record, at the step it first showed.
#[derive(Clone, Debug)]
pub struct Mark {
    /// The column.
    pub column: usize,
    /// The time it carries.
    pub at_ms: u64,
    /// Its breaker.
    pub band: String,
    /// As it prints.
    pub text: String,
    /// Transition or alert.
    pub kind: MarkKind,
    /// For a transition, the states it leads from and to.
    pub change: Option<(Tone, Tone)>,
}

/// Where the scenario went wrong.
#[derive(Clone, Debug)]
pub struct Focus {
    /// The column (the step, from 0).
    pub column: usize,
    /// What it expected; empty when the run stopped there instead.
    pub expected: String,
    /// What happened.
    pub observed: String,
}

/// What the run's events say, step by step.
struct Events<'a> {
    records: BTreeMap<usize, &'a StepRecord>,
    begun: BTreeMap<usize, u64>,
    times: BTreeMap<usize, &'a [RequestTimes]>,
    stuck: Option<&'a StuckRecord>,
    panicked_at: Option<usize>,
}

impl<'a> Events<'a> {
    fn read(events: &'a [Event]) -> Events<'a> {
        let mut e = Events {
            records: BTreeMap::new(),
            begun: BTreeMap::new(),
            times: BTreeMap::new(),
            stuck: None,
            panicked_at: None,
        };
        for event in events {
            match event {
                Event::Step(r) => {
                    e.records.insert(r.step, r);
                }
                Event::Begin { step, at_ms } => {
                    e.begun.insert(*step, *at_ms);
                }
                Event::Requests(r) => {
                    e.times.insert(r.step, &r.requests);
                }
                Event::Stuck(s) => e.stuck = Some(s),
                Event::Panic(p) if e.panicked_at.is_none() => e.panicked_at = p.step,
                _ => {}
            }
        }
        e
    }
}

/// The timeline of `scenario`'s run from its `events`, judged as `result`; for a hidden
/// scenario, only up to the step where it went wrong. `Err` says why there is nothing to
/// draw.
pub fn build(
    scenario: &Scenario,
    events: &[Event],
    result: &ScenarioResult,
    hidden: bool,
) -> Result<Timeline, String> {
    let ev = Events::read(events);
    let Some(&last_begun) = ev.begun.keys().last() else {
        return Err("the scenario's process ended before its first step".into());
    };
    let last_begun = last_begun.min(scenario.steps.len().saturating_sub(1));
    let focus = focus(result, &ev, last_begun);
    let last = match &focus {
        Some(f) if hidden => f.column.min(last_begun),
        _ => last_begun,
    };
    let plugin = &scenario.plugin;
    let columns: Vec<Column> = (0..=last)
        .map(|i| {
            let step = &scenario.steps[i].step;
            Column {
                at_ms: ev
                    .begun
                    .get(&i)
                    .copied()
                    .or_else(|| ev.records.get(&i).map(|r| r.at_ms))
                    .unwrap_or(0),
                advance_ms: plugin.advances_clock(step),
                action: plugin.describe(step),
                together: plugin.simultaneous(step),
            }
        })
        .collect();
    let mut timeline = Timeline {
        lanes: lanes(scenario, &ev, &columns),
        columns,
        focus,
        cut: hidden && last < scenario.steps.len() - 1,
        probe_word: plugin.picture_probe_word(),
        ..Timeline::default()
    };
    looks(scenario, &ev, &mut timeline);
    trials::mark(&mut timeline);
    Ok(timeline)
}

/// The step where the scenario went wrong, with what was expected and observed there.
fn focus(result: &ScenarioResult, ev: &Events<'_>, last_begun: usize) -> Option<Focus> {
    if result.status == Status::Passed {
        return None;
    }
    if let Some(f) = &result.failure {
        return Some(Focus {
            column: f.step.saturating_sub(1),
            expected: f.expected.clone(),
            observed: f.observed.clone(),
        });
    }
    // Stopped: a panic, requests stuck, a crash, the time limit.
    let column = ev
        .panicked_at
        .or(ev.stuck.map(|s| s.step))
        .or_else(|| (0..=last_begun).find(|i| !ev.records.contains_key(i)))
        .unwrap_or(last_begun);
    Some(Focus {
        column,
        expected: String::new(),
        observed: result.message.clone(),
    })
}

/// Every request sent during the steps shown.
fn lanes(scenario: &Scenario, ev: &Events<'_>, columns: &[Column]) -> Vec<Lane> {
    let plugin = &scenario.plugin;
    let shown = columns.len();
    let mut lanes: BTreeMap<u64, Lane> = BTreeMap::new();
    let mut ranks: BTreeMap<usize, usize> = BTreeMap::new();
    let mut new_lane = |id: u64, column: usize, ms: u64, lanes: &mut BTreeMap<u64, Lane>| {
        let rank = ranks.entry(column).or_default();
        let step = &scenario.steps[column].step;
        let lane = plugin.picture_lane(step);
        let band = lane
            .as_ref()
            .map_or_else(|| "requests".to_owned(), |l| l.band.clone());
        let traits = lane
            .and_then(|l| scenario.targets.iter().find(|t| t.name == l.target))
            .map(|t| plugin.picture_traits(&t.settings))
            .unwrap_or_default();
        lanes.insert(
            id,
            Lane {
                id,
                band,
                sent: (column, *rank),
                sent_ms: ms,
                end: None,
                outcome: String::new(),
                fate: Fate::Other,
                waits: BTreeMap::new(),
                probe: false,
                deadline_ms: traits.budget_ms.map(|b| ms + b),
                stuck: false,
            },
        );
        *rank += 1;
    };
    for (i, column) in columns.iter().enumerate().take(shown) {
        // When the harness knows the fake clock: sent, returned, waiting.
        for t in ev.times.get(&i).copied().unwrap_or(&[]) {
            if let Some(ms) = t.sent_ms {
                if !lanes.contains_key(&t.id) {
                    new_lane(t.id, i, ms, &mut lanes);
                }
            }
            let Some(lane) = lanes.get_mut(&t.id) else {
                continue;
            };
            if let Some(ms) = t.returned_ms {
                lane.end.get_or_insert((i, ms));
            }
            if let Some(word) = &t.waiting {
                let fate = plugin.picture_fate(word);
                if fate.waits() {
                    lane.waits.insert(i, fate);
                    lane.fate = fate;
                    lane.outcome = word.clone();
                }
            }
        }
        // The step's record: how each request it concerns ended, or waits.
        let Some(record) = ev.records.get(&i) else {
            continue;
        };
        for q in &record.requests {
            if !lanes.contains_key(&q.id) {
                new_lane(q.id, i, column.at_ms, &mut lanes);
            }
            let Some(lane) = lanes.get_mut(&q.id) else {
                continue;
            };
            let fate = plugin.picture_fate(&q.outcome);
            if fate.waits() {
                lane.waits.entry(i).or_insert(fate);
                if lane.end.is_none() {
                    lane.fate = fate;
                    lane.outcome = q.outcome.clone();
                }
            } else if q.outcome != "running" {
                lane.fate = fate;
                lane.outcome = q.outcome.clone();
                lane.end.get_or_insert((i, column.at_ms));
            }
        }
    }
    if let Some(stuck) = ev.stuck.filter(|s| s.step < shown) {
        for id in &stuck.requests {
            if !lanes.contains_key(id) {
                let ms = columns[stuck.step].at_ms;
                new_lane(*id, stuck.step, ms, &mut lanes);
            }
            if let Some(lane) = lanes.get_mut(id) {
                // Neither returned nor parked: whatever a driver called it, it did not wait
                // where it should.
                lane.stuck = true;
                lane.waits.clear();
                lane.end = None;
                lane.outcome = "stuck in the code under test".into();
                lane.fate = Fate::Other;
            }
        }
    }
    let mut lanes: Vec<Lane> = lanes.into_values().collect();
    for lane in &mut lanes {
        if lane.outcome.is_empty() {
            lane.outcome = "still out".into();
        }
    }
    lanes
}

/// The bands, counts and marks, from what the lab makes of each observation.
fn looks(scenario: &Scenario, ev: &Events<'_>, t: &mut Timeline) {
    let n = t.columns.len();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for i in 0..n {
        let Some(record) = ev.records.get(&i) else {
            continue;
        };
        let look = scenario.plugin.picture_look(&record.observation);
        for b in look.bands {
            let band = row(
                &mut t.bands,
                &b.name,
                |b| &b.name,
                || Band {
                    name: b.name.clone(),
                    after: vec![None; n],
                },
            );
            let word = b.state.unwrap_or_else(|| "unknown".into());
            band.after[i] = Some((word, b.tone));
        }
        for g in look.gauges {
            let gauge = row(
                &mut t.gauges,
                &g.name,
                |g| &g.name,
                || Gauge {
                    name: g.name.clone(),
                    values: vec![None; n],
                    peak: None,
                },
            );
            gauge.values[i] = Some(g.value);
            if g.peak.is_some() {
                gauge.peak = g.peak;
            }
        }
        // A record is new at this step if it shows more often than at the last one.
        let mut now: BTreeMap<(String, String), usize> = BTreeMap::new();
        for m in look.marks {
            let key = (m.band.clone(), m.text.clone());
            let count = now.entry(key.clone()).or_default();
            *count += 1;
            if *count > seen.get(&key).copied().unwrap_or(0) {
                t.marks.push(Mark {
                    column: i,
                    at_ms: m.at_ms,
                    band: m.band,
                    text: m.text,
                    kind: m.kind,
                    change: m.change,
                });
            }
        }
        for (key, count) in now {
            let old = seen.entry(key).or_default();
            *old = (*old).max(count);
        }
    }
    // A count that stayed at nothing says nothing.
    t.gauges
        .retain(|g| g.peak.unwrap_or(0) > 0 || g.values.iter().flatten().any(|v| *v > 0));
}

/// The row of `rows` named `name`, made with `make` (at the end) if there is none yet.
fn row<'a, T>(
    rows: &'a mut Vec<T>,
    name: &str,
    name_of: impl Fn(&T) -> &String,
    make: impl FnOnce() -> T,
) -> &'a mut T {
    let at = match rows.iter().position(|r| name_of(r) == name) {
        Some(at) => at,
        None => {
            rows.push(make());
            rows.len() - 1
        }
    };
    &mut rows[at]
}
