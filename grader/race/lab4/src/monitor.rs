//! The properties checked on every schedule, as it runs.
//!
//! Targets are wrapped in [`Watched`], which notes every call that reaches a target. Each
//! time a call arrives, and after each step, the monitor reads the schedule's record up to
//! now: the steps, and the transition records the race build of `relay_kit` notes as they
//! are written. From these it checks:
//!
//! - at most one call reaches a target while its breaker is HALF_OPEN (as its records say);
//! - no more calls are inside a target at once than its bulkhead allows;
//! - each transition record of a target starts where the one before it ended;
//! - the thread that reaches a target holds no lock of the code under test.
//!
//! The first property that breaks is kept; the schedule still runs to its end.

use std::cell::RefCell;
use std::collections::BTreeMap;

use fixture_targets::ScriptedTarget;
use grader_protocol::Violation;
use race_std::sync::Arc;
use race_std::trace::{self, What};
use relay_kit::{Code, Request, Target};

use crate::story;

/// What the monitor knows about one target on the running schedule.
struct Watch {
    /// The state its last record moved to.
    state: String,
    /// The last record, as printed (`OPEN -> HALF_OPEN`).
    last: Option<String>,
    /// Requests that reached it since its breaker last became HALF_OPEN, while it was.
    trial_calls: Vec<u64>,
    /// Requests inside it now, in the order they entered.
    inside: Vec<u64>,
}

impl Default for Watch {
    fn default() -> Self {
        Self {
            state: "CLOSED".to_owned(),
            last: None,
            trial_calls: Vec::new(),
            inside: Vec::new(),
        }
    }
}

#[derive(Default)]
struct Monitor {
    /// Events of the record already read.
    read: usize,
    /// The action running.
    step: usize,
    targets: BTreeMap<String, Watch>,
    /// Each request's target.
    sent: BTreeMap<u64, String>,
    /// The request each task carries.
    carries: BTreeMap<usize, u64>,
    /// For each request, its target's state (as recorded) when the request first touched a
    /// lock or atomic of the code under test: about when the breaker decided on it.
    arrived_in: BTreeMap<u64, String>,
    /// Whether the kit made an object, by address: asked for every lock of the schedule.
    kit: BTreeMap<usize, bool>,
    found: Option<Violation>,
}

thread_local! {
    static MONITOR: RefCell<Monitor> = RefCell::new(Monitor::default());
}

/// Forgets the last schedule.
pub fn reset() {
    MONITOR.with_borrow_mut(|m| *m = Monitor::default());
}

/// The first property the running schedule broke, if any.
pub fn take() -> Option<Violation> {
    MONITOR.with_borrow_mut(|m| m.found.take())
}

/// Checks what the last step wrote.
pub fn after_step() {
    MONITOR.with_borrow_mut(Monitor::read_record);
}

impl Monitor {
    fn report(&mut self, violation: Violation) {
        if self.found.is_none() {
            self.found = Some(violation);
        }
    }

