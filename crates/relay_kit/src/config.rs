//! Settings for one target's breaker and bulkhead.

use std::time::Duration;

/// When a breaker opens, and how long it stays open before it allows a trial call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerConfig {
    /// How many counted failures in a row open the circuit (at least 1).
    pub failure_threshold: u32,
    /// How long the circuit stays OPEN before the next request may be a trial call.
    pub retry_after: Duration,
}

/// Everything the relay needs to protect one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetConfig {
    /// The target's circuit breaker.
    pub breaker: BreakerConfig,
    /// How many calls to this target may be in progress at once (at least 1).
    pub max_concurrent: usize,
}
