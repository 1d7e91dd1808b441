//! Requests to the code under test, each on a thread of its own, as every lab's driver
//! sends them: started together or one by one, waited for until each has returned or is
//! parked (held by a target, waiting on the fake clock: the lab's driver says which), and
//! reported stuck when neither happens in the allowed real time.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Barrier, Mutex, PoisonError};
use std::time::Duration;

use grader_protocol::{RequestOutcome, StuckRecord};

use crate::Failure;

/// Wakes whoever waits when something happens (a request returned, a call was parked),
/// and lets them wait. A lab's fixtures announce on the same one, so one wait sees both.
pub trait Notifier: Send + Sync + 'static {
    /// Something happened.
    fn bump(&self);
    /// Waits until `done()` or until `limit` of real time passed without it; returns
    /// whether `done()` became true. The only real time a harness reads: a safety net
    /// that correct code never reaches.
    fn wait_for(&self, limit: Duration, done: &mut dyn FnMut() -> bool) -> bool;
}

/// How one request thread ended, once it has.
#[derive(Clone, Debug)]
enum Ended {
    Returned(String),
    Panicked,
}

/// A request sent during the run, and where its result will appear.
struct Sent {
    id: u64,
    result: Arc<Mutex<Option<Ended>>>,
}

/// Sets a request's result even if the code under test panics, and announces it.
struct Finish {
    result: Arc<Mutex<Option<Ended>>>,
    notifier: Arc<dyn Notifier>,
}

impl Drop for Finish {
    fn drop(&mut self) {
        let mut slot = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(Ended::Panicked);
        }
        drop(slot);
        self.notifier.bump();
    }
}

/// Every request of a run.
pub struct Requests {
    notifier: Arc<dyn Notifier>,
    sent: Vec<Sent>,
    next_id: u64,
    stuck_after_ms: u64,
    panicked: Arc<Mutex<bool>>,
}

impl Requests {
    /// No requests yet; `notifier` is the lab's, `stuck_after_ms` the plan's.
    pub fn new(notifier: Arc<dyn Notifier>, stuck_after_ms: u64) -> Self {
        Requests {
            notifier,
            sent: Vec::new(),
            next_id: 1,
            stuck_after_ms,
            panicked: Arc::new(Mutex::new(false)),
        }
    }

    /// A gate for `n` requests that leave at the same instant: each waits there until
    /// all of them and the caller, who passes it last, have arrived.
    pub fn gate(n: usize) -> Arc<Barrier> {
        Arc::new(Barrier::new(n + 1))
    }

    /// Starts one request on a thread named `request-<id>`: `call(id)` is what it does,
    /// and returns how it ended in the lab's words. With a `gate`, it waits there first.
    /// A panic in `call` is caught and makes [`Requests::panicked`] true.
    pub fn spawn(
        &mut self,
        gate: Option<Arc<Barrier>>,
        call: impl FnOnce(u64) -> String + Send + 'static,
    ) -> Result<u64, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        let result = Arc::new(Mutex::new(None));
        let finish = Finish {
            result: result.clone(),
            notifier: self.notifier.clone(),
        };
        let panicked = self.panicked.clone();
        std::thread::Builder::new()
            .name(format!("request-{id}"))
            .spawn(move || {
                let finish = finish;
                if let Some(gate) = gate {
                    gate.wait();
                }
                let ended = match catch_unwind(AssertUnwindSafe(|| call(id))) {
                    Ok(outcome) => Ended::Returned(outcome),
                    Err(_) => {
                        *panicked.lock().unwrap_or_else(PoisonError::into_inner) = true;
                        Ended::Panicked
                    }
                };
                *finish.result.lock().unwrap_or_else(PoisonError::into_inner) = Some(ended);
            })
            .map_err(|e| Failure::BadPlan(format!("cannot start a request thread: {e}")))?;
        self.sent.push(Sent { id, result });
        Ok(id)
    }

    /// Sends `count` requests to `target` one after the other: each starts once the one
    /// before has returned or is parked (`parked(id)`). `call(id)` is what each does.
    pub fn one_after_another(
        &mut self,
        count: u32,
        target: &str,
        call: impl Fn(u64) -> String + Send + Sync + 'static,
        parked: &dyn Fn(u64) -> bool,
    ) -> Result<Vec<u64>, Failure> {
        let call = Arc::new(call);
        let mut ids = Vec::new();
        for _ in 0..count {
            let call = call.clone();
            let id = self.spawn(None, move |id| call(id))?;
            self.settle(&[id], target, parked)?;
            ids.push(id);
        }
        Ok(ids)
    }

    /// Sends `count` requests to `target` at the same moment and waits until each has
    /// returned or is parked.
    ///
    /// Every request thread waits at a gate until all of them are ready, then they call
    /// the code under test at the same instant: as much contention as threads can make,
    /// so a race between "may I go?" and "I am going" shows up.
    pub fn together(
        &mut self,
        count: u32,
        target: &str,
        call: impl Fn(u64) -> String + Send + Sync + 'static,
        parked: &dyn Fn(u64) -> bool,
    ) -> Result<Vec<u64>, Failure> {
        let call = Arc::new(call);
        let gate = Self::gate(count as usize);
        let ids = (0..count)
            .map(|_| {
                let call = call.clone();
                self.spawn(Some(gate.clone()), move |id| call(id))
            })
            .collect::<Result<Vec<_>, _>>()?;
        gate.wait();
        self.settle(&ids, target, parked)?;
        Ok(ids)
    }

    /// Waits until each of `ids` has returned or is parked; `target` names where they
    /// were sent, for the stuck report.
    pub fn settle(
        &self,
        ids: &[u64],
        target: &str,
        parked: &dyn Fn(u64) -> bool,
    ) -> Result<(), Failure> {
        let settled = |id: u64| self.ended(id).is_some() || parked(id);
        let ok = self
            .notifier
            .wait_for(Duration::from_millis(self.stuck_after_ms), &mut || {
                ids.iter().all(|&id| settled(id))
            });
        if ok {
            return Ok(());
        }
        let stuck = ids.iter().copied().filter(|&id| !settled(id)).collect();
        Err(Failure::Stuck(StuckRecord {
            step: 0,
            at_ms: 0,
            requests: stuck,
            sent: ids.len() as u64,
            target: target.to_owned(),
            waited_ms: self.stuck_after_ms,
        }))
    }

    /// How each of `ids` ended so far: its outcome, `panicked`, or `parked` (the lab's
    /// word for a request parked in a target, such as `held`).
    pub fn outcomes(&self, ids: &[u64], parked: &str) -> Vec<RequestOutcome> {
        ids.iter()
            .map(|&id| RequestOutcome {
                id,
                outcome: match self.ended(id) {
                    Some(Ended::Returned(outcome)) => outcome,
                    Some(Ended::Panicked) => "panicked".to_owned(),
                    None => parked.to_owned(),
                },
            })
            .collect()
    }

    /// Whether the code under test has panicked, in a request or where
    /// [`Requests::mark_panicked`] was told.
    pub fn panicked(&self) -> bool {
        *self.panicked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a panic of the code under test outside a request (while observing it).
    pub fn mark_panicked(&self) {
        *self.panicked.lock().unwrap_or_else(PoisonError::into_inner) = true;
    }

    fn ended(&self, id: u64) -> Option<Ended> {
        let sent = self.sent.iter().find(|s| s.id == id)?;
        sent.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
