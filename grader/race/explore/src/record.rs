//! Reading the running schedule's record as it grows, for a lab's monitor: which step
//! runs, which request each task carries and where it was sent, the transition records a
//! kit crate noted, and each request's first touch of a lock or atomic of the code under
//! test (about when the code decided on it).
//!
//! A lab whose scenarios run several instances of the code under test against the same
//! targets (lab 6's fleet) says which instance each task acts for with a `lane` note: the
//! records a task writes then chain with those of its lane only, under the target's name
//! followed by the lane's (`shipping (instance 2)`).
//!
//! Two facts every lab's monitor may check come with it, kept apart from [`Seen`]:
//! records written from an answer after the state had already changed under the request
//! ([`Reader::stale`]), and how many other requests to the same target were out while a
//! request was ([`Reader::returns`]), which tells a rejection for want of room from one
//! with room to spare.

use std::collections::{BTreeMap, BTreeSet};

use grader_protocol::Violation;
use race_std::trace::{self, What};

use crate::story;

/// What the record says that a monitor acts on, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A transition record `target FROM TO` (a `record` note), written by `by` as event
    /// `at` of the record.
    Record {
        /// The target (or flow) whose state changed, followed by the writer's lane if it
        /// acts for one.
        target: String,
        /// The state before.
        from: String,
        /// The state after.
        to: String,
        /// Who wrote it (`request #2`, `the grader`).
        by: String,
        /// Its place in the record.
        at: usize,
        /// The target's record before it (`CLOSED -> OPEN`) and who wrote that, if any.
        after: Option<(String, String)>,
        /// Whether it starts in the state the one before it ended in (the first, in
        /// `CLOSED`).
        in_order: bool,
    },
    /// Request `id`, sent to `target`, touched a lock or atomic of the code under test
    /// for the first time.
    FirstTouch {
        /// The request.
        id: u64,
        /// Where it was sent, followed by its lane if it acts for one.
        target: String,
        /// Its target's state then, as its records say.
        state: String,
    },
}

impl Seen {
    /// The property `records_in_order` broken by this record (in step `step`), in the
    /// lab's words `hint`, if it does not start where the one before it ended.
    pub fn out_of_order(&self, step: usize, hint: &str) -> Option<Violation> {
        let Seen::Record {
            target,
            from,
            to,
            by,
            at,
            after,
            in_order: false,
        } = self
        else {
            return None;
        };
        let record = format!("{from} -> {to}");
        let after = after.clone();
        Some(out_of_order(
            target,
            &record,
            by.clone(),
            after,
            (step, *at),
            hint,
        ))
    }
}

/// A transition record written by a request after its call to the target had ended, when
/// another record of that target had been written since the call reached it: the request's
/// answer came from an earlier state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    /// The target.
    pub target: String,
    /// The record, `OPEN -> OPEN`.
    pub record: String,
    /// Who wrote it (`message #4`).
    pub by: String,
    /// Who wrote the first record of the target after the call reached it.
    pub changed_by: String,
    /// Its place in the record.
    pub at: usize,
    /// The step running then.
    pub step: usize,
}

/// A request that returned, with what it returned in its lab's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Returned {
    /// The request.
    pub id: u64,
    /// Where it was sent.
    pub target: String,
    /// What it returned (`no_capacity`, `E905`), or `panicked`.
    pub words: String,
    /// The most other requests to the same target that were out at once (sent and not yet
    /// returned) while it was: an upper bound on the slots they could hold.
    pub others: usize,
    /// Its place in the record.
    pub at: usize,
    /// The step running then.
    pub step: usize,
}

/// A reader of one schedule's record, from where it last stopped.
#[derive(Default)]
pub struct Reader {
    /// Events already read.
    read: usize,
    /// The action running.
    step: usize,
    /// Each request's target.
    sent: BTreeMap<u64, String>,
    /// The request each task carries.
    carries: BTreeMap<usize, u64>,
    /// Requests that have touched the code under test.
    touched: BTreeSet<u64>,
    /// The lane each task acts for, when it is not the target's only one.
    lanes: BTreeMap<usize, String>,
    /// Whether the kit made an object, by address: asked for every lock of the schedule.
    kit: BTreeMap<usize, bool>,
    /// Each target's state, as its last record says, and that record and who wrote it.
    chains: BTreeMap<String, (String, (String, String))>,
    /// Who wrote each target's records, in order.
    writers: BTreeMap<String, Vec<String>>,
    /// Each request whose call reached a target: the target, how many of its records
    /// there were then, and whether the call has ended.
    calls: BTreeMap<u64, (String, usize, bool)>,
    /// Per target, the requests out (sent, not returned) and, for each, the most others
    /// out at once since it was sent.
    out: BTreeMap<String, BTreeMap<u64, usize>>,
    stale: Vec<Stale>,
    returns: Vec<Returned>,
}

