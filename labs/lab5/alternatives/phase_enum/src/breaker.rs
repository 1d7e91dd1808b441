//! The breaker: a phase that carries its own data.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
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
    inner: Mutex<Inner>,
}

enum Phase {
    Closed,
    Open { until: Duration },
    HalfOpen { handed_out: usize, passed: usize },
}

struct Inner {
    phase: Phase,
    window: Window,
    generation: u64,
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
        let window = Window::new(settings.window, settings.max_age);
        Self {
            flow,
            settings,
            clock,
            log,
            alerts,
            inner: Mutex::new(Inner {
                phase: Phase::Closed,
                window,
                generation: 0,
            }),
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        state_of(&self.lock().phase)
    }

    /// Runs `call` if the circuit allows it, and learns from its outcome.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        let (generation, probe) = {
            let mut inner = self.lock();
            let now = self.clock.now();
            let generation = inner.generation;
            match &mut inner.phase {
                Phase::Closed => (generation, false),
                Phase::Open { until } if now >= *until => {
                    let half_open = Phase::HalfOpen {
                        handed_out: 1,
                        passed: 0,
                    };
                    self.change(&mut inner, half_open);
                    (inner.generation, true)
                }
                Phase::HalfOpen { handed_out, .. } if *handed_out < self.settings.probes => {
                    *handed_out += 1;
                    (generation, true)
                }
                Phase::Open { .. } | Phase::HalfOpen { .. } => return Outcome::CircuitOpen,
            }
        };
        let outcome = call();
        let alert = {
            let mut inner = self.lock();
            if inner.generation == generation {
                self.learn(&mut inner, probe, outcome)
            } else {
                None
            }
        };
        if let Some(alert) = alert {
            self.alerts.notify(alert);
        }
        outcome
    }

    /// Takes in one answer of the current generation; returns the alert to send, if any.
    fn learn(&self, inner: &mut Inner, probe: bool, outcome: Outcome) -> Option<Alert> {
        let Some(observation) = observe(outcome) else {
            if let Phase::HalfOpen { handed_out, .. } = &mut inner.phase {
                if probe {
                    *handed_out -= 1;
                }
            }
            return None;
        };
        let now = self.clock.now();
        let flow = self.flow.clone();
        if probe {
            if observation == Observation::Failure {
                let until = now + self.settings.open_for;
                self.change(inner, Phase::Open { until });
                return None;
            }
            let Phase::HalfOpen { passed, .. } = &mut inner.phase else {
                return None;
            };
            *passed += 1;
            if *passed < self.settings.probes {
                return None;
            }
            inner.window.clear();
            self.change(inner, Phase::Closed);
            return Some(Alert::Closed { at: now, flow });
        }
        inner.window.record(now, observation);
        let tally = inner.window.tally(now);
        let rate = self.settings.failure_rate_percent as usize;
        if tally.sample < self.settings.minimum_calls || tally.failures * 100 < rate * tally.sample
        {
            return None;
        }
        let until = now + self.settings.open_for;
        self.change(inner, Phase::Open { until });
        Some(Alert::Opened {
            at: now,
            flow,
            failures: tally.failures,
            sample: tally.sample,
        })
    }

    fn change(&self, inner: &mut Inner, to: Phase) {
        let from = state_of(&inner.phase);
        inner.phase = to;
        inner.generation += 1;
        self.log.record(Transition {
            at: self.clock.now(),
            flow: self.flow.clone(),
            from,
            to: state_of(&inner.phase),
        });
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn state_of(phase: &Phase) -> State {
    match phase {
        Phase::Closed => State::Closed,
        Phase::Open { .. } => State::Open,
        Phase::HalfOpen { .. } => State::HalfOpen,
    }
}
