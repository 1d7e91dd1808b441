//! The properties checked on every schedule, as it runs, and what breaking each means, in
//! words.
//!
//! Targets are wrapped in [`Watched`], which notes every call that reaches a target. Each
//! time a call arrives, and after each step, the monitor reads the schedule's record up to
//! now: the steps, the requests, and the transition records the race build of `relay_kit`
//! notes as they are written. From these it checks:
//!
//! - at most one call reaches a target while its breaker is HALF_OPEN (as its records say);
//! - no more calls are inside a target at once than its bulkhead allows;
//! - each transition record of a target starts where the one before it ended;
//! - the thread that reaches a target holds no lock of the code under test;
//! - an answer that comes back after the target's state changed under its request (another
//!   request wrote a record of the target while the call was out) writes no record, unless
//!   it opens a circuit that has closed again since (rule 21 allows counting it);
//! - a request gets `E905` only when as many other requests to its target as the bulkhead
//!   allows were out at once while it was: otherwise a slot was lost, given back fewer
//!   times than taken.
//!
//! The first property that breaks is kept; the schedule still runs to its end. A schedule
//! the runtime stops (every thread waiting, or one that never waits) is told by the
//! explorer (`race_explore::stops`) in the words of [`NEVER_HINT`] and [`BUSY_HINT`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use grader_protocol::Violation;
use race_explore::props::{self, Arrival, Arrivals, Calls, Rounds, Said};
use race_explore::record::{Reader, Seen, old_answer};
use race_std::sync::Arc;
use race_std::trace;
use relay_kit::{Code, Request, Target};

const TRIAL_HINT: &str = "Decide \"this request is the trial\" and mark the trial as taken in one locked section: a request that checks under the lock, lets it go, and marks under it again can be overtaken in between by another request that saw the same \"no trial yet\".";
const LIMIT_HINT: &str = "Check the count and take the slot in one step: under one lock (check and increment while holding it), or with one atomic compare-and-swap (or fetch_update). A load followed by a separate store or add lets two requests both see a free slot.";
const RECORDS_HINT: &str = "Write each transition record while you still hold the lock under which the state changed. A record written after the lock is let go can be overtaken by the next change's record.";
const OLD_HINT: &str = "Look at the state and act on the answer in the same locked section: a request that sees CLOSED, lets the lock go and takes it again to count its failure can find the circuit already opened (or a trial out) by then, and acts on an old answer.";
const SLOT_HINT: &str = "Give a slot back exactly once and in one step: a decrement under the same lock that counts (or one atomic fetch_sub). Reading the count under the lock, letting it go and writing count - 1 under it again can overwrite a give-back that happened in between, and that slot is gone for good.";
const LOCK_HINT: &str = "Let go of every lock before calling the target: decide under the lock, drop the guard, call, then lock again to learn from the answer. Name the guard in a block, or call drop(guard), so it ends before the call.";
/// The hint for a request that never returns.
pub const NEVER_HINT: &str = "A request waits for something that never comes: a lock held by a request that is itself waiting inside a target (a lock held across the call), a slot it waits for instead of returning E905, or a lock it already holds (a std Mutex is not re-entrant).";
/// The hint for a thread that never waits.
pub const BUSY_HINT: &str = "A thread loops without ever waiting, for example spinning on an atomic until a slot frees. Do not wait for a slot at all: return E905 at once.";

#[derive(Default)]
struct Monitor {
    /// The schedule's record, read as it grows.
    record: Reader,
    /// The calls at each target (its state is the record reader's).
    targets: BTreeMap<String, Calls>,
    /// For each request, its target's state (as recorded) when the request first touched a
    /// lock or atomic of the code under test: about when the breaker decided on it.
    arrived_in: Arrivals,
    /// Each target's bulkhead limit, once a call has reached it or from the plan.
    limits: BTreeMap<String, u64>,
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
        for seen in self.record.read() {
            if let Some(v) = seen.out_of_order(self.record.step(), RECORDS_HINT) {
                self.report(v);
            }
            match seen {
                Seen::Record {
                    target, from, to, ..
                } => {
                    let calls = self.targets.entry(target).or_default();
                    calls.recorded(&from, &to);
                }
                Seen::FirstTouch { id, state, .. } => {
                    self.arrived_in.insert(id, Arrival::new(state, 0));
                }
            }
        }
        for stale in self.record.stale() {
            // A late failure may open a circuit that has closed again since it was sent.
            if stale.record != "CLOSED -> OPEN" {
                self.report(old_answer(&stale, format!("a late answer from {} changes nothing while the circuit is OPEN or its trial is out", stale.target), OLD_HINT));
            }
        }
        let limits = &self.limits;
        let limit = |target: &str| limits.get(target).copied().unwrap_or(u64::MAX);
        for v in props::lost_slots(&mut self.record, limit, "E905", SLOT_HINT) {
            self.report(v);
        }
    }

    /// Request `id` reached `target`, whose bulkhead allows `limit`.
    fn entered(&mut self, target: &str, id: u64, limit: u64) {
        self.limits.insert(target.to_owned(), limit);
        self.read_record();
        let step = self.record.step();
        let held = trace::held_by_me();
        // A call the breaker let through while CLOSED may reach the target late, after the
        // circuit opened and a trial began: it is not a second trial.
        let half_open = self.record.state(target) == "HALF_OPEN";
        let arrived = self.arrived_in.get(&id);
        let calls = self.targets.entry(target.to_owned()).or_default();
        let (inside, trial_calls) = calls.entered(id, half_open, arrived, Rounds::OneTrial);
        if !held.is_empty() {
            let callee = ("relay", target);
            self.report(props::called_holding(callee, step, id, &held, LOCK_HINT));
        }
        if inside.len() as u64 > limit {
            let v = props::bulkhead_limit(step, target, limit, &inside, LIMIT_HINT);
            self.report(v);
        }
        if trial_calls.len() > 1 {
            let said = Said {
                property: "single_trial",
                expected: format!("at most 1 call reaches {target} while its breaker is HALF_OPEN"),
                mark: format!("another call while {target} is HALF_OPEN"),
                hint: TRIAL_HINT,
            };
            let during = "while its breaker was HALF_OPEN";
            let v = props::too_many_probes(said, step, (target, during), &trial_calls);
            self.report(v);
        }
    }

    fn left(&mut self, target: &str, id: u64) {
        if let Some(calls) = self.targets.get_mut(target) {
            calls.left(id);
        }
    }
}

/// Each target's bulkhead limit, from the plan, before any call reaches it.
pub fn set_limits(limits: BTreeMap<String, u64>) {
    MONITOR.with_borrow_mut(|m| m.limits = limits);
}

/// A mock system whose calls the monitor watches.
pub struct Watched {
    inner: Arc<dyn Target>,
    limit: u64,
}

impl Watched {
    /// Watches `inner`, whose bulkhead allows `limit` calls at once.
    pub fn new(inner: Arc<dyn Target>, limit: u64) -> Self {
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
