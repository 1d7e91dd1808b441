//! The pause before each retry.

use std::time::Duration;

use shipping_kit::{RetrySettings, jitter};

/// The pause before retry `retry` (from 1) of operation `operation`: the backoff doubled
/// once per earlier retry, plus the seeded jitter on up to `jitter_percent` % of it.
pub fn pause(settings: &RetrySettings, operation: u64, retry: u32) -> Duration {
    let mut fixed = settings.backoff;
    for _ in 1..retry {
        fixed = fixed.saturating_add(fixed);
    }
    let share = fixed.saturating_mul(settings.jitter_percent) / 100;
    fixed.saturating_add(jitter(settings.jitter_seed, operation, retry, share))
}
