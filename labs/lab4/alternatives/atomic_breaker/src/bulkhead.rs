//! The bulkhead: a count of calls in progress behind a mutex, and a permit that gives
//! its slot back when it is dropped.

use std::sync::{Mutex, PoisonError};

use relay_kit::Code;

/// One target's limit on calls in progress.
pub struct Bulkhead {
    limit: usize,
    busy: Mutex<usize>,
}

/// A slot held for one call; dropping it, on any path, frees the slot.
struct Permit<'a>(&'a Mutex<usize>);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut busy = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *busy -= 1;
    }
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            busy: Mutex::new(0),
        }
    }

    /// Runs `call` in a free slot, or answers E905 at once when there is none.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let permit = {
            let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
            if *busy >= self.limit {
                return Code::E905;
            }
            *busy += 1;
            Permit(&self.busy)
        };
        let code = call();
        drop(permit);
        code
    }
}
