//! Real time: the one thing a rehearsal is about.
//!
//! Unlike the grader's scenarios, a rehearsal runs on the real clock on purpose: it shows
//! what happens to real threads and sockets over real seconds. It decides no grade. Every
//! clock read and every sleep of the rehearsal goes through this module.

use std::sync::Arc;
use std::time::Duration;

use relay_kit::{Clock, MonotonicClock};

/// The rehearsal's clock: milliseconds since the rehearsal started. The relay under test
/// is given the same clock, so its transition records line up with everything else.
#[derive(Clone, Debug)]
pub struct Timeline {
    clock: Arc<MonotonicClock>,
}

impl Timeline {
    /// A timeline starting now.
    pub fn start() -> Timeline {
        Timeline {
            clock: Arc::new(MonotonicClock::new()),
        }
    }

    /// Milliseconds since the start.
    pub fn now_ms(&self) -> f64 {
        ms_of(self.clock.now())
    }

    /// The clock to hand to the relay.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    /// Sleeps until `at_ms` on this timeline (at once if that has passed).
    pub fn sleep_until(&self, at_ms: f64) {
        let left = at_ms - self.now_ms();
        if left > 0.0 {
            sleep_ms(left);
        }
    }
}

/// Sleeps for `ms` milliseconds of real time.
#[allow(clippy::disallowed_methods)] // Real waiting is what a rehearsal shows.
pub fn sleep_ms(ms: f64) {
    if ms > 0.0 && ms.is_finite() {
        std::thread::sleep(Duration::from_secs_f64(ms / 1000.0));
    }
}

/// A clock reading in milliseconds. Every reading goes through here, so two readings
/// compare as the instants they stand for.
pub fn ms_of(t: Duration) -> f64 {
    t.as_secs_f64() * 1000.0
}

/// `ms` rounded to 0.01 ms, so records stay short.
pub fn rounded(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}
