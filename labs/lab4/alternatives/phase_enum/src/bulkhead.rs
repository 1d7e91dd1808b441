//! A bulkhead on an atomic counter: a slot is taken with a compare-and-swap loop, so two
//! threads can never both take the last one, and given back with one atomic subtraction.

use std::sync::atomic::{AtomicUsize, Ordering};

use relay_kit::Code;

/// One target's limit on calls in progress.
pub struct Bulkhead {
    limit: usize,
    in_use: AtomicUsize,
}

/// A taken slot; dropping it gives it back, on every path out of the call.
struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            in_use: AtomicUsize::new(0),
        }
    }

    /// Runs `call` in a free slot, or answers E905 at once when there is none.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        match self.take() {
            Some(_slot) => call(),
            None => Code::E905,
        }
    }

    fn take(&self) -> Option<Slot<'_>> {
        let mut seen = self.in_use.load(Ordering::Relaxed);
        loop {
            if seen >= self.limit {
                return None;
            }
            match self.in_use.compare_exchange_weak(
                seen,
                seen + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(Slot(&self.in_use)),
                Err(now) => seen = now,
            }
        }
    }
}
