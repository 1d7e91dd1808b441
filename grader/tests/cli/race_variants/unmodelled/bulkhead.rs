//! A bulkhead on an atomic counter that also hands out a raw pointer to it.

use std::sync::atomic::{AtomicUsize, Ordering};

use relay_kit::Code;

pub struct Bulkhead {
    limit: usize,
    in_flight: AtomicUsize,
}

impl Bulkhead {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            in_flight: AtomicUsize::new(0),
        }
    }

    /// Where the counter lives, for a debugger.
    pub fn counter_address(&self) -> usize {
        self.in_flight.as_ptr() as usize
    }

    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let taken = self
            .in_flight
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.limit).then_some(n + 1)
            });
        if taken.is_err() {
            return Code::E905;
        }
        let code = call();
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        code
    }
}
