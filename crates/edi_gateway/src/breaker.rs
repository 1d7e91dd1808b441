//! The circuit breaker of one flow: judge the partner by a window of recent outcomes,
//! stop calling it when too many fail, and test it with probes before trusting it again.
//!
//! | state     | messages                                        | leaves when                                        |
//! |-----------|-------------------------------------------------|----------------------------------------------------|
//! | CLOSED    | pass through; each outcome goes in the window   | `minimum_calls` in the window and the failure share reaches `failure_rate_percent`: OPEN |
//! | OPEN      | rejected at once with `CircuitOpen`             | `open_for` has passed: the next message is the first probe |
//! | HALF_OPEN | `probes` probes in all; the others `CircuitOpen` | a probe fails: OPEN again; every probe succeeded: CLOSED |
//!
//! Read time only through `clock`. Change state only while holding a lock, and never hold
//! that lock while the partner is being called.

use std::sync::Arc;

use gateway_kit::{AlertSink, BreakerSettings, Clock, Flow, Outcome, State, TransitionLog};

/// One flow's circuit breaker. Several threads use it at the same time.
pub struct Breaker {
    // TODO(lab5): what does the breaker need to remember?
    // - the flow, `settings`, `clock`, `log` and `alerts` from `new`;
    // - behind a `std::sync::Mutex`: the state, the window of outcomes (a `Window`), when
    //   the circuit opened, and, in HALF_OPEN, how many probes are out and how many have
    //   succeeded.
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
        // TODO(lab5): keep everything you will need later, starting CLOSED with an empty
        // window of `settings.window` outcomes and `settings.max_age`.
        let _ = (flow, settings, clock, log, alerts);
        todo!("lab 5: build a CLOSED breaker in Breaker::new")
    }

    /// The current state. Reading it must not change it: an OPEN circuit whose wait is
    /// over stays OPEN until the next message arrives.
    pub fn state(&self) -> State {
        // TODO(lab5): report the state.
        todo!("lab 5: report the breaker's state in Breaker::state")
    }

    /// Runs `call` (the delivery to the partner) if the circuit allows it, and learns from
    /// the outcome it returns. Returns `CircuitOpen` at once, without running `call`, while
    /// the circuit is OPEN or while every probe of HALF_OPEN has been handed out.
    ///
    /// Every state change is written to the log as a `gateway_kit::Transition` with the
    /// clock's time, while the lock is held. Opening from CLOSED sends `Alert::Opened`;
    /// closing sends `Alert::Closed`.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        // TODO(lab5): three steps, as in lab 4.
        // 1. Under the lock: may this message go? (CLOSED: yes. OPEN: only once `open_for`
        //    has passed, and then it is the first probe of HALF_OPEN. HALF_OPEN: only while
        //    fewer than `probes` probes have been handed out.) If not: Outcome::CircuitOpen.
        // 2. Without the lock: run `call()`.
        // 3. Under the lock again: learn from the outcome (see `observe`). In CLOSED it
        //    goes in the window, and the window decides whether to open. A probe's failure
        //    reopens; the last probe's success closes. An answer to a message admitted
        //    before the state changed is old news.
        let _ = call;
        todo!("lab 5: admit or reject the message in Breaker::call")
    }
}
