//! Requests to the code under test, each on a thread of its own, as every lab's driver
//! sends them: started together or one by one, waited for until each has returned or is
//! parked (held by a target, waiting on the fake clock: the lab's driver says which), and
//! reported stuck when neither happens in the allowed real time.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use grader_protocol::{RequestOutcome, StuckRecord};

use crate::{Failure, blocked, times};

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

/// A lab's names (`StuckRecord::seen`) for what [`Requests::look`] saw.
#[derive(Clone, Copy, Debug)]
pub struct LookKeys {
    /// The look returned: the lock it takes is free.
    pub readable: &'static str,
    /// The look blocked too: the lock it takes is held.
    pub blocked: &'static str,
    /// The look panicked: nothing can be told.
    pub panicked: &'static str,
}

/// How a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// What it waited for happened.
    Done,
    /// Every other thread was seen blocked for good first.
    Blocked,
    /// The real-time limit ran out first.
    OutOfTime,
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

/// The fake clock's milliseconds, as a lab's driver reads them.
type FakeNow = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Every request of a run.
pub struct Requests {
    notifier: Arc<dyn Notifier>,
    clock: Option<FakeNow>,
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
            clock: None,
            sent: Vec::new(),
            next_id: 1,
            stuck_after_ms,
            panicked: Arc::new(Mutex::new(false)),
        }
    }

    /// The same, noting when each request is sent and returns on the fake clock `now`
    /// (milliseconds), for the timeline picture of the scenario.
    pub fn with_clock(mut self, now: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(now));
        self
    }

    /// The real-time limit of a wait, in milliseconds: the last safety net.
    pub fn limit_ms(&self) -> u64 {
        self.stuck_after_ms
    }

    /// Starts one request on a thread named `request-<id>`: `call(id)` is what it does,
    /// and returns how it ended in the lab's words.
    /// A panic in `call` is caught and makes [`Requests::panicked`] true.
    pub fn spawn(
        &mut self,
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
        let clock = self.clock.clone();
        if let Some(now) = &clock {
            times::sent(id, now());
        }
        std::thread::Builder::new()
            .name(format!("request-{id}"))
            .spawn(move || {
                let finish = finish;
                let ended = match catch_unwind(AssertUnwindSafe(|| call(id))) {
                    Ok(outcome) => Ended::Returned(outcome),
                    Err(_) => {
                        *panicked.lock().unwrap_or_else(PoisonError::into_inner) = true;
                        Ended::Panicked
                    }
                };
                // Before the result is set: whoever sees it ended finds its time noted.
                if let Some(now) = &clock {
                    times::returned(id, now());
                }
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
            let id = self.spawn(move |id| call(id))?;
            self.settle(&[id], target, parked)?;
            ids.push(id);
        }
        Ok(ids)
    }

    /// Sends `count` requests to `target` at the same moment (of the fake clock) and
    /// waits until each has returned or is parked.
    ///
    /// They enter the code under test one after another: each once the one before has
    /// returned, is parked, or is blocked for good. What they see is then a function of
    /// the code alone, never of how the machine schedules threads, so racy code gets the
    /// same verdict on every run; interleaving them is the race checks' job, which try
    /// schedules on purpose and replay them. Unlike [`Requests::one_after_another`], a
    /// request that blocks does not stop the rest arriving; one still running when the
    /// time runs out (a loop) does, since the rest would only wait behind it.
    pub fn together(
        &mut self,
        count: u32,
        target: &str,
        call: impl Fn(u64) -> String + Send + Sync + 'static,
        parked: &dyn Fn(u64) -> bool,
    ) -> Result<Vec<u64>, Failure> {
        let call = Arc::new(call);
        let mut ids = Vec::new();
        let mut blocked = false;
        for _ in 0..count {
            let call = call.clone();
            let id = self.spawn(move |id| call(id))?;
            ids.push(id);
            match self.settle(&[id], target, parked) {
                Ok(()) => {}
                Err(Failure::Stuck(stuck)) if stuck.blocked => blocked = true,
                Err(_) => return self.settle(&ids, target, parked).map(|()| ids),
            }
        }
        if blocked {
            // Every request has arrived: the report names all that are stuck.
            self.settle(&ids, target, parked)?;
        }
        Ok(ids)
    }

    /// Waits until each of `ids` has returned or is parked; `target` names where they
    /// were sent, for the stuck report. They are stuck as soon as every other thread of
    /// the process is blocked for good ([`crate::blocked`]) while some of them have not
    /// settled: nothing could ever move them. The plan's real-time limit is only the last
    /// safety net, where that cannot be told.
    pub fn settle(
        &self,
        ids: &[u64],
        target: &str,
        parked: &dyn Fn(u64) -> bool,
    ) -> Result<(), Failure> {
        let settled = |id: u64| self.ended(id).is_some() || parked(id);
        let ended = self.wait_or_blocked(&mut || ids.iter().all(|&id| settled(id)));
        if ended == Wait::Done {
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
            blocked: ended == Wait::Blocked,
            reading: false,
            seen: None,
        }))
    }

    /// Runs `read` (a look at the code under test's state) on a thread of its own and
    /// returns what it returned; or, when it did not return, whether it blocked for good
    /// (`Err(true)`, as a read of a lock that a held request keeps does) or outlived the
    /// real-time limit (`Err(false)`, a loop).
    pub fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, bool> {
        let slot = Arc::new(Mutex::new(None));
        let finish = Finish {
            result: Arc::new(Mutex::new(None)),
            notifier: self.notifier.clone(),
        };
        let out = slot.clone();
        let spawned = std::thread::Builder::new()
            .name("observer".to_owned())
            .spawn(move || {
                let finish = finish;
                let value = read();
                *out.lock().unwrap_or_else(PoisonError::into_inner) = Some(value);
                *finish.result.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(Ended::Returned(String::new()));
            });
        if spawned.is_err() {
            return Err(false);
        }
        let done = || {
            slot.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some()
        };
        let ended = self.wait_or_blocked(&mut || done());
        let value = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        value.ok_or(ended == Wait::Blocked)
    }

    /// `failure` with what a look at the code under test's state showed, when it is
    /// requests blocked for good (`StuckRecord::seen`): the look returned
    /// (`keys.readable`), panicked (`keys.panicked`) or blocked too (`keys.blocked`), which
    /// tells whether the requests wait for the lock the look takes. Only then: a request
    /// that loops may hold that lock, and the look would wait for it until the time limit.
    pub fn look(
        &self,
        failure: Failure,
        look: impl FnOnce() + Send + 'static,
        keys: &LookKeys,
    ) -> Failure {
        match failure {
            Failure::Stuck(stuck) if stuck.blocked => {
                let read = self.read(move || catch_unwind(AssertUnwindSafe(look)).is_ok());
                let seen = match read {
                    Ok(true) => keys.readable,
                    Ok(false) => keys.panicked,
                    Err(_) => keys.blocked,
                };
                Failure::Stuck(StuckRecord {
                    seen: Some(seen.to_owned()),
                    ..stuck
                })
            }
            other => other,
        }
    }

    /// Waits until `done()`, until every other thread is blocked for good, or until the
    /// plan's real-time limit, and says which came first.
    fn wait_or_blocked(&self, done: &mut dyn FnMut() -> bool) -> Wait {
        let me = blocked::current_tid();
        // Short waits between looks at the other threads: a look costs a few file reads
        // per thread, and most steps settle before the first one.
        let mut waited = 0;
        let mut slice = 1;
        while waited < self.stuck_after_ms {
            let step = slice.min(self.stuck_after_ms - waited);
            if self.notifier.wait_for(Duration::from_millis(step), done) {
                return Wait::Done;
            }
            waited += step;
            slice = (slice * 2).min(50);
            if me.is_some_and(|me| blocked::all_blocked(&[me]) == Some(true)) {
                // Blocked for good; one last look, for what finished just before.
                return if done() { Wait::Done } else { Wait::Blocked };
            }
        }
        if done() { Wait::Done } else { Wait::OutOfTime }
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
