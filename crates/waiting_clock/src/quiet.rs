//! The kit's own small locks: state only the kit reads and writes, in short sections that
//! call nothing while they hold the lock.
//!
//! In every build but one this is a plain `std::sync::Mutex`. In the grader's race checks
//! (the feature `race`, with their own `std`) it is a lock the schedule explorer does not
//! see: taking it is no point at which the explorer switches threads, so the few switches
//! it plans fall on the locks of the code under test rather than on the kit's bookkeeping
//! (the clock read, a call's answer, a monitor's list of sleepers). That is sound because
//! the explorer runs one thread at a time and switches only at its own points, none of
//! which lies inside these sections.

use std::ops::DerefMut;

/// A lock for the kit's bookkeeping (see the module's documentation), for the kit's contract
/// crates built on this one. Never for students' code: in the race checks' build the
/// explorer does not see it, so a race behind it would go unseen. No student crate depends
/// on this crate directly (they see it through their lab's contract, which does not pass
/// this lock on), and it is left out of the documentation.
#[doc(hidden)]
#[derive(Default)]
pub struct Quiet<T> {
    #[cfg(feature = "race")]
    inner: ::std::quiet::Mutex<T>,
    #[cfg(not(feature = "race"))]
    inner: std::sync::Mutex<T>,
}

impl<T> Quiet<T> {
    /// A lock holding `value`.
    pub const fn new(value: T) -> Self {
        Self {
            #[cfg(feature = "race")]
            inner: ::std::quiet::Mutex::new(value),
            #[cfg(not(feature = "race"))]
            inner: std::sync::Mutex::new(value),
        }
    }

    /// Takes the lock. Nothing under it panics halfway through a change, so a poisoned
    /// lock is still whole.
    pub fn lock(&self) -> impl DerefMut<Target = T> + '_ {
        #[cfg(feature = "race")]
        {
            self.inner.lock()
        }
        #[cfg(not(feature = "race"))]
        {
            self.inner
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }
}
