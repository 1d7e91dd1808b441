//! A bulkhead that waits for a free slot by spinning on its counter.

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

    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        loop {
            let n = self.in_flight.load(Ordering::SeqCst);
            if n < self.limit
                && self
                    .in_flight
                    .compare_exchange(n, n + 1, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            {
                break;
            }
        }
        let code = call();
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        code
    }
}
