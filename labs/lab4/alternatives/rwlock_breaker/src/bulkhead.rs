//! The bulkhead: the number of free slots behind a mutex, counted down as calls start.

use std::sync::{Mutex, MutexGuard, PoisonError};

use relay_kit::Code;

/// One target's limit on calls in progress.
pub struct Bulkhead {
    free: Mutex<usize>,
}

impl Bulkhead {
    /// A bulkhead with `limit` free slots.
    pub fn new(limit: usize) -> Self {
        Self {
            free: Mutex::new(limit),
        }
    }

    /// Runs `call` in a free slot, or answers E905 at once when there is none.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        {
            let mut free = self.free();
            match free.checked_sub(1) {
                Some(left) => *free = left,
                None => return Code::E905,
            }
        }
        let _back = GiveBack(self);
        call()
    }

    fn free(&self) -> MutexGuard<'_, usize> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Puts one slot back when dropped, also while a panic unwinds.
struct GiveBack<'a>(&'a Bulkhead);

impl Drop for GiveBack<'_> {
    fn drop(&mut self) {
        *self.0.free() += 1;
    }
}
