//! A race check's picture: the schedule it broke on as a sequence, one lane per thread,
//! with the locks each took, waited for and let go, the condition variables it slept on,
//! the atomics it read and wrote and the calls it made, in the order the explorer ran
//! them, up to the move where the property broke. It tells the same threads and moves as
//! the text's interleaving (`judge::story`): the threads the property is about, from the
//! start of the step where it broke, and only locks and atomics made in the code under
//! test. A race check that passed on every schedule is drawn as the timeline of its first
//! schedule.

use std::collections::BTreeSet;
use std::path::Path;

use grader_protocol::{Event, TraceEvent, Violation};

use super::{Picture, timeline};
use crate::judge::race::Context;
use crate::report::{ScenarioResult, Status};
use crate::run::runner::Run;

/// Moves a picture keeps; earlier ones are left out (the text keeps 20 lines).
const MOST: usize = 80;

/// The schedule a race check broke on.
#[derive(Clone, Debug, Default)]
pub struct Sequence {
    /// The threads, in the order they first move.
    pub threads: Vec<String>,
    /// The locks, condition variables and atomics of the code under test, by name, in
    /// the order they first show.
    pub objects: Vec<String>,
    /// What the threads did, in the order the explorer ran it.
    pub moves: Vec<Move>,
    /// Moves left out before the first one kept.
    pub left_out: usize,
    /// What the last move shows, in words (`a second call reaches core_banking`): the
    /// property broke there.
    pub mark: String,
    /// The schedule's number, and how many were explored.
    pub schedule: (u64, u64),
    /// The command that runs exactly this schedule again.
    pub replay: String,
}

/// One move of one thread.
#[derive(Clone, Debug)]
pub struct Move {
    /// Index into [`Sequence::threads`].
    pub thread: usize,
    /// What it is.
    pub kind: MoveKind,
    /// Index into [`Sequence::objects`], for moves on a lock, condition variable or atomic.
    pub object: Option<usize>,
    /// The move in words, for its tooltip.
    pub text: String,
    /// Where in the code under test (a file of the student crate and a line), if known.
    pub at: String,
}

/// What a thread did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// Asks for a lock (and waits, if another thread holds it).
    Asks,
    /// Gets the lock.
    Locks,
    /// Lets it go.
    Unlocks,
    /// Tries a lock and finds it taken.
    FindsTaken,
    /// Sleeps on a condition variable.
    Sleeps,
    /// Wakes a sleeper.
    Wakes,
    /// Reads or writes an atomic.
    Atomic,
    /// Something the harness tells (reaching a target, writing a record, returning).
    Does,
}

/// The picture of a race check's run, judged as `result`.
pub fn picture(cx: &Context<'_>, run: &Run, result: &ScenarioResult, hidden: bool) -> Picture {
    let groups = schedules(&run.events);
    let Some(told) = &result.interleaving else {
        // Every schedule passed, or the first stopped (a `todo!()`): the first is drawn.
        let Some((_, first)) = groups.first() else {
            return Picture::Nothing(format!("no schedule was written ({})", result.message));
        };
        let explored = run
            .events
            .iter()
            .find_map(|e| match e {
                Event::Explored { schedules } => Some(*schedules),
                _ => None,
            })
            .unwrap_or(1);
        return match timeline::build(cx.scenario, first, result, hidden) {
            Ok(mut t) => {
                t.caption = Some(if result.status == Status::Passed {
                    format!(
                        "schedule 1 of {explored}; every schedule passed, and each that came out differently was judged like this one"
                    )
                } else {
                    "the first schedule, where the run stopped".to_owned()
                });
                Picture::Timeline(Box::new(t))
            }
            Err(why) => Picture::Nothing(why),
        };
    };
    let Some((_, group)) = groups.iter().find(|(i, _)| *i == told.schedule) else {
        return Picture::Nothing("the failing schedule's events were not written".into());
    };
    // An expectation that failed on this schedule (no property broke), or threads that
    // made no move worth telling: the schedule's steps say more.
    let failed_schedule = || match timeline::build(cx.scenario, group, result, hidden) {
        Ok(mut t) => {
            t.caption = Some(format!(
                "schedule {} of {} explored, the one that failed; replay it with {}",
                told.schedule, told.explored, told.replay
            ));
            Picture::Timeline(Box::new(t))
        }
        Err(why) => Picture::Nothing(why),
    };
    // A schedule told again in more detail (with call stacks) writes its violation and
    // trace a second time: the last of each belong together.
    let violation = group.iter().rev().find_map(|e| match e {
        Event::Violation(v) => Some(v),
        _ => None,
    });
    let Some(trace) = group.iter().rev().find_map(|e| match e {
        Event::Trace(t) => Some(t.as_slice()),
        _ => None,
    }) else {
        return failed_schedule();
    };
    let Some(v) = violation else {
        return failed_schedule();
    };
    let step = v
        .step
        .or_else(|| result.failure.as_ref().map(|f| f.step.saturating_sub(1)))
        .unwrap_or(0);
    let mut sequence = tell(cx, trace, v, step);
    if sequence.threads.is_empty() {
        return failed_schedule();
    }
    sequence.schedule = (told.schedule, told.explored);
    sequence.replay = told.replay.clone();
    if sequence.mark.is_empty() {
        if let Some(f) = &result.failure {
            sequence.mark = f.observed.clone();
        }
    }
    Picture::Sequence(Box::new(sequence))
}

