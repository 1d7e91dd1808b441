//! One dependency, protected: its breaker, its bulkhead, its retries and its budget, and
//! the counts of how its attempts ended.

use std::sync::Arc;

use shipping_kit::{Clock, Dependency, DependencySettings, Metrics, State, TransitionLog};

use crate::Attempt;

/// A dependency and everything that protects it.
pub struct Client {
    dependency: Arc<dyn Dependency>,
    // TODO(lab6): the settings and the clock, this dependency's own `Breaker` and
    // `Bulkhead`, and its metrics (behind a lock, or in atomics).
}

impl Client {
    /// Protection for `dependency` with `settings`; the breaker writes to `log`.
    pub fn new(
        dependency: Arc<dyn Dependency>,
        settings: DependencySettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        // TODO(lab6): a `Breaker` named after `dependency.name()` with `settings.breaker`,
        // `clock` and `log`; a `Bulkhead` with `settings.bulkhead` and `clock`.
        let _ = (settings, clock, log);
        let _ = Self { dependency };
        todo!("lab 6: build the protection of one dependency in Client::new")
    }

    /// The dependency's name.
    pub fn name(&self) -> &str {
        self.dependency.name()
    }

    /// One operation on behalf of request `operation`, within one budget: the last
    /// attempt's outcome.
    pub fn call(&self, operation: u64) -> Attempt {
        // TODO(lab6): the budget starts now. Each attempt: the breaker, the bulkhead (with
        // the budget's end as its deadline), `shipping_kit::start_call`, the slot handed to
        // the call (`keep_until_done`), and `call.wait_until(clock, deadline)`. Count how
        // it ended. Retry only what `retryable` allows, at most `max_attempts` attempts in
        // all, after `pause(...)`, and only if the next attempt would start before the
        // budget's end; otherwise return at once.
        let _ = operation;
        todo!("lab 6: run one operation within its budget in Client::call")
    }

    /// The breaker's state.
    pub fn state(&self) -> State {
        // TODO(lab6): ask the breaker.
        todo!("lab 6: report the breaker's state in Client::state")
    }

    /// What the attempts so far came to.
    pub fn metrics(&self) -> Metrics {
        // TODO(lab6): a copy of the counts.
        todo!("lab 6: report the metrics in Client::metrics")
    }
}
