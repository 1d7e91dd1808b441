//! `Condvar` on the runtime, recording waits and notifications.

use std::fmt;
use std::panic::Location;
use std::time::Duration;

use super::{LockResult, MutexGuard, PoisonError, WaitTimeoutResult};
use crate::trace::{self, Mode, Object, What};

/// A condition variable, as [`std::sync::Condvar`]. Timeouts never expire: time does not
/// pass on the runtime, so a wait ends only when another thread notifies.
pub struct Condvar {
    made: &'static Location<'static>,
    inner: shuttle::sync::Condvar,
}

type Inner<'a, T> = shuttle::sync::MutexGuard<'a, T>;

impl Condvar {
    /// A new condition variable.
    #[track_caller]
    pub const fn new() -> Self {
        Self {
            made: Location::caller(),
            inner: shuttle::sync::Condvar::new(),
        }
    }

    fn object(&self) -> Object {
        trace::object::<Self, ()>(self, "Condvar", self.made)
    }

    /// Records giving up `guard`'s lock, runs the runtime's `wait` on it, and records taking
    /// the lock back, all placed at `at`.
    fn asleep<'a, T, R>(
        &self,
        guard: MutexGuard<'a, T>,
        at: &'static Location<'static>,
        wait: impl FnOnce(Inner<'a, T>) -> LockResult<(Inner<'a, T>, R)>,
    ) -> LockResult<(MutexGuard<'a, T>, R)> {
        let MutexGuard { token, inner } = guard;
        let lock = token.lock;
        drop(token);
        let condvar = self.object();
        trace::record(What::Waits { condvar, lock }, at);
        let result = wait(inner);
        let token = trace::acquired(lock, Mode::Exclusive, at);
        match result {
            Ok((inner, r)) => Ok((MutexGuard { token, inner }, r)),
            Err(poisoned) => {
                let (inner, r) = poisoned.into_inner();
                Err(PoisonError::new((MutexGuard { token, inner }, r)))
            }
        }
    }

    /// Releases the lock, sleeps until notified, and takes the lock again.
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let woke = self.asleep(guard, Location::caller(), |inner| {
            self.inner
                .wait(inner)
                .map(|g| (g, ()))
                .map_err(|p| PoisonError::new((p.into_inner(), ())))
        });
        woke.map(|(g, ())| g)
            .map_err(|p| PoisonError::new(p.into_inner().0))
    }

    /// Waits while `condition` holds.
    #[track_caller]
    pub fn wait_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// As [`Condvar::wait`]: the timeout never expires on the runtime.
    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        self.asleep(guard, Location::caller(), |inner| {
            self.inner.wait_timeout(inner, timeout)
        })
    }

    /// As [`Condvar::wait_while`]: the timeout never expires on the runtime.
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
        condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        self.asleep(guard, Location::caller(), |inner| {
            self.inner.wait_timeout_while(inner, timeout, condition)
        })
    }

    /// Wakes one sleeper.
    #[track_caller]
    pub fn notify_one(&self) {
        let condvar = self.object();
        trace::record(
            What::Notifies {
                condvar,
                all: false,
            },
            Location::caller(),
        );
        self.inner.notify_one();
    }

    /// Wakes every sleeper.
    #[track_caller]
    pub fn notify_all(&self) {
        let condvar = self.object();
        trace::record(What::Notifies { condvar, all: true }, Location::caller());
        self.inner.notify_all();
    }
}

impl Default for Condvar {
    #[track_caller]
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Condvar { .. }")
    }
}
