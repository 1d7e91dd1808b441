//! The bulkhead of one dependency: at most `max_active` calls at once, and a short queue
//! in front of them.
//!
//! A request that finds a free slot (and nobody queued before it) takes it. One that finds
//! them all taken waits in the queue, first come first served, if there is room; if the
//! queue is full it is turned away at once. A queued request leaves the queue when it gets
//! a slot, when it has waited longer than `max_queue_wait`, or when its operation's budget
//! runs out, whichever comes first. A slot is given back when its call really ends.

use std::sync::Arc;
use std::time::Duration;

use shipping_kit::{BulkheadSettings, Clock};

/// Why the bulkhead turned a request away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The queue was full: at once.
    Full,
    /// It waited longer than `max_queue_wait`, or until the deadline it was given.
    Expired,
}

/// One dependency's admission limits. Several threads use it at the same time.
pub struct Bulkhead {
    // TODO(lab6): the settings, the clock, and the slots and the queue behind a
    // `shipping_kit::Monitor` (in an `Arc`: a `Slot` must be able to outlive the call
    // that took it).
}

/// A slot, taken. Dropping it gives it back, on every path.
pub struct Slot {
    // TODO(lab6): what the slot needs to give itself back (an `Arc` of the monitor, not a
    // reference: the dependency's call may keep the slot after its caller has gone).
}

impl Bulkhead {
    /// An empty bulkhead whose queue waits end on `clock`.
    pub fn new(settings: BulkheadSettings, clock: Arc<dyn Clock>) -> Self {
        // TODO(lab6): every slot free, nobody queued.
        let _ = (settings, clock);
        todo!("lab 6: build the bulkhead in Bulkhead::new")
    }

    /// A slot now, or after waiting in the queue; `Full` at once when the queue is full;
    /// `Expired` once the request has waited longer than `max_queue_wait` or the clock
    /// reaches `deadline`.
    pub fn admit(&self, deadline: Duration) -> Result<Slot, Refusal> {
        // TODO(lab6): take a free slot, or join the queue, or return Refusal::Full. In the
        // queue, wait in a loop with `guard.wait_until(...)` (never a real sleep) until a
        // slot is handed to you or it is time to leave: just after `max_queue_wait`
        // (`shipping_kit::just_after`), or at `deadline` if that comes first.
        let _ = deadline;
        todo!("lab 6: admit a request or queue it in Bulkhead::admit")
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // TODO(lab6): give the slot back: to the oldest queued request if there is one
        // (and wake the queue after the change, not before), else to the pool.
        todo!("lab 6: give the slot back in Slot::drop")
    }
}
