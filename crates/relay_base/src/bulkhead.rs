//! The bulkhead: a hard limit on how many calls to one target are in progress at once.
//!
//! A call over the limit is rejected at once with E905. It must never wait for a slot:
//! a queue of waiting callers is the pile-up of threads the bulkhead exists to prevent.

use relay_kit::Code;

/// One target's concurrency limit. Several threads use it at the same time.
pub struct Bulkhead {
    // TODO(lab4): the limit, and how many calls are in progress (behind a lock).
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        // TODO(lab4): start with every slot free.
        let _ = limit;
        todo!("lab 4: build the bulkhead in Bulkhead::new")
    }

    /// Runs `call` if a slot is free, holding the slot until `call` has finished.
    /// Returns E905 at once, without running `call`, when every slot is taken.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        // TODO(lab4): take a slot or return Code::E905 at once; run `call`; give the slot
        // back on every path. A guard value whose `Drop` gives the slot back is the
        // surest way.
        let _ = call;
        todo!("lab 4: take a slot or reject with E905 in Bulkhead::call")
    }
}
