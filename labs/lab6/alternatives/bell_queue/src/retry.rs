//! The pause before each retry, in whole milliseconds.

use std::time::Duration;

use shipping_kit::{RetrySettings, jitter};

/// The pause before retry number `retry` (1 before the second attempt) of `operation`:
/// the backoff doubled `retry − 1` times, plus seeded jitter of up to `jitter_percent` %
/// of that.
pub fn pause(settings: &RetrySettings, operation: u64, retry: u32) -> Duration {
    let mut fixed_ms = u64::try_from(settings.backoff.as_millis()).unwrap_or(u64::MAX);
    for _ in 1..retry {
        fixed_ms = fixed_ms.saturating_mul(2);
    }
    let spread_ms = fixed_ms.saturating_mul(u64::from(settings.jitter_percent)) / 100;
    let extra = jitter(
        settings.jitter_seed,
        operation,
        retry,
        Duration::from_millis(spread_ms),
    );
    Duration::from_millis(fixed_ms) + extra
}