    /// Reads the record from where it last stopped: steps, requests, transition records,
    /// and the first touch of each request on the code under test's locks and atomics.
    fn read_record(&mut self) {
        enum Seen {
            Note(&'static str, u64, String),
            Carries(usize, u64),
            Touch(usize),
        }
        let seen: Vec<Seen> = trace::with_events(|events| {
            events[self.read.min(events.len())..]
                .iter()
                .filter_map(|e| match &e.what {
                    What::Note {
                        kind: "request",
                        id,
                        ..
                    } => e.task.map(|task| Seen::Carries(task, *id)),
                    What::Note { kind, id, text } => Some(Seen::Note(kind, *id, text.clone())),
                    What::Acquired(o, _) | What::Atomic { object: o, .. }
                        if !*self.kit.entry(o.addr).or_insert_with(|| story::kit_made(o)) =>
                    {
                        e.task.map(Seen::Touch)
                    }
                    _ => None,
                })
                .collect()
        });
        self.read = trace::len();
        for seen in seen {
            match seen {
                Seen::Note("step", id, _) => self.step = usize::try_from(id).unwrap_or(usize::MAX),
                Seen::Note("record", _, text) => self.recorded(&text),
                Seen::Note("sent", id, target) => {
                    self.sent.insert(id, target);
                }
                Seen::Carries(task, id) => {
                    self.carries.insert(task, id);
                }
                Seen::Note(..) => {}
                Seen::Touch(task) => {
                    let Some(&id) = self.carries.get(&task) else {
                        continue;
                    };
                    if self.arrived_in.contains_key(&id) {
                        continue;
                    }
                    let state = self
                        .sent
                        .get(&id)
                        .and_then(|t| self.targets.get(t))
                        .map_or("CLOSED", |w| w.state.as_str())
                        .to_owned();
                    self.arrived_in.insert(id, state);
                }
            }
        }
    }

    /// A transition record `target FROM TO` was written.
    fn recorded(&mut self, text: &str) {
        let mut words = text.split(' ');
        let (Some(target), Some(from), Some(to)) = (words.next(), words.next(), words.next())
        else {
            return;
        };
        let step = self.step;
        let watch = self.targets.entry(target.to_owned()).or_default();
        let record = format!("{from} -> {to}");
        let out_of_order = watch.state != from;
        let before = watch.last.replace(record.clone());
        watch.state = to.to_owned();
        if from == "HALF_OPEN" || to == "HALF_OPEN" {
            watch.trial_calls.clear();
        }
        if out_of_order {
            self.report(Violation::RecordsOutOfOrder {
                step,
                target: target.to_owned(),
                before,
                record,
            });
        }
    }

    /// Request `id` reached `target`, whose bulkhead allows `limit`.
    fn entered(&mut self, target: &str, id: u64, limit: u64) {
        self.read_record();
        let step = self.step;
        let held = trace::held_by_me();
        let late = self.arrived_in.get(&id).is_some_and(|s| s == "CLOSED");
        let watch = self.targets.entry(target.to_owned()).or_default();
        watch.inside.push(id);
        let inside = watch.inside.clone();
        // A call the breaker let through while CLOSED may reach the target late, after
        // the circuit opened and a trial began: it is not a second trial.
        let trial_calls = if watch.state == "HALF_OPEN" && !late {
            watch.trial_calls.push(id);
            watch.trial_calls.clone()
        } else {
            Vec::new()
        };
        if !held.is_empty() {
            self.report(Violation::LockHeldDuringCall {
                step,
                target: target.to_owned(),
                request: id,
                locks: held.iter().map(|h| story::object(&h.lock)).collect(),
                taken_at: held.iter().map(|h| story::place(h.at)).collect(),
            });
        }
        if inside.len() as u64 > limit {
            self.report(Violation::OverLimit {
                step,
                target: target.to_owned(),
                limit,
                requests: inside,
            });
        }
        if trial_calls.len() > 1 {
            self.report(Violation::SingleTrial {
                step,
                target: target.to_owned(),
                requests: trial_calls,
            });
        }
    }

    fn left(&mut self, target: &str, id: u64) {
        if let Some(watch) = self.targets.get_mut(target) {
            watch.inside.retain(|&i| i != id);
        }
    }
}

/// A scripted target whose calls the monitor watches.
pub struct Watched {
    inner: Arc<ScriptedTarget>,
    limit: u64,
}

impl Watched {
    /// Watches `inner`, whose bulkhead allows `limit` calls at once.
    pub fn new(inner: Arc<ScriptedTarget>, limit: u64) -> Self {
        Self { inner, limit }
    }
}

/// A call inside a target: dropping it, however the call ends, notes that it left.
struct Inside<'a> {
    target: &'a str,
    id: u64,
}

impl Drop for Inside<'_> {
    fn drop(&mut self) {
        trace::note("leave", self.id, self.target);
        MONITOR.with_borrow_mut(|m| m.left(self.target, self.id));
    }
}

impl Target for Watched {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn call(&self, request: &Request) -> Code {
        let target = self.inner.name();
        trace::note("enter", request.id, target);
        MONITOR.with_borrow_mut(|m| m.entered(target, request.id, self.limit));
        let _inside = Inside {
            target,
            id: request.id,
        };
        self.inner.call(request)
    }
}
