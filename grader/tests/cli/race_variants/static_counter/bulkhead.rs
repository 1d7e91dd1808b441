//! A bulkhead: a hard limit on how many calls to one target are in progress at once.
//!
//! A call over the limit is rejected at once with E905. It never waits for a slot:
//! waiting callers are exactly the pile-up of threads the bulkhead exists to prevent.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

static CALLS: AtomicUsize = AtomicUsize::new(0);

use relay_kit::Code;

/// One target's concurrency limit. Share it between threads with `&Bulkhead` or `Arc`.
pub struct Bulkhead {
    limit: usize,
    in_flight: Mutex<usize>,
}

/// A taken slot. Dropping it gives the slot back, on every path out of the call.
struct Slot<'a> {
    bulkhead: &'a Bulkhead,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.bulkhead.lock() -= 1;
    }
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            in_flight: Mutex::new(0),
        }
    }

    /// Runs `call` if a slot is free, holding the slot until `call` returns (or unwinds).
    /// Returns E905 at once, without running `call`, when every slot is taken.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let Some(_slot) = self.try_take_slot() else {
            return Code::E905;
        };
        CALLS.fetch_add(1, Ordering::SeqCst);
        call()
    }

    fn try_take_slot(&self) -> Option<Slot<'_>> {
        let mut in_flight = self.lock();
        if *in_flight >= self.limit {
            return None;
        }
        *in_flight += 1;
        Some(Slot { bulkhead: self })
    }

    fn lock(&self) -> MutexGuard<'_, usize> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
