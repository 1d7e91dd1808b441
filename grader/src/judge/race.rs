//! Judging a race scenario: every outcome the race harness wrote is judged as a normal run
//! of the scenario; a broken property, in the words of the lab's race harness, becomes a
//! result that says what broke, on which schedule, tells that schedule, and says how to
//! replay it.

use std::collections::BTreeMap;

use grader_protocol::{Event, StepRecord, TraceEvent, Violation};

pub use super::context::Context;
use super::timeline::timeline;
use super::{clock, describe, judge};
use crate::report::{Failure, Interleaving, ScenarioResult, Status};
use crate::run::runner::{Ending, Run};

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
pub fn judge_race(cx: &Context<'_>, run: &Run) -> Judged {
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
    // A replay that broke on an earlier schedule than the one asked for says so.
    let earlier = |index: u64| match cx.replay {
        Some(asked) if index < asked => {
            format!("replaying schedule {asked}: schedule {index} breaks before it, ")
        }
        _ => String::new(),
    };
    for group in &groups {
        if let Some(v) = group.violation {
            let mut result = broken(cx, group, v, explored_or(group.index));
            result.message = format!("{}{}", earlier(group.index), result.message);
            return Judged {
                result,
                untold: None,
            };
        }
        let sub = Run {
            events: group.events.clone(),
            ending: Ending::Exited(0),
            stderr: String::new(),
            unreadable: None,
        };
        let mut result = judge(cx.scenario, &sub, cx.shown, cx.timeout_ms);
        if result.status == Status::Passed {
            continue;
        }
        // What the race harness wrote of a panic names places in the race build.
        result.message = cx.show_places(&result.message);
        result.stopped_at = result.stopped_at.as_deref().map(|s| cx.show_places(s));
        // A panic on the very first schedule (the skeleton's todo!(), say) is no race:
        // report it as any scenario would.
        if result.stopped_at.is_some() && group.index == 1 {
            return Judged {
                result,
                untold: None,
            };
        }
        let of = explored_or(group.index);
        result.message = format!(
            "{}on schedule {} of {of}: {}",
            earlier(group.index),
            group.index,
            result.message
        );
        let untold = match group.trace {
            Some(trace) => {
                let lines = match &result.failure {
                    Some(f) => super::story::step(cx, trace, f.step - 1),
                    None => Vec::new(),
                };
                result.interleaving = Some(interleaving(cx, group.index, of, lines));
                None
            }
            None => Some(group.index),
        };
        return Judged { result, untold };
    }
    // A replayed schedule that passed is told all the same: the interleaving a failing
    // report named can be watched again once the code is fixed.
    if let (Some(asked), Some(n)) = (cx.replay, explored) {
        if let Some(trace) = groups
            .iter()
            .find(|g| g.index == asked)
            .and_then(|g| g.trace)
        {
            let (step, lines) = super::story::busiest(cx, trace);
            let step_words = step.map_or_else(String::new, |s| {
                format!(
                    "; its story is step {} ({})",
                    s + 1,
                    describe(cx.scenario, s)
                )
            });
            return Judged {
                result: ScenarioResult {
                    message: format!("passed on schedule {asked}, replayed{step_words}"),
                    interleaving: Some(interleaving(cx, asked, n.max(asked), lines)),
                    ..base(cx)
                },
                untold: None,
            };
        }
    }
    let result = match (explored, &run.ending) {
        (Some(n), _) => ScenarioResult {
            message: if n == 1 {
                "passed on the one schedule explored".to_owned()
            } else {
                format!("passed on every one of {n} schedules")
            },
            ..base(cx)
        },
        (None, Ending::TimedOut) => unfinished(
            cx,
            Status::Timeout,
            format!(
                "exploring the schedules did not finish within {}",
                super::duration(cx.timeout_ms)
            ),
        ),
        (None, ending) => unfinished(
            cx,
            Status::Error,
            format!(
                "{} ({}){}",
                super::limits::RACE_STOPPED,
                match ending {
                    Ending::Exited(code) => format!("exit status {code}"),
                    Ending::Signaled(sig) => format!("killed by signal {sig}"),
                    Ending::TimedOut => "timed out".into(),
                },
                match run
                    .unreadable
                    .as_deref()
                    .or_else(|| { run.stderr.lines().find(|l| !l.trim().is_empty()) })
                {
                    Some(why) => format!(": {}", why.trim()),
                    None => String::new(),
                }
            ),
        ),
    };
    Judged {
        result,
        untold: None,
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
        settings: Vec::new(),
        hint: None,
        timeline: Vec::new(),
        backtrace: None,
        stopped_at: None,
        interleaving: None,
        stuck: false,
        rule: None,
        likely_cause: None,
        pointers: Vec::new(),
        other_rule: false,
    }
}

fn unfinished(cx: &Context<'_>, status: Status, message: String) -> ScenarioResult {
    ScenarioResult {
        status,
        score: 0,
        message,
        settings: cx.scenario.changed_settings.clone(),
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
    let step = v.step.unwrap_or(steps.len()).min(steps.len());
    let (action, at) = if step < steps.len() {
        (
            describe(cx.scenario, step),
            begun.get(&step).map_or_else(|| "?".into(), |ms| clock(*ms)),
        )
    } else {
        (
            "after the last step: every held call let go, every request awaited".to_owned(),
            begun
                .values()
                .last()
                .map_or_else(|| "?".into(), |ms| clock(*ms)),
        )
    };
    let observed = cx.show_places(&v.observed);
    let failure = Failure {
        step: step + 1,
        at: at.clone(),
        action: action.clone(),
        expected: v.expected.clone(),
        observed: observed.clone(),
    };
    let lines = group
        .trace
        .map(|t| super::story::violation(cx, t, v, step))
        .unwrap_or_default();
    // The lab's rule for the property; the hint is the race harness's, which words what
    // goes wrong when threads interleave.
    let pointers = super::rules::violation_pointers(cx.scenario, v);
    let rule = super::rules::own_rule(cx.scenario, &pointers);
    ScenarioResult {
        status: if v.unexplorable {
            Status::Error
        } else {
            Status::Failed
        },
        score: 0,
        message: format!(
            "step {} at {at} ({action}): on schedule {} of {explored}, {observed}",
            step + 1,
            group.index,
        ),
        failure: Some(failure),
        settings: cx.scenario.changed_settings.clone(),
        hint: Some(v.hint.clone()),
        timeline: timeline(cx.scenario, &records, &begun, Some(step)),
        interleaving: Some(interleaving(cx, group.index, explored, lines)),
        stuck: false,
        other_rule: rule
            .as_ref()
            .is_some_and(|r| cx.scenario.rule.as_deref() != Some(r.id.as_str())),
        rule,
        pointers,
        ..base(cx)
    }
}
