//! How each flow is protected, with the lab's defaults.

use std::time::Duration;

/// When a flow's breaker opens, how long it stays open, and how it tests the partner again.
///
/// `BreakerSettings::default()` gives the lab's defaults: a window of the latest 10
/// outcomes, at least 10 of them before the circuit may open, a failure share of 50 %, no
/// age limit, 10 s open, 1 probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerSettings {
    /// How many of the latest outcomes the window keeps while CLOSED (at least 1).
    pub window: usize,
    /// The fewest outcomes the window must hold before the circuit may open (1 to `window`).
    pub minimum_calls: usize,
    /// The failure share, in percent of the outcomes in the window, that opens the circuit
    /// (1 to 100).
    pub failure_rate_percent: u32,
    /// When set, an outcome leaves the window once it is this old, even if fewer than
    /// `window` outcomes came after it.
    pub max_age: Option<Duration>,
    /// How long the circuit stays OPEN before the next message may be a probe.
    pub open_for: Duration,
    /// How many probe calls HALF_OPEN lets through; all must succeed to close (at least 1).
    pub probes: usize,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        Self {
            window: 10,
            minimum_calls: 10,
            failure_rate_percent: 50,
            max_age: None,
            open_for: Duration::from_secs(10),
            probes: 1,
        }
    }
}

/// Everything the gateway needs to protect one flow.
///
/// `FlowSettings::default()` is the default breaker and a bulkhead of 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSettings {
    /// The flow's circuit breaker.
    pub breaker: BreakerSettings,
    /// How many messages on this flow may be in progress at once (at least 1).
    pub max_concurrent: usize,
}

impl Default for FlowSettings {
    fn default() -> Self {
        Self {
            breaker: BreakerSettings::default(),
            max_concurrent: 5,
        }
    }
}
