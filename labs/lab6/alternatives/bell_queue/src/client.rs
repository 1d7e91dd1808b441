//! One dependency behind its breaker, bulkhead, retries and budget, with counters kept in
//! atomics.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use shipping_kit::{
    Answer, Clock, Dependency, DependencySettings, Metrics, State, TransitionLog, start_call,
};

use crate::{Attempt, Breaker, Bulkhead, Refusal, pause, retryable};

/// A dependency and everything that protects it.
pub struct Client {
    dependency: Arc<dyn Dependency>,
    settings: DependencySettings,
    clock: Arc<dyn Clock>,
    breaker: Breaker,
    bulkhead: Bulkhead,
    counters: [AtomicU64; 5],
}

const TIMEOUT: usize = 0;
const NO_CAPACITY: usize = 1;
const QUEUE_EXPIRED: usize = 2;
const CIRCUIT_OPEN: usize = 3;
const NO_TARIFF: usize = 4;

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
            counters: Default::default(),
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
        let mut retries = 0;
        loop {
            let outcome = self.breaker.call(|| self.try_once(operation, ends_at));
            self.note(outcome);
            if !retryable(outcome) || retries + 1 >= self.settings.retry.max_attempts {
                return outcome;
            }
            retries += 1;
            let wait = pause(&self.settings.retry, operation, retries);
            let left = ends_at.saturating_sub(self.clock.now());
            if wait >= left {
                // The next attempt would start with no budget left.
                return outcome;
            }
            self.clock.sleep_until(self.clock.now() + wait);
        }
    }

    /// The breaker's state.
    pub fn state(&self) -> State {
        self.breaker.state()
    }

    /// What the attempts so far came to.
    pub fn metrics(&self) -> Metrics {
        let read = |i: usize| self.counters[i].load(Ordering::SeqCst);
        Metrics {
            timeout: read(TIMEOUT),
            no_capacity: read(NO_CAPACITY),
            queue_expired: read(QUEUE_EXPIRED),
            circuit_open: read(CIRCUIT_OPEN),
            no_tariff: read(NO_TARIFF),
        }
    }

    fn try_once(&self, operation: u64, ends_at: Duration) -> Attempt {
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

    fn note(&self, outcome: Attempt) {
        let index = match outcome {
            Attempt::Timeout => TIMEOUT,
            Attempt::NoCapacity => NO_CAPACITY,
            Attempt::QueueExpired => QUEUE_EXPIRED,
            Attempt::CircuitOpen => CIRCUIT_OPEN,
            Attempt::Answered(Answer::NoTariff) => NO_TARIFF,
            Attempt::Answered(_) => return,
        };
        self.counters[index].fetch_add(1, Ordering::SeqCst);
    }
}
