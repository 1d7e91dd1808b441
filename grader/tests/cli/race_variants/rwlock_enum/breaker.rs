//! A breaker whose state is an enum carrying what each state needs, behind an RwLock:
//! `state()` only reads.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

pub fn counts_as_failure(code: Code) -> bool {
    matches!(code, Code::E500 | Code::E901 | Code::E902)
}

#[derive(Clone, Copy)]
enum Inner {
    Closed { failures: u32 },
    Open { since: Duration },
    HalfOpen { trial_out: bool },
}

impl Inner {
    fn name(self) -> State {
        match self {
            Inner::Closed { .. } => State::Closed,
            Inner::Open { .. } => State::Open,
            Inner::HalfOpen { .. } => State::HalfOpen,
        }
    }
}

pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    inner: RwLock<Inner>,
}

impl Breaker {
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
            inner: RwLock::new(Inner::Closed { failures: 0 }),
        }
    }

    pub fn state(&self) -> State {
        self.inner.read().unwrap_or_else(PoisonError::into_inner).name()
    }

    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let trial = {
            let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
            match *inner {
                Inner::Closed { .. } => false,
                Inner::Open { since } => {
                    if self.clock.now().saturating_sub(since) < self.config.retry_after {
                        return Code::E904;
                    }
                    self.go(&mut inner, Inner::HalfOpen { trial_out: true });
                    true
                }
                Inner::HalfOpen { trial_out: true } => return Code::E904,
                Inner::HalfOpen { trial_out: false } => {
                    *inner = Inner::HalfOpen { trial_out: true };
                    true
                }
            }
        };
        let code = call();
        let reached = !matches!(code, Code::E904 | Code::E905);
        let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        match (*inner, trial) {
            (Inner::HalfOpen { .. }, true) if !reached => {
                *inner = Inner::HalfOpen { trial_out: false };
            }
            (Inner::HalfOpen { .. }, true) if counts_as_failure(code) => {
                let since = self.clock.now();
                self.go(&mut inner, Inner::Open { since });
            }
            (Inner::HalfOpen { .. }, true) => self.go(&mut inner, Inner::Closed { failures: 0 }),
            (Inner::Closed { failures }, false) if reached && counts_as_failure(code) => {
                if failures + 1 >= self.config.failure_threshold {
                    let since = self.clock.now();
                    self.go(&mut inner, Inner::Open { since });
                } else {
                    *inner = Inner::Closed {
                        failures: failures + 1,
                    };
                }
            }
            (Inner::Closed { .. }, false) if reached => *inner = Inner::Closed { failures: 0 },
            _ => {}
        }
        code
    }

    fn go(&self, inner: &mut Inner, to: Inner) {
        let from = inner.name();
        *inner = to;
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.target.clone(),
            from,
            to: to.name(),
        });
    }
}
