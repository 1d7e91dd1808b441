//! The breaker in front of one dependency: lab 5's windowed breaker, in front of the
//! shipping vendor and the catalog.
//!
//! | state     | attempts                                         | leaves when                                        |
//! |-----------|--------------------------------------------------|----------------------------------------------------|
//! | CLOSED    | pass; what each tells (see `observe`) goes in the window of the latest `window` | `minimum_calls` in the window and the failure share reaches `failure_rate_percent`: OPEN |
//! | OPEN      | `CircuitOpen` at once                             | `open_for` has passed: the next attempt is the first probe |
//! | HALF_OPEN | `probes` probes in all; the others `CircuitOpen`  | a probe fails: OPEN again; every probe succeeded: CLOSED, empty window |
//!
//! Your lab 5 breaker is the start: no `max_age`, no alerts here. Read time only through
//! `clock`; change state only while holding the lock, and never hold it while the attempt
//! runs: an attempt waits in the queue and for the vendor's answer.

use std::sync::Arc;

use shipping_kit::{BreakerSettings, Clock, State, TransitionLog};

use crate::Attempt;

/// The breaker of one dependency. Several threads use it at the same time.
pub struct Breaker {
    // TODO(lab6): what does the breaker need to remember? The dependency's name,
    // `settings`, `clock` and `log` from `new`; behind a `std::sync::Mutex`: the state, the
    // window of the latest outcomes, when the circuit opened, the probe counters, and a
    // number that changes with every change of state.
}

impl Breaker {
    /// A CLOSED breaker for `dependency` that reads time from `clock` and writes every
    /// change of state to `log`.
    pub fn new(
        dependency: &str,
        settings: BreakerSettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        // TODO(lab6): keep everything you will need later, starting CLOSED.
        let _ = (dependency, settings, clock, log);
        todo!("lab 6: build a CLOSED breaker in Breaker::new")
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        // TODO(lab6): report the state.
        todo!("lab 6: report the breaker's state in Breaker::state")
    }

    /// Runs `attempt` if the circuit lets it through and learns from how it ended;
    /// `CircuitOpen` at once otherwise.
    ///
    /// Every change of state is written to the log as a `shipping_kit::Transition` (its
    /// `target` is the dependency's name) with the clock's time, while the lock is held.
    pub fn call(&self, attempt: impl FnOnce() -> Attempt) -> Attempt {
        // TODO(lab6): as in lab 5: under the lock, admit or reject (a probe in HALF_OPEN);
        // without the lock, run `attempt()`; under the lock again, learn from
        // `observe(ended)`. An attempt the shop turned away itself tells nothing, and a
        // probe turned away that way is handed back. An answer from an older state is old
        // news.
        let _ = attempt;
        todo!("lab 6: admit or reject the attempt in Breaker::call")
    }
}
