//! A flow's circuit breaker: judge the partner by a window of recent outcomes, stop
//! calling it when too many of them fail, and test it with probes before trusting it again.
//!
//! CLOSED lets every message through and records its outcome in the window. Once the
//! window holds `minimum_calls` outcomes and the failure share reaches
//! `failure_rate_percent`, the circuit opens and operators are alerted. OPEN rejects every
//! message at once for `open_for`. The next message after that starts HALF_OPEN as its
//! first probe; HALF_OPEN lets `probes` probes through in all. The first failing probe
//! opens the circuit again with a fresh wait; when every probe has succeeded the circuit
//! closes, the window starts empty, and operators get the all-clear.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use gateway_kit::{
    Alert, AlertSink, BreakerSettings, Clock, Flow, Outcome, State, Transition, TransitionLog,
};

use crate::{Observation, Tally, Window, observe};

/// One flow's circuit breaker. Share it between threads with `&Breaker` or `Arc`.
pub struct Breaker {
    flow: Flow,
    settings: BreakerSettings,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    alerts: Arc<dyn AlertSink>,
    inner: Mutex<Inner>,
}

/// The part that changes, always read and written under the lock.
struct Inner {
    state: State,
    /// CLOSED only: the outcomes the circuit is judged by.
    window: Window,
    /// When the circuit last opened; the wait is measured from here.
    opened_at: Duration,
    /// Probes handed out in this HALF_OPEN round, finished or not.
    probes_out: usize,
    /// Probes of this HALF_OPEN round that succeeded.
    probes_passed: usize,
    /// Goes up on every change of state. A call admitted in one state that answers after
    /// the state changed carries an old era: its answer is old news and is ignored.
    era: u64,
}

/// Why `admit` let a call through, and in which era.
#[derive(Clone, Copy)]
struct Ticket {
    probe: bool,
    era: u64,
}

impl Breaker {
    /// A CLOSED breaker for `flow` that reads time from `clock`, writes every state change
    /// to `log` and tells `alerts` when the circuit opens and closes.
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
            inner: Mutex::new(Inner {
                state: State::Closed,
                window: Window::new(settings.window, settings.max_age),
                opened_at: Duration::ZERO,
                probes_out: 0,
                probes_passed: 0,
                era: 0,
            }),
        }
    }

    /// The current state. Reading it changes nothing: an OPEN circuit whose wait is over
    /// stays OPEN until a message arrives.
    pub fn state(&self) -> State {
        self.lock().state
    }

    /// Runs `call` if the circuit allows it, and learns from the outcome it returns.
    ///
    /// Returns `CircuitOpen` at once, without running `call`, while the circuit is OPEN or
    /// while every probe of HALF_OPEN is out. The lock is never held while `call` runs.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        let Some(ticket) = self.admit() else {
            return Outcome::CircuitOpen;
        };
        let outcome = call();
        self.settle(ticket, outcome);
        outcome
    }

    /// Decides, under the lock, whether one call may go to the partner.
    fn admit(&self) -> Option<Ticket> {
        let mut inner = self.lock();
        let probe = match inner.state {
            State::Closed => false,
            State::Open => {
                let waited = self.clock.now().saturating_sub(inner.opened_at);
                if waited < self.settings.open_for {
                    return None;
                }
                self.move_to(&mut inner, State::HalfOpen);
                inner.probes_out = 0;
                inner.probes_passed = 0;
                true
            }
            State::HalfOpen => true,
        };
        if probe {
            if inner.probes_out >= self.settings.probes {
                return None;
            }
            inner.probes_out += 1;
        }
        Some(Ticket {
            probe,
            era: inner.era,
        })
    }

    /// Records, under the lock, how an admitted call ended.
    fn settle(&self, ticket: Ticket, outcome: Outcome) {
        let mut inner = self.lock();
        if ticket.era != inner.era {
            return;
        }
        let Some(observation) = observe(outcome) else {
            // The gateway turned the call away before the partner saw it. A probe that
            // never reached the partner is handed back for the next message.
            if ticket.probe {
                inner.probes_out -= 1;
            }
            return;
        };
        let now = self.clock.now();
        if ticket.probe {
            match observation {
                Observation::Failure => self.open(&mut inner, now),
                Observation::Success => {
                    inner.probes_passed += 1;
                    if inner.probes_passed == self.settings.probes {
                        inner.window.clear();
                        self.move_to(&mut inner, State::Closed);
                        self.alerts.notify(Alert::Closed {
                            at: now,
                            flow: self.flow.clone(),
                        });
                    }
                }
            }
            return;
        }
        inner.window.record(now, observation);
        let tally = inner.window.tally(now);
        if self.too_many_failures(tally) {
            self.open(&mut inner, now);
            self.alerts.notify(Alert::Opened {
                at: now,
                flow: self.flow.clone(),
                failures: tally.failures,
                sample: tally.sample,
            });
        }
    }

    /// Whether a CLOSED circuit with this window must open: enough outcomes, and a failure
    /// share at or above the rate. Compared in whole numbers, so 5 of 10 is exactly 50 %.
    fn too_many_failures(&self, tally: Tally) -> bool {
        let rate = usize::try_from(self.settings.failure_rate_percent).unwrap_or(usize::MAX);
        tally.sample >= self.settings.minimum_calls
            && tally.failures * 100 >= rate.saturating_mul(tally.sample)
    }

    /// Opens the circuit and starts the wait from `now`.
    fn open(&self, inner: &mut Inner, now: Duration) {
        inner.opened_at = now;
        self.move_to(inner, State::Open);
    }

    /// Changes state and writes the transition record while the caller holds the lock, so
    /// records come out in the order the changes happened.
    fn move_to(&self, inner: &mut Inner, to: State) {
        let from = inner.state;
        inner.state = to;
        inner.era += 1;
        self.log.record(Transition {
            at: self.clock.now(),
            flow: self.flow.clone(),
            from,
            to,
        });
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The lock is never held across a call into the partner, so a poisoned lock can
        // only come from a bug in this file or in the alert sink; the data is still whole.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
