//! A circuit breaker behind a `RwLock`: state reads and the common verdicts (a closed
//! circuit lets the call through; an open one whose wait is not over, or a half-open one
//! whose trial is out, rejects it) need only the shared read lock. Anything that changes
//! the breaker takes the write lock and looks again, because the state may have changed
//! between the two locks.

use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
pub fn counts_as_failure(code: Code) -> bool {
    !matches!(code, Code::Ok | Code::B201 | Code::E904 | Code::E905)
}

/// One target's circuit breaker.
pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    shared: RwLock<Shared>,
}

struct Shared {
    state: State,
    failures: u32,
    open_since: Duration,
    trial_out: bool,
}

/// What the read lock alone can decide.
enum Quick {
    Pass,
    Reject,
    Unsure,
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
            shared: RwLock::new(Shared {
                state: State::Closed,
                failures: 0,
                open_since: Duration::ZERO,
                trial_out: false,
            }),
        }
    }

    /// The current state; a read lock is enough.
    pub fn state(&self) -> State {
        self.read().state
    }

    /// Runs `call` if the circuit lets it through, and learns from its answer.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let quick = self.quick_verdict();
        let trial = match quick {
            Quick::Reject => return Code::E904,
            Quick::Pass => false,
            Quick::Unsure => match self.decide() {
                Some(trial) => trial,
                None => return Code::E904,
            },
        };
        let code = call();
        if matches!(code, Code::E904 | Code::E905) {
            if trial {
                // Never reached the target: the next request may be the trial.
                self.write().trial_out = false;
            }
            return code;
        }
        if trial {
            self.end_trial(counts_as_failure(code));
        } else {
            self.learn(counts_as_failure(code));
        }
        code
    }

    fn quick_verdict(&self) -> Quick {
        let shared = self.read();
        match shared.state {
            State::Closed => Quick::Pass,
            State::HalfOpen if shared.trial_out => Quick::Reject,
            State::Open if !self.wait_is_over(&shared) => Quick::Reject,
            _ => Quick::Unsure,
        }
    }

    /// Under the write lock: `Some(true)` for the trial, `Some(false)` for an ordinary
    /// call, `None` to reject.
    fn decide(&self) -> Option<bool> {
        let mut shared = self.write();
        match shared.state {
            State::Closed => Some(false),
            State::Open if !self.wait_is_over(&shared) => None,
            State::Open => {
                self.change(&mut shared, State::HalfOpen);
                shared.trial_out = true;
                Some(true)
            }
            State::HalfOpen if shared.trial_out => None,
            State::HalfOpen => {
                shared.trial_out = true;
                Some(true)
            }
        }
    }

    fn wait_is_over(&self, shared: &Shared) -> bool {
        self.clock.now().saturating_sub(shared.open_since) >= self.config.retry_after
    }

    fn end_trial(&self, failed: bool) {
        let mut shared = self.write();
        shared.trial_out = false;
        shared.failures = 0;
        if failed {
            shared.open_since = self.clock.now();
            self.change(&mut shared, State::Open);
        } else {
            self.change(&mut shared, State::Closed);
        }
    }

    /// An ordinary call's answer: it counts while CLOSED, and is a late answer otherwise.
    fn learn(&self, failed: bool) {
        if !failed {
            let shared = self.read();
            if shared.state != State::Closed || shared.failures == 0 {
                return;
            }
        }
        let mut shared = self.write();
        if shared.state != State::Closed {
            return;
        }
        if !failed {
            shared.failures = 0;
            return;
        }
        shared.failures += 1;
        if shared.failures >= self.config.failure_threshold {
            shared.failures = 0;
            shared.open_since = self.clock.now();
            self.change(&mut shared, State::Open);
        }
    }

    /// Changes the state and records it, under the write lock.
    fn change(&self, shared: &mut Shared, to: State) {
        let from = std::mem::replace(&mut shared.state, to);
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.target.clone(),
            from,
            to,
        });
    }

    fn read(&self) -> RwLockReadGuard<'_, Shared> {
        self.shared.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Shared> {
        self.shared.write().unwrap_or_else(PoisonError::into_inner)
    }
}
