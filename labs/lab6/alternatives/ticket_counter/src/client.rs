//! One dependency, protected: its breaker, its bulkhead, its retries inside one budget,
//! and the counts of how its attempts ended.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use shipping_kit::{
    Answer, Cause, Clock, Dependency, DependencySettings, Metrics, State, TransitionLog,
    start_call,
};

use crate::{Attempt, Breaker, Bulkhead, Refusal, cause, pause, retryable};

/// Where each counted ending goes in the counts array.
const TIMEOUT: usize = 0;
const NO_CAPACITY: usize = 1;
const QUEUE_EXPIRED: usize = 2;
const CIRCUIT_OPEN: usize = 3;
const NO_TARIFF: usize = 4;

/// A dependency and everything that protects it.
pub struct Client {
    dependency: Arc<dyn Dependency>,
    settings: DependencySettings,
    clock: Arc<dyn Clock>,
    breaker: Breaker,
    bulkhead: Bulkhead,
    counts: Mutex<[u64; 5]>,
}

impl Client {
    /// Protection for `dependency` with `settings`; the breaker writes to `log`.
    pub fn new(
        dependency: Arc<dyn Dependency>,
        settings: DependencySettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        let breaker = Breaker::new(dependency.name(), settings.breaker, clock.clone(), log);
        let bulkhead = Bulkhead::new(settings.bulkhead, clock.clone());
        Self {
            dependency,
            settings,
            clock,
            breaker,
            bulkhead,
            counts: Mutex::new([0; 5]),
        }
    }

    /// The dependency's name.
    pub fn name(&self) -> &str {
        self.dependency.name()
    }

    /// One operation on behalf of request `operation`, within one budget: the last
    /// attempt's outcome.
    pub fn call(&self, operation: u64) -> Attempt {
        let ends_at = self.clock.now() + self.settings.budget;
        let mut made = 0;
        loop {
            made += 1;
            let outcome = self.breaker.call(|| self.once(operation, ends_at));
            self.count(outcome);
            let out_of_attempts = made >= self.settings.retry.max_attempts;
            if !retryable(outcome) || out_of_attempts {
                return outcome;
            }
            let next = self.clock.now() + pause(&self.settings.retry, operation, made);
            if next >= ends_at {
                return outcome;
            }
            self.clock.sleep_until(next);
        }
    }

    /// The breaker's state.
    pub fn state(&self) -> State {
        self.breaker.state()
    }

    /// What the attempts so far came to.
    pub fn metrics(&self) -> Metrics {
        let c = *self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        Metrics {
            timeout: c[TIMEOUT],
            no_capacity: c[NO_CAPACITY],
            queue_expired: c[QUEUE_EXPIRED],
            circuit_open: c[CIRCUIT_OPEN],
            no_tariff: c[NO_TARIFF],
        }
    }

    /// One attempt past the breaker: a slot, the call, its answer by `ends_at`.
    fn once(&self, operation: u64, ends_at: Duration) -> Attempt {
        let slot = match self.bulkhead.admit(ends_at) {
            Err(Refusal::Full) => return Attempt::NoCapacity,
            Err(Refusal::Expired) => return Attempt::QueueExpired,
            Ok(slot) => slot,
        };
        if self.clock.now() >= ends_at {
            return Attempt::QueueExpired;
        }
        let call = start_call(self.dependency.as_ref(), operation);
        call.keep_until_done(slot);
        call.wait_until(self.clock.as_ref(), ends_at)
            .map_or(Attempt::Timeout, Attempt::Answered)
    }

    fn count(&self, outcome: Attempt) {
        let index = match (outcome, cause(outcome)) {
            (Attempt::Answered(Answer::NoTariff), _) => NO_TARIFF,
            (_, Some(Cause::Timeout)) => TIMEOUT,
            (_, Some(Cause::NoCapacity)) => NO_CAPACITY,
            (_, Some(Cause::QueueExpired)) => QUEUE_EXPIRED,
            (_, Some(Cause::CircuitOpen)) => CIRCUIT_OPEN,
            _ => return,
        };
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)[index] += 1;
    }
}
