//! The circuit breaker: stop calling a target that is plainly dead.
//!
//! | state     | calls                                   | leaves when                                   |
//! |-----------|-----------------------------------------|-----------------------------------------------|
//! | CLOSED    | pass through                            | counted failures in a row reach the threshold |
//! | OPEN      | rejected at once with E904              | `retry_after` has passed: next call is a trial |
//! | HALF_OPEN | exactly one trial; the others get E904  | trial succeeds: CLOSED; fails: OPEN again      |
//!
//! Read time only through `clock`. Change state only while holding a lock, and never
//! hold that lock while the target is being called.

use std::sync::Arc;

use relay_kit::{BreakerConfig, Clock, Code, State, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
///
/// Decide which codes are system errors (the target is unwell) and which are answers
/// (the target is fine, even if the customer is not). `E904` and `E905` come from the
/// relay itself: the target never saw those requests.
pub fn counts_as_failure(code: Code) -> bool {
    // TODO(lab4): return true for the system errors only. Is B201 one of them?
    todo!("lab 4: decide which codes count as failures (got {code})")
}

/// One target's circuit breaker. Several threads use it at the same time.
pub struct Breaker {
    // TODO(lab4): what does the breaker need to remember?
    // - the target's name, `config`, `clock` and `log` from `new`;
    // - behind a `std::sync::Mutex`: the state, the failures counted in a row, when the
    //   circuit opened, and whether the half-open trial is out right now.
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
        // TODO(lab4): keep everything you will need later, starting CLOSED.
        let _ = (target.into(), config, clock, log);
        todo!("lab 4: build a CLOSED breaker in Breaker::new")
    }

    /// The current state. Reading it must not change it: an OPEN circuit whose wait is
    /// over stays OPEN until the next request arrives.
    pub fn state(&self) -> State {
        // TODO(lab4): report the state.
        todo!("lab 4: report the breaker's state in Breaker::state")
    }

    /// Runs `call` (the call to the target) if the circuit allows it, and learns from the
    /// code it returns. Returns E904 at once, without running `call`, while the circuit
    /// is OPEN or while another thread has the half-open trial.
    ///
    /// Every state change is written to the log as a `relay_kit::Transition` with the
    /// clock's time, while the lock is held.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        // TODO(lab4): three steps.
        // 1. Under the lock: may this call go? (CLOSED: yes. OPEN: only once `retry_after`
        //    has passed since it opened, and then it becomes the trial of HALF_OPEN.
        //    HALF_OPEN: only if no trial is out.) If not, return Code::E904.
        // 2. Without the lock: run `call()`.
        // 3. Under the lock again: learn from the code. E904/E905 never reached the
        //    target, so they count neither way.
        let _ = call;
        todo!("lab 4: admit or reject the call in Breaker::call")
    }
}
