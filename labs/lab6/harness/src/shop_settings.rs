//! The one place the plan's settings of a dependency become the shop's
//! (`shipping_kit::DependencySettings`). The race harness builds this same file against its
//! race build of `shipping_kit`: both include it where the plan's `Settings` are in scope.

use std::time::Duration;

use shipping_kit::{BreakerSettings, BulkheadSettings, DependencySettings, RetrySettings};

use super::Settings;

/// The shop's settings for one dependency, from the plan's.
pub fn dependency_settings(s: &Settings) -> DependencySettings {
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    DependencySettings {
        bulkhead: BulkheadSettings {
            max_active: count(s.max_active),
            max_queued: count(s.max_queued),
            max_queue_wait: Duration::from_millis(s.max_queue_wait_ms),
        },
        budget: Duration::from_millis(s.budget_ms),
        retry: RetrySettings {
            max_attempts: small(s.max_attempts),
            backoff: Duration::from_millis(s.backoff_ms),
            jitter_percent: small(s.jitter_percent),
            jitter_seed: s.jitter_seed,
        },
        breaker: BreakerSettings {
            window: count(s.window),
            minimum_calls: count(s.minimum_calls),
            failure_rate_percent: small(s.failure_rate_percent),
            open_for: Duration::from_millis(s.open_for_ms),
            probes: count(s.probes),
        },
    }
}
