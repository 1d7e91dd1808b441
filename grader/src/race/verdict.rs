//! Judging a race scenario: every outcome the harness wrote is judged as a normal run of
//! the scenario; a broken property becomes a failure that says what broke, on which
//! schedule, and how to replay it.

use std::collections::BTreeMap;
use std::path::Path;

use grader_protocol::{Event, StepRecord, TraceEvent, Violation};

use crate::build::Subject;
use crate::judge::{clock, describe};
use crate::report::{Failure, Interleaving, ScenarioResult, Status};
use crate::runner::{Ending, Run};
use crate::scenario::Scenario;

/// What judging needs besides the run.
pub struct Context<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The crate under test.
    pub subject: &'a Subject,
    /// The lab's name, for the replay command.
    pub lab: &'a str,
    /// The wall-clock limit per scenario.
    pub timeout_ms: u64,
    /// Harness paths as people know them.
    pub shown: &'a dyn Fn(&str) -> String,
}

impl Context<'_> {
    /// `place` (`file:line:column`) with an absolute file. Cargo names the files of a crate
    /// inside the generated workspace relative to the workspace (`subject/src/relay.rs`).
    pub fn resolve(&self, place: &str) -> String {
        if Path::new(place).is_absolute() {
            return place.to_owned();
        }
        match self.subject.crate_dir.parent() {
            Some(ws) => ws.join(place).display().to_string(),
            None => place.to_owned(),
        }
    }

    /// `place` as people know it (`crates/relay_base/src/breaker.rs:96:20`).
    pub fn show(&self, place: &str) -> String {
        (self.shown)(&self.resolve(place))
    }
}

/// A verdict, and whether it needs the story of a schedule the harness did not tell.
pub struct Judged {
    /// The result.
    pub result: ScenarioResult,
    /// A schedule that failed an expectation and was written without its story.
    pub untold: Option<u64>,
}

/// The events of one schedule.
#[derive(Default)]
struct Group<'a> {
    index: u64,
    events: Vec<Event>,
    violation: Option<&'a Violation>,
    trace: Option<&'a [TraceEvent]>,
}

/// Judges the run of a race scenario.
pub fn judge(cx: &Context<'_>, run: &Run) -> Judged {
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut explored = None;
    for event in &run.events {
        match event {
            Event::Schedule { index } => groups.push(Group {
                index: *index,
                ..Group::default()
            }),
            Event::Explored { schedules } => explored = Some(*schedules),
            _ => {
                let Some(group) = groups.last_mut() else {
                    continue;
                };
                match event {
                    Event::Violation(v) => group.violation = Some(v),
                    // A later story of the same schedule has call stacks: it wins.
                    Event::Trace(t) => group.trace = Some(t),
                    other => group.events.push(other.clone()),
                }
            }
        }
    }
    groups.sort_by_key(|g| g.index);
    let explored_or = |i: u64| explored.unwrap_or(i).max(i);
    for group in &groups {
        if let Some(v) = group.violation {
            return Judged {
                result: broken(cx, group, v, explored_or(group.index)),
                untold: None,
            };
        }
        let sub = Run {
            events: group.events.clone(),
            ending: Ending::Exited(0),
            stderr: String::new(),
        };
        let mut result = crate::judge::judge(cx.scenario, &sub, cx.shown, cx.timeout_ms);
        if result.status == Status::Passed {
            continue;
        }
        // A panic on the very first schedule (the skeleton's todo!(), say) is no race:
        // report it as any scenario would.
        if result.stopped_at.is_some() && group.index == 1 {
            return Judged {
                result,
                untold: None,
            };
        }
        let of = explored_or(group.index);
        result.message = format!("on schedule {} of {of}: {}", group.index, result.message);
        let untold = match (group.trace, &result.failure) {
            (Some(trace), Some(f)) => {
                let step = f.step - 1;
                let lines = super::story::step(cx, trace, step);
                result.interleaving = Some(interleaving(cx, group.index, of, lines));
                None
            }
            (Some(_), None) => {
                result.interleaving = Some(interleaving(cx, group.index, of, Vec::new()));
                None
            }
            (None, _) => Some(group.index),
        };
        return Judged { result, untold };
    }
    let result = match (explored, &run.ending) {
        (Some(n), _) => passed(cx, n),
        (None, Ending::TimedOut) => unfinished(
            cx,
            Status::Timeout,
            format!(
                "exploring the schedules did not finish within {} s",
                crate::judge::duration(cx.timeout_ms)
            ),
        ),
        (None, ending) => unfinished(
            cx,
            Status::Error,
            format!(
                "the race harness stopped before it finished exploring ({}){}",
                match ending {
                    Ending::Exited(code) => format!("exit status {code}"),
                    Ending::Signaled(sig) => format!("killed by signal {sig}"),
                    Ending::TimedOut => "timed out".into(),
                },
                first_line(&run.stderr)
            ),
        ),
    };
    Judged {
        result,
        untold: None,
    }
}

