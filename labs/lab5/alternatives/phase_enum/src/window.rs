//! The window of recent outcomes, as a ring of slots.

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

/// The latest outcomes of one flow: a ring whose next slot overwrites the oldest.
pub struct Window {
    max_age: Option<Duration>,
    slots: Vec<Option<(Duration, Observation)>>,
    next: usize,
}

impl Window {
    /// An empty window that keeps at most `size` outcomes, each for less than `max_age`
    /// when one is given.
    pub fn new(size: usize, max_age: Option<Duration>) -> Self {
        Self {
            max_age,
            slots: vec![None; size.max(1)],
            next: 0,
        }
    }

    /// Adds an outcome recorded at `at`, in place of the oldest when the ring is full.
    pub fn record(&mut self, at: Duration, observation: Observation) {
        self.slots[self.next] = Some((at, observation));
        self.next = (self.next + 1) % self.slots.len();
    }

    /// The outcomes that still count at `now`.
    pub fn tally(&self, now: Duration) -> Tally {
        let mut tally = Tally::default();
        for &(at, observation) in self.slots.iter().flatten() {
            let age = now.checked_sub(at).unwrap_or_default();
            if self.max_age.is_some_and(|max_age| age >= max_age) {
                continue;
            }
            tally.sample += 1;
            if observation == Observation::Failure {
                tally.failures += 1;
            }
        }
        tally
    }

    /// Forgets every outcome.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
        self.next = 0;
    }
}
