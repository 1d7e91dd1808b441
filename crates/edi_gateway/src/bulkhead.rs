//! The bulkhead: a hard limit on how many messages of one flow are in progress at once.
//!
//! A message over the limit is turned away at once with `NoCapacity`. It must never wait
//! for a slot: a queue of waiting callers is the pile-up of threads the bulkhead exists to
//! prevent. Your lab 4 bulkhead is a fine start.

use gateway_kit::Outcome;

/// One flow's concurrency limit. Several threads use it at the same time.
pub struct Bulkhead {
    // TODO(lab5): the limit, and how many calls are in progress (behind a lock, or in an
    // atomic if you are at ease with compare-and-swap).
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        // TODO(lab5): start with every slot free.
        let _ = limit;
        todo!("lab 5: build the bulkhead in Bulkhead::new")
    }

    /// Runs `call` if a slot is free, holding the slot until `call` has finished.
    /// Returns `NoCapacity` at once, without running `call`, when every slot is taken.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        // TODO(lab5): take a slot or return Outcome::NoCapacity at once; run `call`; give
        // the slot back on every path (a guard whose `Drop` gives it back).
        let _ = call;
        todo!("lab 5: take a slot or turn the message away in Bulkhead::call")
    }
}
