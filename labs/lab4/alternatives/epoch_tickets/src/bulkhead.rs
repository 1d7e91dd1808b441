//! A bulkhead that counts free permits down with `fetch_update` (a compare-and-swap loop
//! that refuses to go below zero) and counts them back up when a call ends.

use std::sync::atomic::{AtomicUsize, Ordering};

use relay_kit::Code;

/// One target's limit on calls in progress.
pub struct Bulkhead {
    permits: AtomicUsize,
}

/// A permit in use; returned when dropped.
struct InUse<'a>(&'a AtomicUsize);

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

impl Bulkhead {
    /// A bulkhead with `limit` permits.
    pub fn new(limit: usize) -> Self {
        Self {
            permits: AtomicUsize::new(limit),
        }
    }

    /// Runs `call` with a permit, or answers E905 at once when none is left.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let taken = self
            .permits
            .fetch_update(Ordering::Acquire, Ordering::Relaxed, |left| left.checked_sub(1));
        if taken.is_err() {
            return Code::E905;
        }
        let _in_use = InUse(&self.permits);
        call()
    }
}
