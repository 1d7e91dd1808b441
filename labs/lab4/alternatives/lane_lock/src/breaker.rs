//! The breaker's state machine as plain data (`Circuit`), with no lock of its own: the
//! relay keeps each target's circuit and slots under one mutex per target, so deciding
//! on the breaker and taking a slot are one locked step. `Breaker` wraps a circuit in
//! its own mutex for use on its own.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
pub fn counts_as_failure(code: Code) -> bool {
    [Code::E500, Code::E901, Code::E902].contains(&code)
}

/// What an admitted call is: an ordinary call, or the half-open trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    Ordinary,
    Trial,
}

/// One target's breaker state machine. Its owner keeps it behind a lock.
pub(crate) struct Circuit {
    target: String,
    config: BreakerConfig,
    log: TransitionLog,
    state: State,
    failures: u32,
    opened_at: Duration,
    trial_out: bool,
}

impl Circuit {
    pub(crate) fn new(target: String, config: BreakerConfig, log: TransitionLog) -> Self {
        Self {
            target,
            config,
            log,
            state: State::Closed,
            failures: 0,
            opened_at: Duration::ZERO,
            trial_out: false,
        }
    }

    pub(crate) fn state(&self) -> State {
        self.state
    }

    /// May a call go at `now`? `None` means E904.
    pub(crate) fn admit(&mut self, now: Duration) -> Option<Pass> {
        match self.state {
            State::Closed => Some(Pass::Ordinary),
            State::Open if now.saturating_sub(self.opened_at) < self.config.retry_after => None,
            State::HalfOpen if self.trial_out => None,
            State::Open | State::HalfOpen => {
                if self.state == State::Open {
                    self.go(State::HalfOpen, now);
                }
                self.trial_out = true;
                Some(Pass::Trial)
            }
        }
    }

    /// Learns, at `now`, how an admitted call ended.
    pub(crate) fn settle(&mut self, pass: Pass, code: Code, now: Duration) {
        if matches!(code, Code::E904 | Code::E905) {
            // The target never saw it. A trial that ends so is handed back.
            if pass == Pass::Trial {
                self.trial_out = false;
            }
            return;
        }
        let failed = counts_as_failure(code);
        match pass {
            Pass::Trial => {
                self.trial_out = false;
                self.failures = 0;
                if failed {
                    self.opened_at = now;
                    self.go(State::Open, now);
                } else {
                    self.go(State::Closed, now);
                }
            }
            // Late answers (the circuit opened meanwhile) teach nothing.
            Pass::Ordinary if self.state != State::Closed => {}
            Pass::Ordinary if !failed => self.failures = 0,
            Pass::Ordinary => {
                self.failures += 1;
                if self.failures >= self.config.failure_threshold {
                    self.failures = 0;
                    self.opened_at = now;
                    self.go(State::Open, now);
                }
            }
        }
    }

    fn go(&mut self, to: State, now: Duration) {
        self.log.record(Transition {
            at: now,
            target: self.target.clone(),
            from: self.state,
            to,
        });
        self.state = to;
    }
}

/// One target's circuit breaker, on its own.
pub struct Breaker {
    clock: Arc<dyn Clock>,
    circuit: Mutex<Circuit>,
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
            clock,
            circuit: Mutex::new(Circuit::new(target.into(), config, log)),
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.circuit().state()
    }

    /// Runs `call` if the circuit lets it through, and learns from its answer.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let Some(pass) = self.circuit().admit(self.clock.now()) else {
            return Code::E904;
        };
        let code = call();
        self.circuit().settle(pass, code, self.clock.now());
        code
    }

    fn circuit(&self) -> std::sync::MutexGuard<'_, Circuit> {
        self.circuit.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
