//! The bulkhead: calls in progress counted behind a mutex, given back by a guard.

use std::sync::{Mutex, PoisonError};

use gateway_kit::Outcome;

/// One flow's concurrency limit.
pub struct Bulkhead {
    limit: usize,
    busy: Mutex<usize>,
}

struct Taken<'a>(&'a Mutex<usize>);

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
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

    /// Runs `call` if a slot is free; `NoCapacity` at once otherwise.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        let taken = {
            let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
            if *busy == self.limit {
                return Outcome::NoCapacity;
            }
            *busy += 1;
            Taken(&self.busy)
        };
        let outcome = call();
        drop(taken);
        outcome
    }
}
