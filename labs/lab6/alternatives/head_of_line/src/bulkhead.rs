//! The bulkhead of one dependency: `max_active` slots and a line in front of them. A freed
//! slot is not handed to anyone: the request at the head of the line takes it.

use std::collections::VecDeque;
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
    line: Arc<Monitor<Line>>,
}

#[derive(Default)]
struct Line {
    in_use: usize,
    /// Numbers of the queued requests, in arrival order.
    queued: VecDeque<u64>,
    numbers: u64,
}

/// A slot, taken. Dropping it gives it back, on every path.
pub struct Slot {
    line: Arc<Monitor<Line>>,
}

impl Bulkhead {
    /// An empty bulkhead whose queue waits end on `clock`.
    pub fn new(settings: BulkheadSettings, clock: Arc<dyn Clock>) -> Self {
        Self {
            settings,
            line: Arc::new(Monitor::new(clock.clone(), Line::default())),
            clock,
        }
    }

    /// A slot now, or after waiting in the queue; `Full` at once when the queue is full;
    /// `Expired` once the request has waited longer than `max_queue_wait` or the clock
    /// reaches `deadline`.
    pub fn admit(&self, deadline: Duration) -> Result<Slot, Refusal> {
        let max_active = self.settings.max_active;
        let mut line = self.line.lock();
        if line.queued.is_empty() && line.in_use < max_active {
            line.in_use += 1;
            return Ok(self.slot());
        }
        if line.queued.len() >= self.settings.max_queued {
            return Err(Refusal::Full);
        }
        let me = line.numbers;
        line.numbers += 1;
        line.queued.push_back(me);
        let joined = self.clock.now();
        loop {
            if line.queued.front() == Some(&me) && line.in_use < max_active {
                line.queued.pop_front();
                line.in_use += 1;
                // Another slot may be free for whoever is next in line.
                drop(line);
                self.line.notify_all();
                return Ok(self.slot());
            }
            let now = self.clock.now();
            if now.saturating_sub(joined) > self.settings.max_queue_wait || now >= deadline {
                line.queued.retain(|n| *n != me);
                // The head of the line may have changed.
                drop(line);
                self.line.notify_all();
                return Err(Refusal::Expired);
            }
            let too_long = joined + self.settings.max_queue_wait + Duration::from_nanos(1);
            line = line.wait_until(too_long.min(deadline));
        }
    }

    fn slot(&self) -> Slot {
        Slot {
            line: self.line.clone(),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.line.lock().in_use -= 1;
        self.line.notify_all();
    }
}
