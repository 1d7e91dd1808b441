//! A breaker on atomics: requests decide with loads and compare-and-swap; only a state
//! change takes a lock, so that it and its record are one step.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

pub fn counts_as_failure(code: Code) -> bool {
    matches!(code, Code::E500 | Code::E901 | Code::E902)
}

const CLOSED: u8 = 0;
const OPEN: u8 = 1;
const HALF_OPEN: u8 = 2;

pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    state: AtomicU8,
    failures: AtomicU32,
    opened_at_ns: AtomicU64,
    trial_out: AtomicBool,
    changing: Mutex<()>,
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
            state: AtomicU8::new(CLOSED),
            failures: AtomicU32::new(0),
            opened_at_ns: AtomicU64::new(0),
            trial_out: AtomicBool::new(false),
            changing: Mutex::new(()),
        }
    }

    pub fn state(&self) -> State {
        name(self.state.load(Ordering::SeqCst))
    }

    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let trial = match self.state.load(Ordering::SeqCst) {
            CLOSED => false,
            OPEN => {
                let opened = Duration::from_nanos(self.opened_at_ns.load(Ordering::SeqCst));
                if self.clock.now().saturating_sub(opened) < self.config.retry_after {
                    return Code::E904;
                }
                // The one request that moves OPEN to HALF_OPEN is the trial.
                if !self.change(OPEN, HALF_OPEN, || self.trial_out.store(true, Ordering::SeqCst)) {
                    return Code::E904;
                }
                true
            }
            _ => {
                if self
                    .trial_out
                    .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
                {
                    return Code::E904;
                }
                if self.state.load(Ordering::SeqCst) != HALF_OPEN {
                    self.trial_out.store(false, Ordering::SeqCst);
                    return Code::E904;
                }
                true
            }
        };
        let code = call();
        let reached = !matches!(code, Code::E904 | Code::E905);
        if trial {
            if reached && counts_as_failure(code) {
                self.change(HALF_OPEN, OPEN, || self.opened_now());
            } else if reached {
                self.change(HALF_OPEN, CLOSED, || self.failures.store(0, Ordering::SeqCst));
            }
            self.trial_out.store(false, Ordering::SeqCst);
        } else if reached && self.state.load(Ordering::SeqCst) == CLOSED {
            if counts_as_failure(code) {
                let failures = self.failures.fetch_add(1, Ordering::SeqCst) + 1;
                if failures >= self.config.failure_threshold {
                    self.change(CLOSED, OPEN, || self.opened_now());
                }
            } else {
                self.failures.store(0, Ordering::SeqCst);
            }
        }
        code
    }

    fn opened_now(&self) {
        let now = u64::try_from(self.clock.now().as_nanos()).unwrap_or(u64::MAX);
        self.opened_at_ns.store(now, Ordering::SeqCst);
        self.failures.store(0, Ordering::SeqCst);
    }

    /// Moves `from` to `to` if the state is still `from`, running `also` first, and writes the
    /// record in the same locked step. Returns whether this call made the change.
    fn change(&self, from: u8, to: u8, also: impl FnOnce()) -> bool {
        let _one_at_a_time = self.changing.lock().unwrap_or_else(PoisonError::into_inner);
        if self.state.load(Ordering::SeqCst) != from {
            return false;
        }
        also();
        self.state.store(to, Ordering::SeqCst);
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.target.clone(),
            from: name(from),
            to: name(to),
        });
        true
    }
}

fn name(state: u8) -> State {
    match state {
        CLOSED => State::Closed,
        OPEN => State::Open,
        _ => State::HalfOpen,
    }
}