impl Reader {
    /// The action running, as the record says.
    pub fn step(&self) -> usize {
        self.step
    }

    /// The name under which `task`'s records of `target` chain: the target's, followed by
    /// the lane the task acts for.
    pub fn chain(&self, target: &str, task: Option<usize>) -> String {
        match task.and_then(|t| self.lanes.get(&t)) {
            Some(lane) => format!("{target}{lane}"),
            None => target.to_owned(),
        }
    }

    /// `target`'s state as its records say so far (`CLOSED` before the first).
    pub fn state(&self, target: &str) -> &str {
        self.chains.get(target).map_or("CLOSED", |(state, _)| state)
    }

    /// The request `task` carries, if it carries one (as the record read so far says).
    pub fn carried(&self, task: Option<usize>) -> Option<u64> {
        task.and_then(|t| self.carries.get(&t)).copied()
    }

    /// The name of whoever runs `task`: `request #3` (in the lab's noun) or `the grader`.
    pub fn who(&self, task: Option<usize>) -> String {
        match task.and_then(|t| self.carries.get(&t)) {
            Some(&id) => format!("{} #{id}", story::noun()),
            None => "the grader".to_owned(),
        }
    }

    /// Records written from answers of an earlier state, found since the last call.
    pub fn stale(&mut self) -> Vec<Stale> {
        std::mem::take(&mut self.stale)
    }

    /// Requests that returned since the last call.
    pub fn returns(&mut self) -> Vec<Returned> {
        std::mem::take(&mut self.returns)
    }

    /// A record of `target` by `task`, the `at`-th event: whether its writer's call had
    /// ended with the state already changed under it.
    fn note_writer(&mut self, target: &str, record: String, task: Option<usize>, at: usize) {
        let by = self.who(task);
        let written = self.writers.entry(target.to_owned()).or_default();
        let call = task
            .and_then(|t| self.carries.get(&t))
            .and_then(|id| self.calls.get(id));
        if let Some((called, since, true)) = call
            && called == target
            && let Some(other) = written.iter().skip(*since).find(|w| **w != by)
        {
            self.stale.push(Stale {
                target: target.to_owned(),
                record,
                by: by.clone(),
                changed_by: other.clone(),
                at,
                step: self.step,
            });
        }
        written.push(by);
    }

    /// Request `id`, sent to `target`, is out: every other one out sees one more.
    fn sent_out(&mut self, id: u64, target: &str) {
        let out = self.out.entry(target.to_owned()).or_default();
        out.insert(id, 0);
        let others = out.len() - 1;
        for most in out.values_mut() {
            *most = (*most).max(others);
        }
    }

    /// Request `id` returned `words`, the `at`-th event.
    fn came_back(&mut self, id: u64, words: String, at: usize) {
        let target = self.sent.get(&id).cloned().unwrap_or_default();
        let others = self
            .out
            .get_mut(&target)
            .and_then(|out| out.remove(&id))
            .unwrap_or(0);
        self.returns.push(Returned {
            id,
            target,
            words,
            others,
            at,
            step: self.step,
        });
    }

