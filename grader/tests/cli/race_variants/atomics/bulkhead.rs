//! A bulkhead on an atomic counter: a slot is taken by one `fetch_update`.

use std::sync::atomic::{AtomicUsize, Ordering};

use relay_kit::Code;

pub struct Bulkhead {
    limit: usize,
    in_flight: AtomicUsize,
}

struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Bulkhead {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            in_flight: AtomicUsize::new(0),
        }
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
        let _slot = Slot(&self.in_flight);
        call()
    }
}
