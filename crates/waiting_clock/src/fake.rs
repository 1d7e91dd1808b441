//! The grader's clock: time moves only when told, and waiters wake when it passes their
//! deadline.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::thread::ThreadId;
use std::time::Duration;

use crate::quiet::Quiet;
use crate::wait::Hook;
use crate::{Clock, Waiting, Wake};

/// A clock that moves only when told, and whose waiters wake only when it moves past
/// their deadline (or their bell rings).
///
/// Clones share one timeline. It starts at zero. In your own tests, [`FakeClock::advance`]
/// moves it and wakes every waiter whose deadline it reached. The grader moves it one
/// waiter at a time instead ([`FakeClock::waiters`], [`FakeClock::wake_one`]), letting
/// everything that waiter sets off settle before it wakes the next; and on a
/// [`FakeClock::serial`] clock it also decides when a waiter whose bell rang goes on
/// ([`FakeClock::let_go`]), so that threads woken together never race each other.
#[derive(Clone, Default)]
pub struct FakeClock {
    inner: Arc<Timeline>,
}

#[derive(Default)]
struct Timeline {
    state: Mutex<Moment>,
    /// `Moment::now`, kept beside it where reading it needs no lock of the timeline's: code
    /// under test reads the clock often, and in the race checks each of those reads would
    /// otherwise be a point where the explorer switches threads.
    now: Quiet<Duration>,
    /// Called whenever a thread starts waiting and whenever a waiting thread is woken.
    on_change: Option<Hook>,
    /// Whether a waiter whose bell rang stays asleep until [`FakeClock::let_go`].
    serial: bool,
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
    /// What the thread blocks on: the bell it waits for, or on a serial clock a bell of
    /// the clock's own, rung when the clock lets the thread go.
    blocker: Wake,
    /// Serial clocks: the bell the thread waits for has rung.
    rung: bool,
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
    /// On a serial clock: its bell has rung, and it goes on when the clock lets it go.
    pub rung: bool,
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
        Self::build(on_change, false)
    }

    /// As [`FakeClock::with_observer`], but a waiter whose bell rings does not go on by
    /// itself: it stays asleep, listed by [`FakeClock::waiters`] as `rung`, until
    /// [`FakeClock::let_go`] (or [`FakeClock::wake_one`]) lets it go. The grader lets the
    /// threads a change woke go on one at a time, each settling before the next, in an
    /// order the scenario chooses, so which of them acts first never depends on the
    /// machine's thread scheduler.
    pub fn serial(on_change: impl Fn() + Send + Sync + 'static) -> Self {
        Self::build(on_change, true)
    }

    fn build(on_change: impl Fn() + Send + Sync + 'static, serial: bool) -> Self {
        Self {
            inner: Arc::new(Timeline {
                state: Mutex::default(),
                now: Quiet::default(),
                on_change: Some(Arc::new(on_change)),
                serial,
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
            *self.inner.now.lock() = now;
            moment
                .waits
                .iter()
                .filter(|e| e.deadline <= now)
                .map(|e| (e.deadline, e.seq, e.blocker.clone()))
                .collect::<Vec<_>>()
        };
        due.sort_by_key(|&(deadline, seq, _)| (deadline, seq));
        for (_, _, blocker) in due {
            blocker.ring();
        }
    }

    /// Moves time forward to `to`, waking nobody; earlier times are ignored.
    pub fn set(&self, to: Duration) {
        let mut moment = self.lock();
        moment.now = moment.now.max(to);
        *self.inner.now.lock() = moment.now;
    }

    /// Every thread waiting right now (those already let go excluded), in the order they
    /// began.
    pub fn waiters(&self) -> Vec<Waiter> {
        let moment = self.lock();
        moment
            .waits
            .iter()
            .filter(|e| !e.blocker.is_rung())
            .map(|e| Waiter {
                seq: e.seq,
                deadline: e.deadline,
                thread: e.thread,
                why: e.why,
                rung: e.rung,
            })
            .collect()
    }

    /// Moves time to waiter `seq`'s deadline (never backwards) and wakes it; false if no
    /// such waiter is waiting.
    pub fn wake_one(&self, seq: u64) -> bool {
        self.release(seq, true)
    }

    /// Lets waiter `seq` go on without moving time (on a serial clock, a waiter whose bell
    /// has rung); false if no such waiter is waiting.
    pub fn let_go(&self, seq: u64) -> bool {
        self.release(seq, false)
    }

    fn release(&self, seq: u64, to_deadline: bool) -> bool {
        let blocker = {
            let mut moment = self.lock();
            let Some(entry) = moment.waits.iter().find(|e| e.seq == seq) else {
                return false;
            };
            let (deadline, blocker) = (entry.deadline, entry.blocker.clone());
            if to_deadline {
                moment.now = moment.now.max(deadline);
                *self.inner.now.lock() = moment.now;
            }
            blocker
        };
        let was_waiting = !blocker.is_rung();
        blocker.ring();
        was_waiting
    }

    /// What `thread` is waiting for, if it is waiting on this clock and not yet let go.
    pub fn waiting(&self, thread: ThreadId) -> Option<Waiting> {
        let moment = self.lock();
        let entry = moment.waits.iter().find(|e| e.thread == thread)?;
        (!entry.blocker.is_rung()).then_some(entry.why)
    }

    fn lock(&self) -> MutexGuard<'_, Moment> {
        lock(&self.inner)
    }

    fn changed(&self) {
        if let Some(hook) = &self.inner.on_change {
            hook();
        }
    }

    /// What ringing the bell of wait `seq` tells the clock: on a serial clock, that the
    /// waiter may be let go; then, on any clock, that something changed.
    fn hook(&self, seq: u64) -> Option<Hook> {
        if !self.inner.serial {
            return self.inner.on_change.clone();
        }
        let timeline: Weak<Timeline> = Arc::downgrade(&self.inner);
        Some(Arc::new(move || {
            let Some(timeline) = timeline.upgrade() else {
                return;
            };
            if let Some(entry) = lock(&timeline).waits.iter_mut().find(|e| e.seq == seq) {
                entry.rung = true;
            }
            if let Some(hook) = &timeline.on_change {
                hook();
            }
        }))
    }
}

