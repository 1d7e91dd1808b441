//! Where the monitor looks: each instance's dependencies and its clock, wrapped.
//!
//! A [`Watched`] dependency tells the monitor when a call reaches the dependency (checked
//! at once) and when it is answered (its calls in progress, which the slots must bound).
//! A [`WatchedClock`] tells it of every wait on the clock, with its reason and deadline,
//! before the wait begins.

use std::collections::BTreeMap;
use std::time::Duration;

use fixture_dependencies::ScriptedDependency;
use race_std::quiet::Mutex;
use race_std::sync::Arc;
use race_std::thread::ThreadId;
use race_std::trace;
use shipping_kit::{Call, Clock, Dependency, FakeClock, Waiting, Wake};

use crate::monitor;

/// Each request's thread (by the runtime's number for it), once it has started: the clock
/// names waiters by thread.
pub type Threads = Arc<Mutex<BTreeMap<usize, u64>>>;

/// The runtime's number for `thread`.
pub fn number(thread: ThreadId) -> usize {
    usize::from(thread)
}

/// One instance's view of a dependency, whose calls the monitor watches.
pub struct Watched {
    inner: Arc<ScriptedDependency>,
    /// The lane: the dependency as this instance protects it.
    lane: String,
}

impl Watched {
    /// Watches `inner`'s calls from the instance of `lane`.
    pub fn new(inner: Arc<ScriptedDependency>, lane: String) -> Self {
        Self { inner, lane }
    }
}

/// A call in progress: dropped when the call has its answer (or when starting it
/// panicked), it tells the monitor the call is over.
struct InProgress {
    lane: String,
    id: u64,
}

impl Drop for InProgress {
    fn drop(&mut self) {
        monitor::answered(&self.lane, self.id);
    }
}

impl Dependency for Watched {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn start(&self, request: u64) -> Call {
        let name = self.inner.name().to_owned();
        trace::note("enter", request, name.clone());
        monitor::calling(&self.lane, request);
        let in_progress = InProgress {
            lane: self.lane.clone(),
            id: request,
        };
        let call = self.inner.start(request);
        // Kept first, so let go first: the call is over before the slot the shop hands to
        // it comes back.
        call.keep_until_done(in_progress);
        trace::note("leave", request, name);
        call
    }
}

/// The clock one instance is given: the schedule's fake clock, whose waits the monitor
/// hears of first.
pub struct WatchedClock {
    inner: FakeClock,
    threads: Threads,
}

impl WatchedClock {
    /// Watches the waits on `inner`; `threads` names the requests' threads.
    pub fn new(inner: FakeClock, threads: Threads) -> Self {
        Self { inner, threads }
    }
}

/// How many requests sleep in each lane's queue now, by the clock's waiters.
pub fn queued_by_lane(clock: &FakeClock, threads: &Threads) -> BTreeMap<String, usize> {
    let mut queued = BTreeMap::new();
    for (id, why) in asleep(clock, threads) {
        if why == Waiting::Queue {
            if let Some(lane) = monitor::lane_of(id) {
                *queued.entry(lane).or_default() += 1;
            }
        }
    }
    queued
}

/// The requests waiting on `clock` now, and what for, in the order they began.
pub fn asleep(clock: &FakeClock, threads: &Threads) -> Vec<(u64, Waiting)> {
    let waiters = clock.waiters();
    let threads = threads.lock();
    waiters
        .iter()
        .filter_map(|w| Some((*threads.get(&number(w.thread))?, w.why)))
        .collect()
}

impl Clock for WatchedClock {
    fn now(&self) -> Duration {
        self.inner.now()
    }

    fn wait(&self, wake: &Wake, deadline: Duration, why: Waiting) {
        // Only a wait in the queue needs to know who else waits there: every look at the
        // clock is one more point where the explorer may switch threads.
        let queued = match why {
            Waiting::Queue => queued_by_lane(&self.inner, &self.threads),
            _ => BTreeMap::new(),
        };
        monitor::waits(why, deadline, &queued);
        self.inner.wait(wake, deadline, why);
    }
}
