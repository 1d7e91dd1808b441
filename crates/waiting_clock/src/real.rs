//! The real clock, for use outside the grader.

use std::time::{Duration, Instant};

use crate::{Clock, Waiting, Wake};

/// Monotonic real time from the moment the clock was created; waits are real waits.
#[derive(Clone, Debug)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    #[allow(clippy::disallowed_methods)] // The one place the waiting clock reads real time on purpose.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn wait(&self, wake: &Wake, deadline: Duration, _why: Waiting) {
        wake.block_for(|| deadline.checked_sub(self.now()).filter(|d| !d.is_zero()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_wait_ends_at_its_deadline_or_when_rung() {
        let clock = MonotonicClock::new();
        let start = clock.now();
        clock.sleep_until(start + Duration::from_millis(2));
        assert!(clock.now() >= start + Duration::from_millis(2));
        let wake = Wake::new();
        wake.ring();
        // Rung already: returns at once, long before the deadline.
        clock.wait(
            &wake,
            clock.now() + Duration::from_secs(600),
            Waiting::Queue,
        );
    }
}
