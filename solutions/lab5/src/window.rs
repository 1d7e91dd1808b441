//! The window of recent outcomes a CLOSED breaker judges the partner by.
//!
//! It keeps the latest `size` outcomes: the one before them falls out as a new one comes
//! in. With a `max_age`, an outcome also falls out once it is that old, so a slow trickle
//! of failures spread over hours never adds up to an open circuit.

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

/// The latest outcomes of a flow, each with the time it was recorded, oldest first.
#[derive(Debug)]
pub struct Window {
    size: usize,
    max_age: Option<Duration>,
    outcomes: VecDeque<(Duration, Observation)>,
}

impl Window {
    /// An empty window that keeps at most `size` outcomes, each for less than `max_age`
    /// when one is given.
    pub fn new(size: usize, max_age: Option<Duration>) -> Self {
        Self {
            size,
            max_age,
            outcomes: VecDeque::with_capacity(size),
        }
    }

    /// Adds an outcome recorded at `at`, pushing out whatever no longer belongs.
    pub fn record(&mut self, at: Duration, observation: Observation) {
        let max_age = self.max_age;
        self.outcomes
            .retain(|&(then, _)| is_fresh(max_age, then, at));
        self.outcomes.push_back((at, observation));
        while self.outcomes.len() > self.size {
            self.outcomes.pop_front();
        }
    }

    /// The outcomes that still count at `now`.
    pub fn tally(&self, now: Duration) -> Tally {
        self.outcomes
            .iter()
            .filter(|&&(then, _)| is_fresh(self.max_age, then, now))
            .fold(Tally::default(), |tally, &(_, observation)| Tally {
                failures: tally.failures + usize::from(observation == Observation::Failure),
                sample: tally.sample + 1,
            })
    }

    /// Forgets every outcome.
    pub fn clear(&mut self) {
        self.outcomes.clear();
    }
}

/// An outcome recorded at `then` still counts at `now` while it is younger than `max_age`:
/// at exactly `max_age` old it is gone.
fn is_fresh(max_age: Option<Duration>, then: Duration, now: Duration) -> bool {
    max_age.is_none_or(|max_age| now.saturating_sub(then) < max_age)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Observation::{Failure, Success};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn keeps_only_the_latest_outcomes() {
        let mut w = Window::new(3, None);
        for observation in [Failure, Failure, Success, Success] {
            w.record(ms(0), observation);
        }
        assert_eq!(
            w.tally(ms(0)),
            Tally {
                failures: 1,
                sample: 3
            }
        );
        w.clear();
        assert_eq!(w.tally(ms(0)), Tally::default());
    }

    #[test]
    fn an_outcome_leaves_when_it_reaches_max_age() {
        let mut w = Window::new(10, Some(ms(1000)));
        w.record(ms(0), Failure);
        w.record(ms(500), Failure);
        assert_eq!(w.tally(ms(999)).sample, 2);
        assert_eq!(w.tally(ms(1000)).sample, 1);
        w.record(ms(1500), Success);
        assert_eq!(
            w.tally(ms(1500)),
            Tally {
                failures: 0,
                sample: 1
            }
        );
    }
}
