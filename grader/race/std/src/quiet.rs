//! Bookkeeping of the race driver that is not part of what is explored.
//!
//! Not part of `std`. Every lock of [`crate::sync`] is a point where the explorer may
//! switch threads, and each such point in the driver's own bookkeeping (the grader reading
//! whether a request has returned) makes every schedule longer and spreads the explorer's
//! few planned switches over moments that cannot matter. A [`Mutex`] here is the real
//! standard library's, never a switching point and never in the [`crate::trace`].
//!
//! That is sound because the runtime runs every task on one operating-system thread, one
//! at a time, switching only at its own points: a quiet lock taken and let go with none of
//! those in between is never seen held by another task. Holding one across such a point
//! (a modelled lock, a wait, a spawn) would break that, so a lock found held panics
//! instead of waiting for ever.

use std::sync::{MutexGuard, TryLockError};

/// A lock that the explorer does not see: for state only the driver reads and writes, in
/// short sections without any switching point inside.
#[derive(Debug, Default)]
pub struct Mutex<T> {
    inner: std::sync::Mutex<T>,
}

impl<T> Mutex<T> {
    /// A new quiet lock holding `value`.
    pub const fn new(value: T) -> Self {
        Self {
            inner: std::sync::Mutex::new(value),
        }
    }

    /// Takes the lock.
    ///
    /// # Panics
    ///
    /// If it is held, which means it was held across a switching point: a bug of the
    /// driver, never of the code under test.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        match self.inner.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                panic!("a quiet lock of the race driver was held across a switching point")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_lock_held_twice_panics_instead_of_waiting() {
        let lock = Mutex::new(1);
        let held = lock.lock();
        let again = std::panic::catch_unwind(|| drop(lock.lock()));
        assert!(again.is_err());
        drop(held);
        assert_eq!(*lock.lock(), 1);
    }
}
