//! How the shop protects each dependency, with the lab's defaults.

use std::time::Duration;

/// The admission limits of one dependency: how many calls may run at once, how many
/// requests may wait for a slot, and for how long.
///
/// Default: 8 active, 10 queued, 20 ms in the queue at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkheadSettings {
    /// Calls to the dependency running at once (at least 1).
    pub max_active: usize,
    /// Requests waiting for a slot at once; one more is turned away at once.
    pub max_queued: usize,
    /// The longest a request may wait in the queue: it may still get a slot after exactly
    /// this long, never later.
    pub max_queue_wait: Duration,
}

impl Default for BulkheadSettings {
    fn default() -> Self {
        Self {
            max_active: 8,
            max_queued: 10,
            max_queue_wait: Duration::from_millis(20),
        }
    }
}

/// How an operation tries again after a quick transient failure.
///
/// Default: 3 attempts (the first call and 2 retries), pauses growing from 50 ms, each
/// with up to 100 % of jitter on top, from seed 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetrySettings {
    /// Attempts in all, **the first one included** (at least 1; 1 means no retry).
    pub max_attempts: u32,
    /// The pause before the first retry, without jitter; each later pause doubles it.
    pub backoff: Duration,
    /// The random part of a pause, in percent of its fixed part: up to this much is added
    /// (0 to 100; 0 means no jitter).
    pub jitter_percent: u32,
    /// The seed of the jitter ([`crate::jitter`]): the same seed gives the same pauses.
    pub jitter_seed: u64,
}

impl Default for RetrySettings {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            backoff: Duration::from_millis(50),
            jitter_percent: 100,
            jitter_seed: 1,
        }
    }
}

/// When a dependency's breaker opens, how long it stays open, and how many probes test it.
///
/// Default, lab 5's: the latest 10 outcomes, at least 10 of them, 50 % failures, 10 s open,
/// 1 probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerSettings {
    /// How many of the latest outcomes the window keeps while CLOSED (at least 1).
    pub window: usize,
    /// The fewest outcomes the window must hold before the circuit may open (1 to
    /// `window`).
    pub minimum_calls: usize,
    /// The failure share, in percent of the outcomes in the window, that opens the circuit
    /// (1 to 100).
    pub failure_rate_percent: u32,
    /// How long the circuit stays OPEN before the next attempt may be a probe.
    pub open_for: Duration,
    /// How many probes HALF_OPEN lets through; all must succeed to close (at least 1).
    pub probes: usize,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        Self {
            window: 10,
            minimum_calls: 10,
            failure_rate_percent: 50,
            open_for: Duration::from_secs(10),
            probes: 1,
        }
    }
}

/// Everything the shop needs to protect one dependency.
///
/// `DependencySettings::default()` is the lab's defaults: the bulkhead, retry and breaker
/// defaults and a budget of 300 ms per operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DependencySettings {
    /// Admission: active calls and the queue.
    pub bulkhead: BulkheadSettings,
    /// The time one operation may take in all, from its start: admission, every attempt
    /// and every pause between attempts spend it.
    pub budget: Duration,
    /// Retries.
    pub retry: RetrySettings,
    /// The breaker in front of the dependency.
    pub breaker: BreakerSettings,
}

impl Default for DependencySettings {
    fn default() -> Self {
        Self {
            bulkhead: BulkheadSettings::default(),
            budget: Duration::from_millis(300),
            retry: RetrySettings::default(),
            breaker: BreakerSettings::default(),
        }
    }
}