/// The events of each schedule written, by number.
fn schedules(events: &[Event]) -> Vec<(u64, Vec<Event>)> {
    let mut groups: Vec<(u64, Vec<Event>)> = Vec::new();
    for e in events {
        match e {
            Event::Schedule { index } => groups.push((*index, Vec::new())),
            other => {
                if let Some((_, g)) = groups.last_mut() {
                    g.push(other.clone());
                }
            }
        }
    }
    groups.sort_by_key(|(i, _)| *i);
    groups
}

/// Where step `step` begins in the trace.
fn step_start(trace: &[TraceEvent], step: usize) -> usize {
    trace
        .iter()
        .position(|e| e.who == "the grader" && e.what == "step" && e.text == step.to_string())
        .unwrap_or(0)
}

/// The moves of the threads `v` is about, from the start of `step` to where it broke.
fn tell(cx: &Context<'_>, trace: &[TraceEvent], v: &Violation, step: usize) -> Sequence {
    let start = step_start(trace, step);
    let cut = v.until.unwrap_or(trace.len()).min(trace.len());
    let window = &trace[start.min(cut)..cut];
    let who: BTreeSet<&String> = v.about.iter().collect();
    let mut s = Sequence {
        mark: cx.show_places(&v.mark),
        ..Sequence::default()
    };
    let mut objects: Vec<u64> = Vec::new();
    for e in window.iter().filter(|e| who.contains(&e.who)) {
        let ours = e.object.as_ref().filter(|o| mine(cx, &o.made));
        let kind = match (e.what.as_str(), ours) {
            ("acquire", Some(_)) => MoveKind::Asks,
            ("acquired", Some(_)) => MoveKind::Locks,
            ("released", Some(_)) => MoveKind::Unlocks,
            ("try_failed", Some(_)) => MoveKind::FindsTaken,
            ("waits", Some(_)) => MoveKind::Sleeps,
            ("notifies", Some(_)) => MoveKind::Wakes,
            ("atomic", Some(_)) => MoveKind::Atomic,
            ("does", _) => MoveKind::Does,
            _ => continue,
        };
        let thread = match s.threads.iter().position(|t| *t == e.who) {
            Some(i) => i,
            None => {
                s.threads.push(e.who.clone());
                s.threads.len() - 1
            }
        };
        let object = ours.map(|o| match objects.iter().position(|id| *id == o.id) {
            Some(i) => i,
            None => {
                objects.push(o.id);
                s.objects.push(o.name.clone());
                objects.len() - 1
            }
        });
        let at = place(cx, e);
        let name = ours.map_or("", |o| o.name.as_str());
        let text = match kind {
            MoveKind::Asks => format!("asks for {name}"),
            MoveKind::Locks if e.text == "shared" => format!("locks {name} to read"),
            MoveKind::Locks => format!("locks {name}"),
            MoveKind::Unlocks => format!("unlocks {name}"),
            MoveKind::FindsTaken => format!("finds {name} taken"),
            MoveKind::Sleeps => format!("sleeps on {name}"),
            MoveKind::Wakes => format!("wakes a sleeper of {name}"),
            MoveKind::Atomic => format!("{name}: {}", e.text),
            MoveKind::Does => cx.show_places(&e.text),
        };
        s.moves.push(Move {
            thread,
            kind,
            object,
            text,
            at,
        });
    }
    if s.moves.len() > MOST {
        s.left_out = s.moves.len() - MOST;
        s.moves.drain(..s.left_out);
    }
    s
}

/// Whether `place` (`file:line:column`) is in the code under test.
fn mine(cx: &Context<'_>, place: &str) -> bool {
    let place = cx.resolve(place);
    let file = place.rsplitn(3, ':').nth(2).unwrap_or(&place);
    Path::new(file).starts_with(cx.crate_dir)
}

/// Where `e` happened in the code under test, as people know the place (without the
/// column): its innermost frame there, or the place the runtime noted.
fn place(cx: &Context<'_>, e: &TraceEvent) -> String {
    let at = e
        .stack
        .iter()
        .filter_map(|f| f.at.as_deref())
        .find(|at| mine(cx, at))
        .unwrap_or(&e.at);
    let shown = cx.show(at);
    match shown.rsplit_once(':') {
        Some((rest, column)) if column.parse::<u32>().is_ok() => rest.to_owned(),
        _ => shown,
    }
}
