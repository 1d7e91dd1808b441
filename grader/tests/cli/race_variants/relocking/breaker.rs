//! A circuit breaker: stop calling a target that is plainly dead.
//!
//! CLOSED lets calls through and counts consecutive failures. Reaching the threshold
//! opens the circuit. OPEN rejects every call at once with E904, without touching the
//! target. Once `retry_after` has passed, the next call becomes the single trial of
//! HALF_OPEN: its success closes the circuit, its failure opens it again and restarts
//! the wait.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
///
/// Only system errors count: the target could not process (E500), gave no answer in time
/// (E901), or could not be reached (E902). B201 is a healthy answer about the customer's
/// account, and E904/E905 are the relay's own rejections: the target never saw them.
pub fn counts_as_failure(code: Code) -> bool {
    matches!(code, Code::E500 | Code::E901 | Code::E902)
}

/// One target's circuit breaker. Share it between threads with `&Breaker` or `Arc`.
pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    inner: Mutex<Inner>,
}

/// The part that changes, always read and written under the lock.
struct Inner {
    state: State,
    /// Counted failures in a row while CLOSED.
    consecutive_failures: u32,
    /// When the circuit last opened; the retry wait is measured from here.
    opened_at: Duration,
    /// HALF_OPEN only: the trial call has been handed out and has not reported back.
    trial_in_flight: bool,
}

/// What `admit` decided for one call: an ordinary call, or the half-open trial.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ticket {
    Normal,
    Trial,
}

impl Breaker {
    /// A CLOSED breaker for `target` that reads time from `clock` and writes every state
    /// change to `log`.
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
            inner: Mutex::new(Inner {
                state: State::Closed,
                consecutive_failures: 0,
                opened_at: Duration::ZERO,
                trial_in_flight: false,
            }),
        }
    }

    /// The current state. Reading it changes nothing: an OPEN circuit whose wait is over
    /// stays OPEN until a request arrives.
    pub fn state(&self) -> State {
        self.lock().state
    }

    /// Runs `call` if the circuit allows it, and learns from the code it returns.
    ///
    /// Returns E904 at once, without running `call`, while the circuit is OPEN or while
    /// another thread holds the half-open trial. The lock is never held while `call`
    /// runs, so a slow target never blocks other threads inside the breaker.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let Some(ticket) = self.admit() else {
            return Code::E904;
        };
        let code = call();
        self.settle(ticket, code);
        code
    }

    /// Decides, under the lock, whether one call may go to the target.
    fn admit(&self) -> Option<Ticket> {
        let mut inner = self.lock();
        match inner.state {
            State::Closed => Some(Ticket::Normal),
            State::Open => {
                let waited = self.clock.now().saturating_sub(inner.opened_at);
                if waited < self.config.retry_after {
                    return None;
                }
                // Wrong: state() takes the lock this call already holds.
                if self.state() == State::Open {
                    self.move_to(&mut inner, State::HalfOpen);
                }
                inner.trial_in_flight = true;
                Some(Ticket::Trial)
            }
            State::HalfOpen if inner.trial_in_flight => None,
            State::HalfOpen => {
                inner.trial_in_flight = true;
                Some(Ticket::Trial)
            }
        }
    }

    /// Records, under the lock, how an admitted call ended.
    fn settle(&self, ticket: Ticket, code: Code) {
        let mut inner = self.lock();
        // E904/E905 mean the call never reached the target: they tell us nothing about
        // its health. A trial that ends this way is handed back for the next request.
        let reached_target = !matches!(code, Code::E904 | Code::E905);
        match ticket {
            Ticket::Trial => {
                inner.trial_in_flight = false;
                if !reached_target {
                    return;
                }
                if counts_as_failure(code) {
                    self.open(&mut inner);
                } else {
                    inner.consecutive_failures = 0;
                    self.move_to(&mut inner, State::Closed);
                }
            }
            Ticket::Normal => {
                // A call admitted while CLOSED may finish after the circuit opened. Its
                // answer is old news: the trial decides what happens next.
                if inner.state != State::Closed || !reached_target {
                    return;
                }
                if counts_as_failure(code) {
                    inner.consecutive_failures += 1;
                    if inner.consecutive_failures >= self.config.failure_threshold {
                        self.open(&mut inner);
                    }
                } else {
                    inner.consecutive_failures = 0;
                }
            }
        }
    }

    /// Opens the circuit and starts the retry wait from now.
    fn open(&self, inner: &mut Inner) {
        inner.opened_at = self.clock.now();
        inner.consecutive_failures = 0;
        self.move_to(inner, State::Open);
    }

    /// Changes state and writes the transition record, while the caller holds the lock,
    /// so records come out in the order the changes happened.
    fn move_to(&self, inner: &mut Inner, to: State) {
        let from = inner.state;
        inner.state = to;
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.target.clone(),
            from,
            to,
        });
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The lock is never held across a call into other code, so a poisoned lock can
        // only come from a bug in this file; the data is still consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use relay_kit::FakeClock;

    fn breaker(threshold: u32, retry_ms: u64) -> (Breaker, FakeClock, TransitionLog) {
        let clock = FakeClock::new();
        let log = TransitionLog::new();
        let config = BreakerConfig {
            failure_threshold: threshold,
            retry_after: Duration::from_millis(retry_ms),
        };
        let b = Breaker::new("core_banking", config, Arc::new(clock.clone()), log.clone());
        (b, clock, log)
    }

    #[test]
    fn opens_when_the_count_reaches_the_threshold() {
        let (b, _, _) = breaker(2, 1000);
        assert_eq!(b.call(|| Code::E500), Code::E500);
        assert_eq!(b.state(), State::Closed);
        assert_eq!(b.call(|| Code::E901), Code::E901);
        assert_eq!(b.state(), State::Open);
        assert_eq!(
            b.call(|| unreachable!("open circuits do not call")),
            Code::E904
        );
    }

    #[test]
    fn a_failed_trial_restarts_the_wait() {
        let (b, clock, log) = breaker(1, 1000);
        b.call(|| Code::E902);
        clock.advance(Duration::from_millis(1000));
        assert_eq!(b.call(|| Code::E500), Code::E500);
        clock.advance(Duration::from_millis(999));
        assert_eq!(b.call(|| Code::Ok), Code::E904);
        clock.advance(Duration::from_millis(1));
        assert_eq!(b.call(|| Code::B201), Code::B201);
        assert_eq!(b.state(), State::Closed);
        let lines: Vec<String> = log.snapshot().iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "00:00:00.000 core_banking CLOSED -> OPEN",
                "00:00:01.000 core_banking OPEN -> HALF_OPEN",
                "00:00:01.000 core_banking HALF_OPEN -> OPEN",
                "00:00:02.000 core_banking OPEN -> HALF_OPEN",
                "00:00:02.000 core_banking HALF_OPEN -> CLOSED",
            ]
        );
    }

    #[test]
    fn a_trial_that_never_reached_the_target_is_handed_back() {
        let (b, clock, _) = breaker(1, 10);
        b.call(|| Code::E500);
        clock.advance(Duration::from_millis(10));
        assert_eq!(b.call(|| Code::E905), Code::E905);
        assert_eq!(b.state(), State::HalfOpen);
        assert_eq!(b.call(|| Code::Ok), Code::Ok);
        assert_eq!(b.state(), State::Closed);
    }
}
