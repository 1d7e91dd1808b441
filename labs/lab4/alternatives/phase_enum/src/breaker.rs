//! A circuit breaker whose state is one enum that carries what each state needs: the
//! failure count exists only while CLOSED, the opening time only while OPEN, the trial
//! mark only while HALF_OPEN. A value that cannot exist cannot be left behind by a
//! forgotten reset.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
pub fn counts_as_failure(code: Code) -> bool {
    use Code::*;
    match code {
        E500 | E901 | E902 => true,
        Ok | B201 | E904 | E905 => false,
    }
}

/// The breaker's state, with the data of that state.
#[derive(Clone, Copy, Debug)]
enum Phase {
    Closed { failures: u32 },
    Open { since: Duration },
    HalfOpen { trial_out: bool },
}

impl Phase {
    fn state(self) -> State {
        match self {
            Phase::Closed { .. } => State::Closed,
            Phase::Open { .. } => State::Open,
            Phase::HalfOpen { .. } => State::HalfOpen,
        }
    }
}

/// Whether an admitted call is the trial.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ordinary,
    Trial,
}

/// One target's circuit breaker.
pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    phase: Mutex<Phase>,
}

impl Breaker {
    /// A CLOSED breaker for `target`.
    pub fn new(
        target: impl Into<String>,
        config: BreakerConfig,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        Self {
            target: target.into(),
            config,
            clock,
            log,
            phase: Mutex::new(Phase::Closed { failures: 0 }),
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.phase().state()
    }

    /// Runs `call` if the circuit lets it through, and learns from its answer.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let kind = {
            let mut phase = self.phase();
            match *phase {
                Phase::Closed { .. } => Kind::Ordinary,
                Phase::Open { since } => {
                    let now = self.clock.now();
                    if now.saturating_sub(since) < self.config.retry_after {
                        return Code::E904;
                    }
                    self.enter(&mut phase, Phase::HalfOpen { trial_out: true });
                    Kind::Trial
                }
                Phase::HalfOpen { trial_out: true } => return Code::E904,
                Phase::HalfOpen { trial_out: false } => {
                    *phase = Phase::HalfOpen { trial_out: true };
                    Kind::Trial
                }
            }
        };
        let code = call();
        self.learn(kind, code);
        code
    }

    fn learn(&self, kind: Kind, code: Code) {
        let reached_target = !matches!(code, Code::E904 | Code::E905);
        let mut phase = self.phase();
        let next = match (kind, *phase) {
            // The trial never reached the target: hand it back.
            (Kind::Trial, Phase::HalfOpen { .. }) if !reached_target => {
                Phase::HalfOpen { trial_out: false }
            }
            (Kind::Trial, Phase::HalfOpen { .. }) if counts_as_failure(code) => Phase::Open {
                since: self.clock.now(),
            },
            (Kind::Trial, Phase::HalfOpen { .. }) => Phase::Closed { failures: 0 },
            (Kind::Ordinary, Phase::Closed { failures }) if reached_target => {
                if !counts_as_failure(code) {
                    Phase::Closed { failures: 0 }
                } else if failures + 1 >= self.config.failure_threshold {
                    Phase::Open {
                        since: self.clock.now(),
                    }
                } else {
                    Phase::Closed {
                        failures: failures + 1,
                    }
                }
            }
            // A rejection, or a late answer from a call admitted before the circuit
            // opened: nothing to learn.
            (_, unchanged) => unchanged,
        };
        self.enter(&mut phase, next);
    }

    /// Moves to `next`, recording it if the state changes.
    fn enter(&self, phase: &mut Phase, next: Phase) {
        let (from, to) = (phase.state(), next.state());
        *phase = next;
        if from != to {
            self.log.record(Transition {
                at: self.clock.now(),
                target: self.target.clone(),
                from,
                to,
            });
        }
    }

    fn phase(&self) -> MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
