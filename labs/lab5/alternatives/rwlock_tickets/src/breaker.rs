//! The breaker: a read-write lock and numbered tickets.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockWriteGuard};
use std::time::Duration;

use gateway_kit::{
    Alert, AlertSink, BreakerSettings, Clock, Flow, Outcome, State, Transition, TransitionLog,
};

use crate::{Observation, Window, observe};

/// One flow's circuit breaker.
pub struct Breaker {
    flow: Flow,
    settings: BreakerSettings,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    alerts: Arc<dyn AlertSink>,
    next_ticket: AtomicU64,
    inner: RwLock<Inner>,
}

struct Inner {
    state: State,
    window: Window,
    opened_at: Duration,
    probes_out: usize,
    probes_passed: usize,
    /// Tickets admitted in the current state and not yet answered.
    valid: HashSet<u64>,
}

impl Breaker {
    /// A CLOSED breaker for `flow`.
    pub fn new(
        flow: Flow,
        settings: BreakerSettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
        alerts: Arc<dyn AlertSink>,
    ) -> Self {
        Self {
            flow,
            settings,
            clock,
            log,
            alerts,
            next_ticket: AtomicU64::new(0),
            inner: RwLock::new(Inner {
                state: State::Closed,
                window: Window::new(settings.window, settings.max_age),
                opened_at: Duration::ZERO,
                probes_out: 0,
                probes_passed: 0,
                valid: HashSet::new(),
            }),
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        self.inner
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .state
    }

    /// Runs `call` if the circuit allows it, and learns from its outcome.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        let Some(probe) = self.admit(ticket) else {
            return Outcome::CircuitOpen;
        };
        let outcome = call();
        let mut inner = self.write();
        if inner.valid.remove(&ticket) {
            self.learn(&mut inner, probe, outcome);
        }
        outcome
    }

    fn admit(&self, ticket: u64) -> Option<bool> {
        let mut inner = self.write();
        if inner.state == State::Open {
            if self.clock.now() - inner.opened_at < self.settings.open_for {
                return None;
            }
            self.move_to(&mut inner, State::HalfOpen);
            inner.probes_out = 0;
            inner.probes_passed = 0;
        }
        let probe = inner.state == State::HalfOpen;
        if probe {
            if inner.probes_out == self.settings.probes {
                return None;
            }
            inner.probes_out += 1;
        }
        inner.valid.insert(ticket);
        Some(probe)
    }

    fn learn(&self, inner: &mut Inner, probe: bool, outcome: Outcome) {
        let now = self.clock.now();
        match (observe(outcome), probe) {
            (None, true) => inner.probes_out -= 1,
            (None, false) => {}
            (Some(Observation::Failure), true) => {
                inner.opened_at = now;
                self.move_to(inner, State::Open);
            }
            (Some(Observation::Success), true) => {
                inner.probes_passed += 1;
                if inner.probes_passed == self.settings.probes {
                    inner.window.clear();
                    self.move_to(inner, State::Closed);
                    self.alerts.notify(Alert::Closed {
                        at: now,
                        flow: self.flow.clone(),
                    });
                }
            }
            (Some(observation), false) => {
                inner.window.record(now, observation);
                let tally = inner.window.tally(now);
                let rate = u64::from(self.settings.failure_rate_percent);
                let enough = tally.sample >= self.settings.minimum_calls;
                if enough && tally.failures as u64 * 100 >= rate * tally.sample as u64 {
                    inner.opened_at = now;
                    self.move_to(inner, State::Open);
                    self.alerts.notify(Alert::Opened {
                        at: now,
                        flow: self.flow.clone(),
                        failures: tally.failures,
                        sample: tally.sample,
                    });
                }
            }
        }
    }

    fn move_to(&self, inner: &mut Inner, to: State) {
        let from = std::mem::replace(&mut inner.state, to);
        inner.valid.clear();
        self.log.record(Transition {
            at: self.clock.now(),
            flow: self.flow.clone(),
            from,
            to,
        });
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}