fn first_line(text: &str) -> String {
    match text.lines().find(|l| !l.trim().is_empty()) {
        Some(l) => format!(": {}", l.trim()),
        None => String::new(),
    }
}

fn base(cx: &Context<'_>) -> ScenarioResult {
    let s = cx.scenario;
    ScenarioResult {
        name: s.name.clone(),
        title: s.title.clone(),
        category: s.category.clone(),
        status: Status::Passed,
        score: s.points,
        max_score: s.points,
        message: "passed".into(),
        failure: None,
        hint: None,
        timeline: Vec::new(),
        backtrace: None,
        stopped_at: None,
        interleaving: None,
    }
}

fn passed(cx: &Context<'_>, schedules: u64) -> ScenarioResult {
    ScenarioResult {
        message: format!("passed on every one of {schedules} schedules"),
        ..base(cx)
    }
}

fn unfinished(cx: &Context<'_>, status: Status, message: String) -> ScenarioResult {
    ScenarioResult {
        status,
        score: 0,
        message,
        ..base(cx)
    }
}

fn interleaving(
    cx: &Context<'_>,
    schedule: u64,
    explored: u64,
    lines: Vec<String>,
) -> Interleaving {
    Interleaving {
        schedule,
        explored,
        lines,
        replay: format!(
            "grader check {} --scenario {} --schedule {schedule}",
            cx.lab, cx.scenario.name
        ),
    }
}

/// The result of a schedule that broke a property.
fn broken(cx: &Context<'_>, group: &Group<'_>, v: &Violation, explored: u64) -> ScenarioResult {
    let steps = &cx.scenario.steps;
    let mut records: BTreeMap<usize, &StepRecord> = BTreeMap::new();
    let mut begun: BTreeMap<usize, u64> = BTreeMap::new();
    for e in &group.events {
        match e {
            Event::Step(r) => {
                records.insert(r.step, r);
            }
            Event::Begin { step, at_ms } => {
                begun.insert(*step, *at_ms);
            }
            _ => {}
        }
    }
    let said = property(cx, v);
    let step = said.step.unwrap_or(steps.len());
    let (action, at) = match steps.get(step) {
        Some(placed) => (
            describe(&placed.step),
            begun.get(&step).map_or_else(|| "?".into(), |ms| clock(*ms)),
        ),
        None => (
            "after the last step: every held call let go, every request awaited".to_owned(),
            begun
                .values()
                .last()
                .map_or_else(|| "?".into(), |ms| clock(*ms)),
        ),
    };
    let failure = Failure {
        step: step + 1,
        at: at.clone(),
        action: action.clone(),
        expected: said.expected,
        observed: said.observed.clone(),
    };
    let lines = group
        .trace
        .map(|t| super::story::violation(cx, t, v, step))
        .unwrap_or_default();
    ScenarioResult {
        status: said.status,
        score: 0,
        message: format!(
            "step {} at {at} ({action}): on schedule {} of {explored}, {}",
            step + 1,
            group.index,
            said.observed
        ),
        failure: Some(failure),
        hint: Some(said.hint.to_owned()),
        timeline: crate::judge::timeline(cx.scenario, &records, &begun, Some(step)),
        interleaving: Some(interleaving(cx, group.index, explored, lines)),
        ..base(cx)
    }
}

/// A broken property in words.
struct Said {
    status: Status,
    step: Option<usize>,
    expected: String,
    observed: String,
    hint: &'static str,
}

