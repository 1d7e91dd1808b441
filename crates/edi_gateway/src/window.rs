//! The window of recent outcomes a CLOSED breaker judges the partner by.
//!
//! It keeps the latest `size` outcomes; with a `max_age`, an outcome also stops counting
//! once it is that old.

use std::time::Duration;

use crate::Observation;

/// How many outcomes the window holds, and how many of them are failures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Failures among the outcomes.
    pub failures: usize,
    /// Outcomes, failures included.
    pub sample: usize,
}

/// The latest outcomes of one flow. The breaker keeps it behind its lock.
pub struct Window {
    // TODO(lab5): what does the window need? `size` and `max_age` from `new`, and the
    // outcomes themselves, oldest first, each with the time it was recorded.
}

impl Window {
    /// An empty window that keeps at most `size` outcomes, each for less than `max_age`
    /// when one is given.
    pub fn new(size: usize, max_age: Option<Duration>) -> Self {
        // TODO(lab5): keep the settings; start empty.
        let _ = (size, max_age);
        todo!("lab 5: build an empty window in Window::new")
    }

    /// Adds an outcome recorded at `at`, pushing out whatever no longer belongs.
    pub fn record(&mut self, at: Duration, observation: Observation) {
        // TODO(lab5): add it; then the window holds at most `size` outcomes: which one
        // leaves when it is full?
        let _ = (at, observation);
        todo!("lab 5: add an outcome in Window::record")
    }

    /// The outcomes that still count at `now`: with a `max_age`, only those younger than
    /// it (an outcome exactly `max_age` old no longer counts).
    pub fn tally(&self, now: Duration) -> Tally {
        // TODO(lab5): count the outcomes that count, and the failures among them.
        let _ = now;
        todo!("lab 5: count failures and outcomes in Window::tally")
    }

    /// Forgets every outcome.
    pub fn clear(&mut self) {
        // TODO(lab5): empty the window (the breaker does this when the circuit closes).
        todo!("lab 5: empty the window in Window::clear")
    }
}
