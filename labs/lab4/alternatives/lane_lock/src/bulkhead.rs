//! The bulkhead's count as plain data (`Slots`), kept by the relay under the same lock
//! as the target's circuit; `Bulkhead` wraps it in a mutex of its own for use on its own.

use std::sync::{Mutex, PoisonError};

use relay_kit::Code;

/// Calls in progress against a limit. Its owner keeps it behind a lock.
pub(crate) struct Slots {
    limit: usize,
    taken: usize,
}

impl Slots {
    pub(crate) fn new(limit: usize) -> Self {
        Self { limit, taken: 0 }
    }

    /// Takes a slot if one is free.
    pub(crate) fn take(&mut self) -> bool {
        let free = self.taken < self.limit;
        if free {
            self.taken += 1;
        }
        free
    }

    pub(crate) fn give_back(&mut self) {
        self.taken -= 1;
    }
}

/// One target's limit on calls in progress, on its own.
pub struct Bulkhead {
    slots: Mutex<Slots>,
}

/// Gives the slot back when dropped, on every path out of the call.
struct Taken<'a>(&'a Bulkhead);

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        self.0.lock().give_back();
    }
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        Self {
            slots: Mutex::new(Slots::new(limit)),
        }
    }

    /// Runs `call` in a free slot, or answers E905 at once when there is none.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        if !self.lock().take() {
            return Code::E905;
        }
        let _taken = Taken(self);
        call()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
