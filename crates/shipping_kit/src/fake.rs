//! The grader's clock: time moves only when told, and waiters wake when it passes their
//! deadline.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

use crate::wait::Hook;
use crate::{Clock, Waiting, Wake};

/// A clock that moves only when told, and whose waiters wake only when it moves past
/// their deadline (or their bell rings).
///
/// Clones share one timeline. It starts at zero. In your own tests, [`FakeClock::advance`]
/// moves it and wakes every waiter whose deadline it reached. The grader moves it one
/// waiter at a time instead ([`FakeClock::waiters`], [`FakeClock::wake_one`]), letting
/// everything that waiter sets off settle before it wakes the next.
#[derive(Clone, Default)]
pub struct FakeClock {
    inner: Arc<Timeline>,
}

#[derive(Default)]
struct Timeline {
    state: Mutex<Moment>,
    /// Called whenever a thread starts waiting and whenever a waiting thread is woken.
    on_change: Option<Hook>,
}

#[derive(Default)]
struct Moment {
    now: Duration,
    waits: Vec<Entry>,
    next_seq: u64,
}

struct Entry {
    seq: u64,
    deadline: Duration,
    thread: ThreadId,
    why: Waiting,
    wake: Wake,
}

/// A thread waiting on a [`FakeClock`], as the grader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiter {
    /// Which wait (numbered in the order the waits started).
    pub seq: u64,
    /// When it ends unless its bell rings first.
    pub deadline: Duration,
    /// The waiting thread.
    pub thread: ThreadId,
    /// What it waits for.
    pub why: Waiting,
}

impl fmt::Debug for FakeClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FakeClock({:?})", self.now())
    }
}

impl FakeClock {
    /// A fake clock reading zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fake clock reading zero that calls `on_change` whenever a thread starts waiting
    /// on it and whenever a waiting thread is woken, from the thread that made the change.
    pub fn with_observer(on_change: impl Fn() + Send + Sync + 'static) -> Self {
        Self {
            inner: Arc::new(Timeline {
                state: Mutex::default(),
                on_change: Some(Arc::new(on_change)),
            }),
        }
    }

    /// Moves time forward by `by` and wakes every waiter whose deadline is reached, the
    /// earliest deadline first.
    pub fn advance(&self, by: Duration) {
        let mut due = {
            let mut moment = self.lock();
            moment.now += by;
            let now = moment.now;
            moment
                .waits
                .iter()
                .filter(|e| e.deadline <= now)
                .map(|e| (e.deadline, e.seq, e.wake.clone()))
                .collect::<Vec<_>>()
        };
        due.sort_by_key(|&(deadline, seq, _)| (deadline, seq));
        for (_, _, wake) in due {
            wake.ring();
        }
    }

    /// Moves time forward to `to`, waking nobody; earlier times are ignored.
    pub fn set(&self, to: Duration) {
        let mut moment = self.lock();
        moment.now = moment.now.max(to);
    }

    /// Every thread waiting right now (woken ones excluded), in the order they began.
    pub fn waiters(&self) -> Vec<Waiter> {
        let moment = self.lock();
        moment
            .waits
            .iter()
            .filter(|e| !e.wake.is_rung())
            .map(|e| Waiter {
                seq: e.seq,
                deadline: e.deadline,
                thread: e.thread,
                why: e.why,
            })
            .collect()
    }

    /// Moves time to waiter `seq`'s deadline (never backwards) and wakes it; false if no
    /// such waiter is waiting.
    pub fn wake_one(&self, seq: u64) -> bool {
        let wake = {
            let mut moment = self.lock();
            let Some(entry) = moment.waits.iter().find(|e| e.seq == seq) else {
                return false;
            };
            let (deadline, wake) = (entry.deadline, entry.wake.clone());
            moment.now = moment.now.max(deadline);
            wake
        };
        let was_waiting = !wake.is_rung();
        wake.ring();
        was_waiting
    }

    /// What `thread` is waiting for, if it is waiting on this clock and not yet woken.
    pub fn waiting(&self, thread: ThreadId) -> Option<Waiting> {
        let moment = self.lock();
        let entry = moment.waits.iter().find(|e| e.thread == thread)?;
        (!entry.wake.is_rung()).then_some(entry.why)
    }

    fn lock(&self) -> MutexGuard<'_, Moment> {
        // Nothing that can panic runs under this lock.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn changed(&self) {
        if let Some(hook) = &self.inner.on_change {
            hook();
        }
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        self.lock().now
    }

    fn wait(&self, wake: &Wake, deadline: Duration, why: Waiting) {
        let seq = {
            let mut moment = self.lock();
            if deadline <= moment.now || !wake.arm(self.inner.on_change.clone()) {
                return;
            }
            let seq = moment.next_seq;
            moment.next_seq += 1;
            moment.waits.push(Entry {
                seq,
                deadline,
                thread: std::thread::current().id(),
                why,
                wake: wake.clone(),
            });
            seq
        };
        self.changed();
        wake.block();
        self.lock().waits.retain(|e| e.seq != seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Waits (real time, test only) until `clock` has `n` waiters.
    fn until_waiting(clock: &FakeClock, n: usize) {
        while clock.waiters().len() != n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_sleeper_wakes_when_time_reaches_its_deadline() {
        let clock = FakeClock::new();
        let sleeper = {
            let clock = clock.clone();
            std::thread::spawn(move || {
                clock.sleep_until(ms(20));
                clock.now()
            })
        };
        until_waiting(&clock, 1);
        assert_eq!(clock.waiters()[0].why, Waiting::Pause);
        assert_eq!(clock.waiters()[0].deadline, ms(20));
        clock.advance(ms(19));
        assert_eq!(clock.waiters().len(), 1, "19 ms: still asleep");
        clock.advance(ms(1));
        assert_eq!(sleeper.join().unwrap(), ms(20));
    }

    #[test]
    fn a_wait_whose_deadline_has_come_or_whose_bell_rang_returns_at_once() {
        let clock = FakeClock::new();
        clock.advance(ms(5));
        clock.sleep_until(ms(5));
        let wake = Wake::new();
        wake.ring();
        clock.wait(&wake, ms(1000), Waiting::Queue);
        assert!(clock.waiters().is_empty());
    }

    #[test]
    fn the_grader_wakes_one_waiter_at_a_time_and_is_told_of_every_change() {
        let changes = Arc::new(AtomicUsize::new(0));
        let counter = changes.clone();
        let clock = FakeClock::with_observer(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let late = Wake::new();
        let threads: Vec<_> = [(30, late.clone()), (10, Wake::new())]
            .into_iter()
            .map(|(deadline, wake)| {
                let clock = clock.clone();
                std::thread::spawn(move || clock.wait(&wake, ms(deadline), Waiting::Queue))
            })
            .collect();
        until_waiting(&clock, 2);
        let first = clock
            .waiters()
            .into_iter()
            .min_by_key(|w| w.deadline)
            .unwrap();
        assert_eq!(clock.waiting(first.thread), Some(Waiting::Queue));
        assert!(clock.wake_one(first.seq));
        assert_eq!(clock.now(), ms(10));
        until_waiting(&clock, 1);
        // Its bell wakes the other one before its deadline.
        late.ring();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(clock.now(), ms(10));
        clock.set(ms(7));
        assert_eq!(clock.now(), ms(10), "time never goes back");
        // Two waits began, two waiters were woken.
        assert!(changes.load(Ordering::SeqCst) >= 3);
    }
}