    /// What happened since the last read.
    pub fn read(&mut self) -> Vec<Seen> {
        enum Raw {
            Note(&'static str, u64, String, Option<usize>, usize),
            Carries(usize, u64),
            Lane(usize, String),
            Touch(usize),
        }
        let from = self.read;
        let kit = &mut self.kit;
        let raw: Vec<Raw> = trace::with_events(|events| {
            events
                .iter()
                .enumerate()
                .skip(from)
                .filter_map(|(i, e)| match &e.what {
                    What::Note {
                        kind: "request",
                        id,
                        ..
                    } => e.task.map(|task| Raw::Carries(task, *id)),
                    What::Note {
                        kind: "lane", text, ..
                    } => e.task.map(|task| Raw::Lane(task, text.clone())),
                    What::Note { kind, id, text } => {
                        Some(Raw::Note(kind, *id, text.clone(), e.task, i))
                    }
                    What::Acquired(o, _) | What::Atomic { object: o, .. }
                        if !*kit.entry(o.addr).or_insert_with(|| story::kit_made(o)) =>
                    {
                        e.task.map(Raw::Touch)
                    }
                    _ => None,
                })
                .collect()
        });
        self.read = trace::len();
        let mut seen = Vec::new();
        for raw in raw {
            match raw {
                Raw::Note("step", id, ..) => self.step = usize::try_from(id).unwrap_or(usize::MAX),
                Raw::Note("record", _, text, task, at) => {
                    let mut words = text.split(' ');
                    if let (Some(target), Some(from), Some(to)) =
                        (words.next(), words.next(), words.next())
                    {
                        self.note_writer(target, format!("{from} -> {to}"), task, at);
                        let target = self.chain(target, task);
                        let by = self.who(task);
                        let in_order = self.state(&target) == from;
                        let record = (format!("{from} -> {to}"), by.clone());
                        let after = self
                            .chains
                            .insert(target.clone(), (to.to_owned(), record))
                            .map(|(_, last)| last);
                        seen.push(Seen::Record {
                            target,
                            from: from.to_owned(),
                            to: to.to_owned(),
                            by,
                            at,
                            after,
                            in_order,
                        });
                    }
                }
                Raw::Note("sent", id, target, ..) => {
                    self.sent_out(id, &target);
                    self.sent.insert(id, target);
                }
                Raw::Note("enter", id, target, ..) => {
                    let records = self.writers.get(&target).map_or(0, Vec::len);
                    self.calls.insert(id, (target, records, false));
                }
                Raw::Note("leave", id, ..) => {
                    if let Some(call) = self.calls.get_mut(&id) {
                        call.2 = true;
                    }
                }
                Raw::Note("returned", id, words, _, at) => self.came_back(id, words, at),
                Raw::Note(..) => {}
                Raw::Carries(task, id) => {
                    self.carries.insert(task, id);
                }
                Raw::Lane(task, lane) => {
                    if lane.is_empty() {
                        self.lanes.remove(&task);
                    } else {
                        self.lanes.insert(task, lane);
                    }
                }
                Raw::Touch(task) => {
                    let Some(&id) = self.carries.get(&task) else {
                        continue;
                    };
                    if self.touched.insert(id) {
                        let sent = self.sent.get(&id).cloned().unwrap_or_default();
                        let target = self.chain(&sent, Some(task));
                        let state = self.state(&target).to_owned();
                        seen.push(Seen::FirstTouch { id, target, state });
                    }
                }
            }
        }
        seen
    }
}

/// The property `records_in_order`, broken by `record` of `target` (written by `by`, event
/// `at` of the record, in step `step`) when it came right after `after`; `hint` in the
/// lab's words.
pub fn out_of_order(
    target: &str,
    record: &str,
    by: String,
    after: Option<(String, String)>,
    (step, at): (usize, usize),
    hint: &str,
) -> Violation {
    let (observed, mut about) = match after {
        Some((before, writer)) => (
            format!("{target}'s record `{record}` was written right after `{before}`"),
            vec![writer],
        ),
        None => (
            format!("{target}'s first record is `{record}`, not from CLOSED"),
            Vec::new(),
        ),
    };
    if !about.contains(&by) {
        about.push(by);
    }
    Violation {
        property: "records_in_order".into(),
        step: Some(step),
        expected: format!("each {target} record starts in the state the one before it ended in"),
        observed,
        hint: hint.into(),
        unexplorable: false,
        about,
        until: Some(at + 1),
        mark: "out of order".into(),
    }
}

/// The property `old_answers_change_nothing`, broken by `stale`: `expected` says the rule in
/// the lab's words, `hint` how to keep it.
pub fn old_answer(stale: &Stale, expected: String, hint: &str) -> Violation {
    let Stale {
        target,
        record,
        by,
        changed_by,
        at,
        step,
    } = stale;
    Violation {
        property: "old_answers_change_nothing".into(),
        step: Some(*step),
        expected,
        observed: format!(
            "{by} wrote `{record}` for {target} from its answer, though {changed_by} had changed {target}'s state while {by}'s call was out"
        ),
        hint: hint.into(),
        unexplorable: false,
        about: vec![changed_by.clone(), by.clone()],
        until: Some(at + 1),
        mark: "written from an old answer".into(),
    }
}

/// The property `slot_freed_once`, broken by `back`, which got `rejection` (`E905`,
/// `no_capacity`) from a bulkhead that allows `limit`; `hint` in the lab's words.
pub fn slot_lost(back: &Returned, limit: u64, rejection: &str, hint: &str) -> Violation {
    let Returned {
        id,
        target,
        others,
        at,
        step,
        ..
    } = back;
    let noun = story::noun();
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    Violation {
        property: "slot_freed_once".into(),
        step: Some(*step),
        expected: format!(
            "{rejection} only while {limit} other {noun}{} for {target} hold its slots (its max_concurrent)",
            plural(limit)
        ),
        observed: format!(
            "{noun} #{id} got {rejection} while at most {others} other {noun}{} for {target} {} out: a slot taken earlier was never given back",
            plural(*others as u64),
            if *others == 1 { "was" } else { "were" }
        ),
        hint: hint.into(),
        unexplorable: false,
        about: vec![format!("{noun} #{id}")],
        until: Some(at + 1),
        mark: format!("{rejection} with a slot of {target} free"),
    }
}
