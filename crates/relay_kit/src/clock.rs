//! Injected time.
//!
//! A breaker that calls `Instant::now()` directly cannot be tested without real waiting,
//! and a test that waits for real is slow and flaky. So the relay reads time only through
//! the [`Clock`] trait: the grader hands it a [`FakeClock`] that it advances step by step,
//! and a deployment hands it a [`MonotonicClock`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A source of monotonic time, measured from an arbitrary origin.
///
/// `now()` never goes backwards. Only differences between two readings mean anything.
pub trait Clock: Send + Sync {
    /// Time elapsed since this clock's origin.
    fn now(&self) -> Duration;
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now(&self) -> Duration {
        (**self).now()
    }
}

/// A clock that moves only when [`FakeClock::advance`] is called.
///
/// Clones share one timeline: advancing any clone advances them all. It starts at zero.
#[derive(Clone, Debug, Default)]
pub struct FakeClock {
    nanos: Arc<AtomicU64>,
}

impl FakeClock {
    /// A fake clock reading zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves time forward by `by`.
    pub fn advance(&self, by: Duration) {
        let nanos = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::SeqCst);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

/// The real clock, for use outside the grader: monotonic, from the moment it was created.
#[derive(Clone, Debug)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    #[allow(clippy::disallowed_methods)] // The one place the real clock is read on purpose.
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
}

/// Formats a clock reading as `HH:MM:SS.mmm`, the way reports and transition records show it.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(relay_kit::format_clock_time(Duration::from_millis(120_005)), "00:02:00.005");
/// ```
pub fn format_clock_time(t: Duration) -> String {
    let ms = t.as_millis();
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, ms) = (rest / 1000, rest % 1000);
    format!("{h:02}:{m:02}:{s:02}.{ms:03}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_clones_share_one_timeline() {
        let a = FakeClock::new();
        let b = a.clone();
        a.advance(Duration::from_millis(1500));
        assert_eq!(b.now(), Duration::from_millis(1500));
        b.advance(Duration::from_millis(1));
        assert_eq!(a.now(), Duration::from_millis(1501));
    }

    #[test]
    fn monotonic_clock_never_goes_backwards() {
        let c = MonotonicClock::new();
        let first = c.now();
        assert!(c.now() >= first);
    }

    #[test]
    fn clock_time_format() {
        assert_eq!(format_clock_time(Duration::ZERO), "00:00:00.000");
        assert_eq!(
            format_clock_time(Duration::from_millis(3_723_004)),
            "01:02:03.004"
        );
    }
}
