//! The pause before each retry: growing, with jitter from the seeded source.

use std::time::Duration;

use shipping_kit::RetrySettings;

/// The pause before retry number `retry` (1 before the second attempt, 2 before the
/// third, ...) of operation `operation`: `backoff × 2^(retry − 1)`, plus a jitter of up to
/// `jitter_percent` % of that, drawn from `shipping_kit::jitter` with the settings' seed.
pub fn pause(settings: &RetrySettings, operation: u64, retry: u32) -> Duration {
    // TODO(lab6): the fixed part doubles with each retry; the jitter comes from
    // `shipping_kit::jitter(settings.jitter_seed, operation, retry, spread)`, where
    // `spread` is `jitter_percent` % of the fixed part.
    let _ = (settings, operation, retry);
    todo!("lab 6: compute the pause before a retry in pause")
}
