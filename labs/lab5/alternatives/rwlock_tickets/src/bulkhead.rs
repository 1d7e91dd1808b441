//! The bulkhead: free permits counted down with compare-and-swap.

use std::sync::atomic::{AtomicUsize, Ordering};

use gateway_kit::Outcome;

/// One flow's concurrency limit.
pub struct Bulkhead {
    free: AtomicUsize,
}

struct Permit<'a>(&'a AtomicUsize);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Bulkhead {
    /// A bulkhead with `limit` permits.
    pub fn new(limit: usize) -> Self {
        Self {
            free: AtomicUsize::new(limit),
        }
    }

    /// Runs `call` with a permit, or returns `NoCapacity` at once when none is free.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        let mut seen = self.free.load(Ordering::SeqCst);
        loop {
            if seen == 0 {
                return Outcome::NoCapacity;
            }
            match self
                .free
                .compare_exchange_weak(seen, seen - 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => break,
                Err(now) => seen = now,
            }
        }
        let _permit = Permit(&self.free);
        call()
    }
}
