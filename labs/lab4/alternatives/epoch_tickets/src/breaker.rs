//! A circuit breaker that numbers its periods. Every change of state starts a new
//! period, and every admitted call carries the number of the period it was let in. An
//! answer from an earlier period is late and is ignored, whatever state the breaker is in
//! now. The open circuit keeps the deadline of its wait rather than its opening time, and
//! an admitted call is a guard that settles even if the call unwinds.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
pub fn counts_as_failure(code: Code) -> bool {
    code == Code::E500 || code == Code::E901 || code == Code::E902
}

/// One target's circuit breaker.
pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    book: Mutex<Book>,
}

struct Book {
    state: State,
    /// Moves on at every change of state.
    period: u64,
    /// Failures in a row, while CLOSED.
    failures: u32,
    /// While OPEN: the first moment a request may be the trial.
    trial_from: Duration,
    /// While HALF_OPEN: the trial has been let through and has not answered.
    trial_out: bool,
}

/// An admitted call, until its answer is learnt.
struct Admitted<'a> {
    breaker: &'a Breaker,
    period: u64,
    trial: bool,
    /// The call's answer; still `None` if the call unwound.
    code: Option<Code>,
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        // A call that unwound never gave an answer: take it as a failure of the target.
        let code = self.code.unwrap_or(Code::E500);
        self.breaker.learn(self.period, self.trial, code);
    }
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
            book: Mutex::new(Book {
                state: State::Closed,
                period: 0,
                failures: 0,
                trial_from: Duration::ZERO,
                trial_out: false,
            }),
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.book().state
    }

    /// Runs `call` if the circuit lets it through, and learns from its answer.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let Some(mut admitted) = self.admit() else {
            return Code::E904;
        };
        let code = call();
        admitted.code = Some(code);
        code
    }

    fn admit(&self) -> Option<Admitted<'_>> {
        let mut book = self.book();
        let trial = match book.state {
            State::Closed => false,
            State::Open if self.clock.now() < book.trial_from => return None,
            State::Open => {
                self.change(&mut book, State::HalfOpen);
                book.trial_out = true;
                true
            }
            State::HalfOpen if book.trial_out => return None,
            State::HalfOpen => {
                book.trial_out = true;
                true
            }
        };
        Some(Admitted {
            breaker: self,
            period: book.period,
            trial,
            code: None,
        })
    }

    fn learn(&self, period: u64, trial: bool, code: Code) {
        let mut book = self.book();
        if period != book.period {
            return;
        }
        if matches!(code, Code::E904 | Code::E905) {
            if trial {
                book.trial_out = false;
            }
            return;
        }
        let failed = counts_as_failure(code);
        if trial {
            book.trial_out = false;
            if failed {
                self.open(&mut book);
            } else {
                self.change(&mut book, State::Closed);
            }
        } else if !failed {
            book.failures = 0;
        } else {
            book.failures += 1;
            if book.failures >= self.config.failure_threshold {
                self.open(&mut book);
            }
        }
    }

    fn open(&self, book: &mut Book) {
        let now = self.clock.now();
        book.trial_from = now.checked_add(self.config.retry_after).unwrap_or(Duration::MAX);
        self.change(book, State::Open);
    }

    /// Starts a new period in state `to`, and records the change.
    fn change(&self, book: &mut Book, to: State) {
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.target.clone(),
            from: book.state,
            to,
        });
        book.state = to;
        book.period += 1;
        book.failures = 0;
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
