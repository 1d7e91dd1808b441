//! The window of recent outcomes, with running counts.

use std::collections::VecDeque;
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

/// The latest outcomes of one flow, oldest first, with running counts.
pub struct Window {
    size: usize,
    max_age: Option<Duration>,
    entries: VecDeque<(Duration, bool)>,
    failures: usize,
}

impl Window {
    /// An empty window of at most `size` outcomes, each younger than `max_age` if given.
    pub fn new(size: usize, max_age: Option<Duration>) -> Self {
        Self {
            size,
            max_age,
            entries: VecDeque::new(),
            failures: 0,
        }
    }

    fn stale(&self, at: Duration, now: Duration) -> bool {
        match self.max_age {
            Some(max_age) => at + max_age <= now,
            None => false,
        }
    }

    fn drop_oldest(&mut self) {
        if let Some((_, failed)) = self.entries.pop_front() {
            self.failures -= usize::from(failed);
        }
    }

    /// Adds an outcome recorded at `at`.
    pub fn record(&mut self, at: Duration, observation: Observation) {
        while self.entries.front().is_some_and(|&(t, _)| self.stale(t, at)) {
            self.drop_oldest();
        }
        if self.entries.len() == self.size {
            self.drop_oldest();
        }
        let failed = observation == Observation::Failure;
        self.failures += usize::from(failed);
        self.entries.push_back((at, failed));
    }

    /// The outcomes that still count at `now`.
    pub fn tally(&self, now: Duration) -> Tally {
        let mut tally = Tally {
            failures: self.failures,
            sample: self.entries.len(),
        };
        for &(at, failed) in &self.entries {
            if !self.stale(at, now) {
                break;
            }
            tally.sample -= 1;
            tally.failures -= usize::from(failed);
        }
        tally
    }

    /// Forgets every outcome.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.failures = 0;
    }
}