fn lock(timeline: &Timeline) -> MutexGuard<'_, Moment> {
    // Nothing that can panic runs under this lock.
    timeline
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        *self.inner.now.lock()
    }

    fn wait(&self, wake: &Wake, deadline: Duration, why: Waiting) {
        let (seq, blocker) = {
            let mut moment = self.lock();
            let seq = moment.next_seq;
            if deadline <= moment.now || !wake.arm(self.hook(seq)) {
                return;
            }
            moment.next_seq += 1;
            let blocker = if self.inner.serial {
                Wake::new()
            } else {
                wake.clone()
            };
            moment.waits.push(Entry {
                seq,
                deadline,
                thread: std::thread::current().id(),
                why,
                blocker: blocker.clone(),
                rung: false,
            });
            (seq, blocker)
        };
        self.changed();
        blocker.block();
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

    #[test]
    fn on_a_serial_clock_a_rung_waiter_waits_for_its_turn() {
        let changes = Arc::new(AtomicUsize::new(0));
        let counter = changes.clone();
        let clock = FakeClock::serial(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let bell = Wake::new();
        let waiter = {
            let (clock, bell) = (clock.clone(), bell.clone());
            std::thread::spawn(move || {
                clock.wait(&bell, ms(30), Waiting::Queue);
                clock.now()
            })
        };
        until_waiting(&clock, 1);
        assert!(!clock.waiters()[0].rung);
        bell.ring();
        let rung = clock.waiters();
        assert_eq!(rung.len(), 1, "rung, but still asleep");
        assert!(rung[0].rung);
        assert_eq!(clock.waiting(rung[0].thread), Some(Waiting::Queue));
        assert!(clock.let_go(rung[0].seq));
        assert_eq!(waiter.join().unwrap(), ms(0), "let go without moving time");
        assert!(clock.waiters().is_empty());
        assert!(
            changes.load(Ordering::SeqCst) >= 2,
            "told of the wait and the ring"
        );
    }

    #[test]
    fn two_threads_can_wait_on_one_bell() {
        let clock = FakeClock::serial(|| {});
        let bell = Wake::new();
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let (clock, bell) = (clock.clone(), bell.clone());
                std::thread::spawn(move || clock.wait(&bell, ms(30), Waiting::Queue))
            })
            .collect();
        until_waiting(&clock, 2);
        bell.ring();
        let rung = clock.waiters();
        assert!(rung.iter().all(|w| w.rung), "both were told");
        for w in rung {
            clock.let_go(w.seq);
        }
        for t in threads {
            t.join().unwrap();
        }
    }
}
