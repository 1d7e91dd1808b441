//! The bulkhead of one dependency: at most `max_active` calls at once, and a short queue
//! in front of them.
//!
//! A request that finds a free slot (and nobody queued before it) takes it. One that finds
//! them all taken waits in the queue, first come first served, if there is room; if the
//! queue is full it is turned away at once. A queued request leaves the queue when it gets
//! a slot, when it has waited longer than `max_queue_wait`, or when its operation's budget
//! runs out, whichever comes first. A slot is given back when its call really ends, and
//! then goes straight to the oldest queued request.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use shipping_kit::{BulkheadSettings, Clock, Monitor, just_after};

/// Why the bulkhead turned a request away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The queue was full: at once.
    Full,
    /// It waited longer than `max_queue_wait`, or until the deadline it was given.
    Expired,
}

/// One dependency's admission limits. Share it between threads.
pub struct Bulkhead {
    settings: BulkheadSettings,
    clock: Arc<dyn Clock>,
    queue: Arc<Monitor<Queue>>,
}

/// The slots and the queue, under the monitor's lock.
#[derive(Default)]
struct Queue {
    /// Slots taken.
    active: usize,
    /// Tickets of the queued requests, oldest first.
    waiting: VecDeque<u64>,
    /// Tickets that were handed a slot and have not yet noticed.
    granted: BTreeSet<u64>,
    next_ticket: u64,
}

/// A slot, taken. Dropping it gives it back (to the oldest queued request, if any), on
/// every path. It owns what it needs, so a call can keep it after its caller has gone.
pub struct Slot {
    queue: Arc<Monitor<Queue>>,
}

impl Bulkhead {
    /// An empty bulkhead whose queue waits end on `clock`.
    pub fn new(settings: BulkheadSettings, clock: Arc<dyn Clock>) -> Self {
        Self {
            settings,
            queue: Arc::new(Monitor::new(clock.clone(), Queue::default())),
            clock,
        }
    }

    /// A slot now, or after waiting in the queue; `Full` at once when the queue is full;
    /// `Expired` once the request has waited longer than `max_queue_wait` or the clock
    /// reaches `deadline`.
    pub fn admit(&self, deadline: Duration) -> Result<Slot, Refusal> {
        let mut queue = self.queue.lock();
        if queue.active < self.settings.max_active && queue.waiting.is_empty() {
            queue.active += 1;
            return Ok(self.slot());
        }
        if queue.waiting.len() >= self.settings.max_queued {
            return Err(Refusal::Full);
        }
        let ticket = queue.next_ticket;
        queue.next_ticket += 1;
        queue.waiting.push_back(ticket);
        // Still in time after waiting exactly max_queue_wait; gone the moment after.
        let gone_at = just_after(self.clock.now() + self.settings.max_queue_wait).min(deadline);
        loop {
            if queue.granted.remove(&ticket) {
                return Ok(self.slot());
            }
            if self.clock.now() >= gone_at {
                queue.waiting.retain(|t| *t != ticket);
                return Err(Refusal::Expired);
            }
            queue = queue.wait_until(gone_at);
        }
    }

    fn slot(&self) -> Slot {
        Slot {
            queue: self.queue.clone(),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut queue = self.queue.lock();
        match queue.waiting.pop_front() {
            Some(next) => {
                // Handed over: still taken, now by the oldest queued request.
                queue.granted.insert(next);
                drop(queue);
                self.queue.notify_all();
            }
            None => queue.active -= 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shipping_kit::FakeClock;
    use std::thread::JoinHandle;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn bulkhead(active: usize, queued: usize) -> (Arc<Bulkhead>, FakeClock) {
        let clock = FakeClock::new();
        let settings = BulkheadSettings {
            max_active: active,
            max_queued: queued,
            max_queue_wait: ms(20),
        };
        (
            Arc::new(Bulkhead::new(settings, Arc::new(clock.clone()))),
            clock,
        )
    }

    fn queue_one(b: &Arc<Bulkhead>, clock: &FakeClock, deadline: u64) -> JoinHandle<bool> {
        let before = clock.waiters().len();
        let b = b.clone();
        let handle = std::thread::spawn(move || b.admit(ms(deadline)).is_ok());
        while clock.waiters().len() == before {
            std::thread::yield_now();
        }
        handle
    }

    #[test]
    fn full_then_queued_then_turned_away() {
        let (b, clock) = bulkhead(1, 1);
        let slot = b.admit(ms(300)).unwrap();
        let queued = queue_one(&b, &clock, 300);
        assert_eq!(b.admit(ms(300)).err(), Some(Refusal::Full));
        clock.advance(ms(20));
        drop(slot);
        assert!(queued.join().unwrap(), "exactly 20 ms: still in time");
    }

    #[test]
    fn a_queued_request_leaves_after_its_wait_or_at_the_deadline() {
        let (b, clock) = bulkhead(1, 2);
        let _slot = b.admit(ms(300)).unwrap();
        let patient = queue_one(&b, &clock, 300);
        let hurried = queue_one(&b, &clock, 5);
        clock.advance(ms(5));
        assert!(!hurried.join().unwrap(), "its budget ended in the queue");
        clock.advance(ms(15));
        assert_eq!(clock.waiters().len(), 1);
        clock.advance(ms(1));
        assert!(!patient.join().unwrap(), "21 ms is too long");
    }

    #[test]
    fn a_slot_given_back_goes_to_the_queue_before_any_newcomer() {
        let (b, clock) = bulkhead(1, 5);
        let slot = b.admit(ms(300)).unwrap();
        let first = queue_one(&b, &clock, 300);
        drop(slot);
        // The slot went to the queued request (which gives it back when it returns): a
        // newcomer that arrives meanwhile never jumps the queue.
        assert!(first.join().unwrap());
        let again = b.admit(ms(300)).unwrap();
        assert_eq!(b.admit(ms(0)).err(), Some(Refusal::Expired));
        drop(again);
    }
}
