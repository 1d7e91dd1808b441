//! Schedules the runtime stopped: every thread waiting (a request that never returns) or
//! one thread that never waits (a busy loop), told in the lab's words.

use std::collections::BTreeMap;

use grader_protocol::Violation;
use race_std::trace::{self, Event, Held, What};

use crate::story;

/// A lab's words for a stopped schedule.
#[derive(Clone, Copy, Debug)]
pub struct Stops {
    /// What a thread waiting inside a fixture is doing, after its name (`is held inside a
    /// target, waiting to be let go`).
    pub held_inside: &'static str,
    /// What the code under test calls, that a thread may wait inside (`a target`).
    pub called: &'static str,
    /// The hint for a request that never returns.
    pub never_hint: &'static str,
    /// The hint for a thread that never waits.
    pub busy_hint: &'static str,
}

/// The schedule the runtime stopped because no thread could go on: what each waits for.
/// `step` is the action that was running.
pub fn never_returns(record: &[Event], step: Option<usize>, words: &Stops) -> Violation {
    let names = story::names(record);
    let held = trace::held();
    let mut last: BTreeMap<Option<usize>, &Event> = BTreeMap::new();
    let mut done: Vec<Option<usize>> = Vec::new();
    // Threads inside a fixture now (between its `enter` and `leave` notes): whatever they
    // wait on there is the fixture's.
    let mut inside: Vec<Option<usize>> = Vec::new();
    for e in record {
        let was_inside = inside.contains(&e.task);
        match e.what {
            What::Note {
                kind: "returned", ..
            } => done.push(e.task),
            What::Note { kind: "enter", .. } => inside.push(e.task),
            What::Note { kind: "leave", .. } => inside.retain(|t| *t != e.task),
            _ => {}
        }
        if !was_inside {
            last.insert(e.task, e);
        }
    }
    let mut about = Vec::new();
    let mut what = Vec::new();
    for (task, e) in last.into_iter().filter(|(t, _)| !done.contains(t)) {
        let who = story::who(&names, task);
        if who == "the grader" {
            // It waits for the step's requests: that is the step, not a cause.
            continue;
        }
        match &e.what {
            What::Acquire(lock, _) => {
                let holders: Vec<&Held> =
                    held.iter().filter(|h| h.lock.addr == lock.addr).collect();
                let mut line = format!(
                    "{who} waits for the {} at {}",
                    story::name(lock),
                    story::place(e.at)
                );
                for h in &holders {
                    let holder = story::who(&names, h.task);
                    line.push_str(&format!(
                        ", and {holder} holds it (taken at {})",
                        story::place(h.at)
                    ));
                    about.push(holder);
                }
                what.push(line);
            }
            What::Waits { .. } => what.push(format!(
                "{who} sleeps on a condition variable at {} that nobody will notify",
                story::place(e.at)
            )),
            What::Note { kind: "enter", .. } => {
                what.push(format!("{who} {}", words.held_inside));
            }
            _ if who.starts_with(story::noun()) => what.push(format!("{who} cannot go on")),
            _ => continue,
        }
        if who != "the grader" {
            about.push(who);
        }
    }
    about.sort();
    about.dedup();
    Violation {
        property: format!("every_{}_returns", story::noun()),
        step,
        expected: format!("every {} returns (no deadlock)", story::noun()),
        observed: format!("no thread could go on: {}", what.join("; ")),
        hint: words.never_hint.into(),
        unexplorable: false,
        about,
        until: None,
        mark: String::new(),
    }
}

/// The schedule the runtime stopped because a thread ran `max_steps` steps without ever
/// waiting.
pub fn busy_loop(
    record: &[Event],
    step: Option<usize>,
    max_steps: u64,
    words: &Stops,
) -> Violation {
    let names = story::names(record);
    let who = story::who(&names, record.last().and_then(|e| e.task));
    Violation {
        property: "busy_loop".into(),
        step,
        expected: format!(
            "every thread waits (on a lock, a condition variable, or {}) or finishes",
            words.called
        ),
        observed: format!(
            "{who} ran {max_steps} scheduling steps without waiting: a busy loop the race checks cannot explore"
        ),
        hint: words.busy_hint.into(),
        unexplorable: true,
        about: vec![who],
        until: None,
        mark: String::new(),
    }
}
