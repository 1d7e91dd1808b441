//! One dependency behind its breaker, bulkhead, retries and budget.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use shipping_kit::{
    Answer, Cause, Clock, Dependency, DependencySettings, Metrics, State, TransitionLog,
    start_call,
};

use crate::{Attempt, Breaker, Bulkhead, Refusal, cause, pause, retryable};

/// A dependency and everything that protects it.
pub struct Client {
    dependency: Arc<dyn Dependency>,
    settings: DependencySettings,
    clock: Arc<dyn Clock>,
    breaker: Breaker,
    bulkhead: Bulkhead,
    metrics: Mutex<Metrics>,
}

impl Client {
    /// Protection for `dependency` with `settings`; the breaker writes to `log`.
    pub fn new(
        dependency: Arc<dyn Dependency>,
        settings: DependencySettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        Self {
            breaker: Breaker::new(dependency.name(), settings.breaker, clock.clone(), log),
            bulkhead: Bulkhead::new(settings.bulkhead, clock.clone()),
            metrics: Mutex::default(),
            dependency,
            settings,
            clock,
        }
    }

    /// The dependency's name.
    pub fn name(&self) -> &str {
        self.dependency.name()
    }

    /// One operation on behalf of request `operation`, within one budget: the last
    /// attempt's outcome.
    pub fn call(&self, operation: u64) -> Attempt {
        let deadline = self.clock.now() + self.settings.budget;
        let attempts = self.settings.retry.max_attempts.max(1);
        let mut last = Attempt::CircuitOpen;
        for number in 1..=attempts {
            if number > 1 {
                let starts = self.clock.now() + pause(&self.settings.retry, operation, number - 1);
                if starts >= deadline {
                    break;
                }
                self.clock.sleep_until(starts);
            }
            last = self.breaker.call(|| self.attempt(operation, deadline));
            self.tally(last);
            if !retryable(last) {
                break;
            }
        }
        last
    }

    /// The breaker's state.
    pub fn state(&self) -> State {
        self.breaker.state()
    }

    /// What the attempts so far came to.
    pub fn metrics(&self) -> Metrics {
        *self.metrics.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn attempt(&self, operation: u64, deadline: Duration) -> Attempt {
        let slot = match self.bulkhead.admit(deadline) {
            Ok(slot) if self.clock.now() < deadline => slot,
            Ok(_) | Err(Refusal::Expired) => return Attempt::QueueExpired,
            Err(Refusal::Full) => return Attempt::NoCapacity,
        };
        let call = start_call(self.dependency.as_ref(), operation);
        call.keep_until_done(slot);
        match call.wait_until(self.clock.as_ref(), deadline) {
            Some(answer) => Attempt::Answered(answer),
            None => Attempt::Timeout,
        }
    }

    fn tally(&self, attempt: Attempt) {
        let mut m = self.metrics.lock().unwrap_or_else(PoisonError::into_inner);
        match (attempt, cause(attempt)) {
            (Attempt::Answered(Answer::NoTariff), _) => m.no_tariff += 1,
            (_, Some(Cause::Timeout)) => m.timeout += 1,
            (_, Some(Cause::NoCapacity)) => m.no_capacity += 1,
            (_, Some(Cause::QueueExpired)) => m.queue_expired += 1,
            (_, Some(Cause::CircuitOpen)) => m.circuit_open += 1,
            _ => {}
        }
    }
}
