//! The bulkhead of one dependency: `max_active` slots, and in front of them a short queue
//! in which every request waits on a bell of its own.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use shipping_kit::{BulkheadSettings, Clock, Waiting, Wake, just_after};

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
    settings: BulkheadSettings,
    clock: Arc<dyn Clock>,
    pool: Arc<Mutex<Pool>>,
}

/// Slots in use and who waits for one, oldest first.
#[derive(Default)]
struct Pool {
    busy: usize,
    waiting: VecDeque<Arc<Waiter>>,
}

/// One queued request: its bell, and whether a slot was handed to it (set only while
/// the pool is locked).
#[derive(Default)]
struct Waiter {
    bell: Wake,
    handed_a_slot: AtomicBool,
}

/// A slot, taken. Dropping it gives it back, on every path.
pub struct Slot {
    pool: Arc<Mutex<Pool>>,
}

impl Bulkhead {
    /// An empty bulkhead whose queue waits end on `clock`.
    pub fn new(settings: BulkheadSettings, clock: Arc<dyn Clock>) -> Self {
        Self {
            settings,
            clock,
            pool: Arc::default(),
        }
    }

    /// A slot now, or after waiting in the queue; `Full` at once when the queue is full;
    /// `Expired` once the request has waited longer than `max_queue_wait` or the clock
    /// reaches `deadline`.
    pub fn admit(&self, deadline: Duration) -> Result<Slot, Refusal> {
        let me = {
            let mut pool = lock(&self.pool);
            if pool.waiting.is_empty() && pool.busy < self.settings.max_active {
                pool.busy += 1;
                return Ok(self.slot());
            }
            if pool.waiting.len() >= self.settings.max_queued {
                return Err(Refusal::Full);
            }
            let me = Arc::new(Waiter::default());
            pool.waiting.push_back(me.clone());
            me
        };
        // Still in time after exactly max_queue_wait; out at the first instant after it,
        // before anything else due a millisecond later can find it still queued.
        let leave_at = just_after(self.clock.now() + self.settings.max_queue_wait).min(deadline);
        loop {
            self.clock.wait(&me.bell, leave_at, Waiting::Queue);
            let mut pool = lock(&self.pool);
            if me.handed_a_slot.load(Ordering::SeqCst) {
                return Ok(self.slot());
            }
            if self.clock.now() >= leave_at {
                pool.waiting.retain(|w| !Arc::ptr_eq(w, &me));
                return Err(Refusal::Expired);
            }
        }
    }

    fn slot(&self) -> Slot {
        Slot {
            pool: self.pool.clone(),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let heir = {
            let mut pool = lock(&self.pool);
            let heir = pool.waiting.pop_front();
            match &heir {
                // The slot stays busy: it changes hands.
                Some(waiter) => waiter.handed_a_slot.store(true, Ordering::SeqCst),
                None => pool.busy -= 1,
            }
            heir
        };
        if let Some(waiter) = heir {
            waiter.bell.ring();
        }
    }
}

fn lock(pool: &Mutex<Pool>) -> MutexGuard<'_, Pool> {
    pool.lock().unwrap_or_else(PoisonError::into_inner)
}
