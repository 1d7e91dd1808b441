//! Waiting on injected time.
//!
//! Labs 4 and 5 only read the clock. From lab 6 on, code also **waits**: a request waits
//! in an admission queue for a slot, an operation pauses between two attempts, a caller
//! waits for an answer; each until a deadline. A thread that waited with `thread::sleep`
//! or `Condvar::wait_timeout` would wait in real time, which a grader cannot control, so
//! every wait goes through the injected [`Clock`] instead: the real clock waits in real
//! time, the grader's fake clock wakes the waiter when a scenario moves time past its
//! deadline.
//!
//! The building block is the [`Wake`], a bell that can be rung once: a thread waits until
//! the bell rings or the clock reaches the deadline, whichever comes first. The
//! [`Monitor`](crate::Monitor) (a mutex whose guard can wait) is built on it, and so is a
//! contract's wait for an answer (lab 6's `Call::wait_until`).

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// What a waiting thread waits for, as the grader reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Waiting {
    /// The answer of a call, in a contract that has calls answered later (lab 6's
    /// `Call::wait_until`): reported as `held`.
    Answer,
    /// A change of shared state, in a `Monitor` (a free slot in the admission queue):
    /// reported as `queued`.
    Queue,
    /// Nothing but time: a pause between two attempts (`Clock::sleep_until`): reported as
    /// `pausing`.
    Pause,
}

impl Waiting {
    /// The word reports use: `held`, `queued`, `pausing`.
    pub fn as_str(self) -> &'static str {
        match self {
            Waiting::Answer => "held",
            Waiting::Queue => "queued",
            Waiting::Pause => "pausing",
        }
    }
}

impl fmt::Display for Waiting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A source of monotonic time that threads can also wait on.
///
/// `now()` never goes backwards; only differences between two readings mean anything.
/// `wait` blocks the calling thread until `wake` is rung or the clock reads `deadline` or
/// later, whichever comes first: it returns at once when either is already true. Use
/// [`Clock::sleep_until`] for a plain pause, a [`Monitor`](crate::Monitor) to wait for
/// other threads, and a contract's own wait for an answer (lab 6's `Call::wait_until`).
pub trait Clock: Send + Sync {
    /// Time elapsed since this clock's origin.
    fn now(&self) -> Duration;

    /// Blocks until `wake` rings or the clock reads at least `deadline`; `why` says what
    /// the thread waits for, for reports.
    fn wait(&self, wake: &Wake, deadline: Duration, why: Waiting);

    /// Blocks until the clock reads at least `deadline` (at once if it already does).
    fn sleep_until(&self, deadline: Duration) {
        self.wait(&Wake::new(), deadline, Waiting::Pause);
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now(&self) -> Duration {
        (**self).now()
    }

    fn wait(&self, wake: &Wake, deadline: Duration, why: Waiting) {
        (**self).wait(wake, deadline, why);
    }

    fn sleep_until(&self, deadline: Duration) {
        (**self).sleep_until(deadline);
    }
}

/// The first instant after `instant`: the deadline to wait until when a rule says "longer
/// than".
///
/// A clock wakes a waiter when it reads its deadline **or later**, so a wait until
/// `joined + max_queue_wait` ends at exactly `max_queue_wait`, when the request is still in
/// time, and a check that it has waited *longer* (`now > joined + max_queue_wait`) finds it
/// has not. Waiting again until the same deadline returns at once, and the loop spins.
/// Wait until `just_after(joined + max_queue_wait)` instead: the clock then reads more than
/// `max_queue_wait` after `joined`, so the check holds, on the grader's clock as on a real
/// one. (The grader moves its clock in whole milliseconds: 20 ms is still in time, 21 ms is
/// not.)
pub fn just_after(instant: Duration) -> Duration {
    instant.saturating_add(Duration::from_nanos(1))
}

/// What a fake clock asks to be told when a wake it waits on is rung.
pub(crate) type Hook = Arc<dyn Fn() + Send + Sync>;

/// A bell that rings once: [`Wake::ring`] lets every thread waiting on it go, now and
/// later. Clones share one bell.
#[derive(Clone, Default)]
pub struct Wake {
    inner: Arc<Bell>,
}

#[derive(Default)]
struct Bell {
    state: Mutex<BellState>,
    rung: Condvar,
}

#[derive(Default)]
struct BellState {
    rung: bool,
    /// Left by fake clocks for the threads that wait on this bell: told when it rings.
    hooks: Vec<Hook>,
}

impl fmt::Debug for Wake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Wake(rung: {})", self.is_rung())
    }
}

impl Wake {
    /// A bell that has not rung.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rings the bell: whoever waits on it goes on. Ringing twice does nothing more.
    pub fn ring(&self) {
        let hooks = {
            let mut state = self.lock();
            if state.rung {
                return;
            }
            state.rung = true;
            std::mem::take(&mut state.hooks)
        };
        self.inner.rung.notify_all();
        // Told after the bell is rung, by the thread that rang it, before it goes on: a
        // grader watching the fake clock never misses that this waiter woke up.
        for hook in hooks {
            hook();
        }
    }

    /// Whether the bell has rung.
    pub fn is_rung(&self) -> bool {
        self.lock().rung
    }

    /// Whether `self` and `other` are the same bell.
    pub fn same(&self, other: &Wake) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Leaves `hook` to be called when the bell rings (beside those of other threads that
    /// wait on it); false (and nothing left) if it has rung already.
    pub(crate) fn arm(&self, hook: Option<Hook>) -> bool {
        let mut state = self.lock();
        if state.rung {
            return false;
        }
        state.hooks.extend(hook);
        true
    }

    /// Blocks until the bell rings.
    pub(crate) fn block(&self) {
        let mut state = self.lock();
        while !state.rung {
            state = self
                .inner
                .rung
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Blocks until the bell rings or `left()` says no time is left; `left()` is asked
    /// again after each wait of at most the time it gave.
    pub(crate) fn block_for(&self, mut left: impl FnMut() -> Option<Duration>) {
        let mut state = self.lock();
        while !state.rung {
            let Some(time) = left() else { return };
            state = self
                .inner
                .rung
                .wait_timeout(state, time)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn lock(&self) -> MutexGuard<'_, BellState> {
        // Nothing runs under this lock but flag changes: a poisoned lock is still whole.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_bell_rings_once_and_calls_its_hook_once() {
        let wake = Wake::new();
        let rings = Arc::new(AtomicUsize::new(0));
        let counter = rings.clone();
        assert!(wake.arm(Some(Arc::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }))));
        let other = wake.clone();
        other.ring();
        other.ring();
        assert!(wake.is_rung() && wake.same(&other) && !wake.same(&Wake::new()));
        assert_eq!(rings.load(Ordering::SeqCst), 1);
        assert!(!wake.arm(None), "a rung bell cannot be armed again");
        wake.block();
    }

    #[test]
    fn just_after_is_later_than_the_instant_and_earlier_than_the_next_millisecond() {
        let deadline = Duration::from_millis(20);
        assert!(just_after(deadline) > deadline);
        assert!(just_after(deadline) < Duration::from_millis(21));
        assert_eq!(just_after(Duration::MAX), Duration::MAX);
    }

    #[test]
    fn the_waiting_words() {
        let words: Vec<&str> = [Waiting::Answer, Waiting::Queue, Waiting::Pause]
            .iter()
            .map(|w| w.as_str())
            .collect();
        assert_eq!(words, ["held", "queued", "pausing"]);
    }
}
