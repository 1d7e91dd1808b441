//! The bulkhead of one dependency: `max_active` slots, and a queue kept as numbered
//! tickets and a serving counter. Only the ticket being served may take a free slot.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use shipping_kit::{BulkheadSettings, Clock, Monitor};

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
    counter: Arc<Monitor<Counter>>,
}

/// The slots and the tickets, under the monitor's lock.
struct Counter {
    /// Slots nobody holds.
    free: usize,
    /// The number the next queued request gets.
    next: u64,
    /// The ticket whose turn it is: every ticket from here up to `next` is queued, or was
    /// given up.
    serving: u64,
    /// Tickets whose requests left the queue before their turn.
    given_up: BTreeSet<u64>,
}

impl Counter {
    /// Requests in the queue now.
    fn queued(&self) -> usize {
        (self.next - self.serving) as usize - self.given_up.len()
    }

    /// Moves the counter past the current ticket, and past every given-up one after it.
    fn move_on(&mut self) {
        self.serving += 1;
        while self.given_up.remove(&self.serving) {
            self.serving += 1;
        }
    }
}

/// A slot, taken. Dropping it gives it back, on every path.
pub struct Slot {
    counter: Arc<Monitor<Counter>>,
}

impl Bulkhead {
    /// An empty bulkhead whose queue waits end on `clock`.
    pub fn new(settings: BulkheadSettings, clock: Arc<dyn Clock>) -> Self {
        let counter = Counter {
            free: settings.max_active,
            next: 0,
            serving: 0,
            given_up: BTreeSet::new(),
        };
        Self {
            settings,
            counter: Arc::new(Monitor::new(clock.clone(), counter)),
            clock,
        }
    }

    /// A slot now, or after waiting in the queue; `Full` at once when the queue is full;
    /// `Expired` once the request has waited longer than `max_queue_wait` or the clock
    /// reaches `deadline`.
    pub fn admit(&self, deadline: Duration) -> Result<Slot, Refusal> {
        let mut counter = self.counter.lock();
        if counter.queued() == 0 && counter.free > 0 {
            counter.free -= 1;
            return Ok(self.slot());
        }
        if counter.queued() >= self.settings.max_queued {
            return Err(Refusal::Full);
        }
        let ticket = counter.next;
        counter.next += 1;
        let joined = self.clock.now();
        // Gone the first nanosecond after max_queue_wait: a request due a whole millisecond
        // later must not find this one still holding its place in the queue.
        let wake_at = (joined + self.settings.max_queue_wait + Duration::from_nanos(1)).min(deadline);
        loop {
            if counter.serving == ticket && counter.free > 0 {
                counter.free -= 1;
                counter.move_on();
                drop(counter);
                // The next ticket may find a slot free too.
                self.counter.notify_all();
                return Ok(self.slot());
            }
            let now = self.clock.now();
            if now - joined > self.settings.max_queue_wait || now >= deadline {
                if counter.serving == ticket {
                    counter.move_on();
                } else {
                    counter.given_up.insert(ticket);
                }
                drop(counter);
                // Whoever is served now may take a free slot.
                self.counter.notify_all();
                return Err(Refusal::Expired);
            }
            counter = counter.wait_until(wake_at);
        }
    }

    fn slot(&self) -> Slot {
        Slot {
            counter: self.counter.clone(),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.counter.lock().free += 1;
        self.counter.notify_all();
    }
}
