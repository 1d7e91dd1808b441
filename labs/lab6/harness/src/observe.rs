//! What the harness records after every action (each dependency's counters, each shop
//! instance's view of each dependency, and the transition records): the world's answers
//! to [`Shops`], which `crate::observing` puts together as the race harness's are.

use std::panic::{AssertUnwindSafe, catch_unwind};

use shipping_kit::Waiting;

use crate::observing::{self, Shops};
use crate::run::World;
use crate::shop::{metric_values, records};
use crate::wire::{DependencySnapshot, Observation};

/// The observation after an action. A panic in the code under test while it is asked is
/// caught and noted.
pub fn observe(world: &World) -> Observation {
    observing::observe(world, |transitions| {
        let mut seen = world.seen.borrow_mut();
        let mut journal = world.journal.borrow_mut();
        crate::wire::journal(&mut seen, &mut journal, transitions)
    })
}

impl Shops for World {
    fn names(&self) -> Vec<&str> {
        self.targets.iter().map(|(name, _)| name.as_str()).collect()
    }

    fn instances(&self) -> usize {
        self.shops.len()
    }

    fn dependency(&self, name: &str) -> DependencySnapshot {
        let stats = self
            .dependencies
            .get(name)
            .map(|d| d.stats())
            .unwrap_or_default();
        let counts = (stats.calls, stats.in_flight, stats.peak_in_flight);
        observing::counters(name, counts, stats.answered)
    }

    fn state(&self, instance: usize, name: &str) -> Option<String> {
        let shop = &self.shops[instance];
        asked(self, || shop.circuit_state(name))
            .flatten()
            .map(|s| s.as_str().to_owned())
    }

    fn metrics(&self, instance: usize, name: &str) -> Option<[u64; 5]> {
        let shop = &self.shops[instance];
        let metrics = asked(self, || shop.metrics(name)).flatten();
        metrics.as_ref().map(metric_values)
    }

    fn transitions(&self, instance: usize) -> Option<Vec<String>> {
        let shop = &self.shops[instance];
        asked(self, || shop.transitions()).map(|list| records(&list))
    }

    fn waiting(&self, instance: usize, name: &str) -> Vec<&'static str> {
        self.sent
            .iter()
            .filter(|(_, i, target)| *i == instance && target == name)
            .filter_map(|(id, _, _)| World::waiting(self, *id).map(Waiting::as_str))
            .collect()
    }
}

/// Asks the code under test something; `None` (and the run marked as panicked) if it
/// panicked.
fn asked<T>(world: &World, ask: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(ask)) {
        Ok(answer) => Some(answer),
        Err(_) => {
            world.mark_panicked();
            None
        }
    }
}