const TRIAL_HINT: &str = "Decide \"this request is the trial\" and mark the trial as taken in one locked section: a request that checks under the lock, lets it go, and marks under it again can be overtaken in between by another request that saw the same \"no trial yet\".";
const LIMIT_HINT: &str = "Check the count and take the slot in one step: under one lock (check and increment while holding it), or with one atomic compare-and-swap (or fetch_update). A load followed by a separate store or add lets two requests both see a free slot.";
const RECORDS_HINT: &str = "Write each transition record while you still hold the lock under which the state changed. A record written after the lock is let go can be overtaken by the next change's record.";
const LOCK_HINT: &str = "Let go of every lock before calling the target: decide under the lock, drop the guard, call, then lock again to learn from the answer. Name the guard in a block, or call drop(guard), so it ends before the call.";
const NEVER_HINT: &str = "A request waits for something that never comes: a lock held by a request that is itself waiting inside a target (a lock held across the call), a slot it waits for instead of returning E905, or a lock it already holds (a std Mutex is not re-entrant).";
const BUSY_HINT: &str = "A thread loops without ever waiting, for example spinning on an atomic until a slot frees. Do not wait for a slot at all: return E905 at once.";

fn requests(ids: &[u64]) -> String {
    let names: Vec<String> = ids.iter().map(|id| format!("#{id}")).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => format!("request {last}"),
        Some((last, rest)) => format!("requests {} and {last}", rest.join(", ")),
    }
}

fn property(cx: &Context<'_>, v: &Violation) -> Said {
    let shown = |p: &str| cx.show(p);
    match v {
        Violation::SingleTrial {
            step,
            target,
            requests: ids,
        } => Said {
            status: Status::Failed,
            step: Some(*step),
            expected: format!("at most 1 call reaches {target} while its breaker is HALF_OPEN"),
            observed: format!(
                "{} calls reached {target} while its breaker was HALF_OPEN ({})",
                ids.len(),
                requests(ids)
            ),
            hint: TRIAL_HINT,
        },
        Violation::OverLimit {
            step,
            target,
            limit,
            requests: ids,
        } => Said {
            status: Status::Failed,
            step: Some(*step),
            expected: format!("at most {limit} calls in progress at {target} (its max_concurrent)"),
            observed: format!(
                "{} calls were in progress at {target} at once ({})",
                ids.len(),
                requests(ids)
            ),
            hint: LIMIT_HINT,
        },
        Violation::RecordsOutOfOrder {
            step,
            target,
            before,
            record,
        } => Said {
            status: Status::Failed,
            step: Some(*step),
            expected: format!(
                "each {target} record starts in the state the one before it ended in"
            ),
            observed: match before {
                Some(b) => format!("{target}'s record `{record}` was written right after `{b}`"),
                None => format!("{target}'s first record is `{record}`, not from CLOSED"),
            },
            hint: RECORDS_HINT,
        },
        Violation::LockHeldDuringCall {
            step,
            target,
            request,
            locks,
            taken_at,
        } => {
            let held: Vec<String> = locks
                .iter()
                .zip(taken_at)
                .map(|(l, at)| {
                    format!(
                        "the {} taken at {} (made at {})",
                        super::story::object_name(l),
                        shown(at),
                        shown(&l.made)
                    )
                })
                .collect();
            Said {
                status: Status::Failed,
                step: Some(*step),
                expected: format!("no lock of the relay is held while {target} is called"),
                observed: format!(
                    "request #{request} called {target} while holding {}",
                    held.join(" and ")
                ),
                hint: LOCK_HINT,
            }
        }
        Violation::NeverReturns { step, waiting } => {
            let what: Vec<String> = waiting
                .iter()
                .filter(|w| w.on != "other" || w.who.starts_with("request"))
                .map(|w| super::story::waiting(cx, w))
                .collect();
            Said {
                status: Status::Failed,
                step: *step,
                expected: "every request returns (no deadlock)".into(),
                observed: format!("no thread could go on: {}", what.join("; ")),
                hint: NEVER_HINT,
            }
        }
        Violation::BusyLoop {
            step,
            max_steps,
            who,
        } => Said {
            status: Status::Error,
            step: *step,
            expected:
                "every thread waits (on a lock, a condition variable, or a target) or finishes"
                    .into(),
            observed: format!(
                "{who} ran {max_steps} scheduling steps without waiting: a busy loop the race checks cannot explore"
            ),
            hint: BUSY_HINT,
        },
    }
}
