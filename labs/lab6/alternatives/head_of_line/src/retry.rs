//! The pause before each retry.

use std::time::Duration;

use shipping_kit::{RetrySettings, jitter};

/// The pause before retry number `retry` (1 before the second attempt) of `operation`:
/// `backoff × 2^(retry − 1)` plus seeded jitter of up to `jitter_percent` % of it.
pub fn pause(settings: &RetrySettings, operation: u64, retry: u32) -> Duration {
    let shift = retry.saturating_sub(1).min(63);
    let fixed = settings.backoff.as_nanos().saturating_mul(1_u128 << shift);
    let spread = fixed.saturating_mul(u128::from(settings.jitter_percent)) / 100;
    let nanos = |n: u128| Duration::from_nanos(u64::try_from(n).unwrap_or(u64::MAX));
    nanos(fixed) + jitter(settings.jitter_seed, operation, retry, nanos(spread))
}
