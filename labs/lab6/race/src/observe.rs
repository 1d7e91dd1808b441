//! What the race harness records after every action, as the normal harness does: each
//! dependency's counters, each instance's view of each dependency, and the records.

use std::panic::{AssertUnwindSafe, catch_unwind};

use std::collections::BTreeMap;

use grader_protocol::{RequestOutcome, StepRecord};
use lab6_harness::observing::{self, Shops};
use lab6_harness::wire::{self, DependencySnapshot, Observation};
use race_std::trace;
use shipping_kit::Waiting;

use crate::shop::{metric_values, records};
use crate::world::{World, lane};

impl World {
    /// What an action produced, and every dependency and instance after it. A panic of the
    /// code under test while it is asked is caught: the request that panicked already says
    /// so, and an answer that cannot be had is left out.
    pub(crate) fn record(
        &mut self,
        step: usize,
        at_ms: u64,
        ids: &[u64],
    ) -> StepRecord<Observation> {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        let waiting = self.waiting_now();
        let requests = ids
            .iter()
            .map(|&id| RequestOutcome {
                id,
                outcome: match self.requests.ended(id) {
                    Some(_) => self.requests.outcome(id, String::clone),
                    None => waiting
                        .get(&id)
                        .map_or("running", |why| why.as_str())
                        .to_owned(),
                },
            })
            .collect();
        // The journal is written while the world is asked: it is lent out meanwhile.
        let mut seen = std::mem::take(&mut self.seen);
        let mut journal = std::mem::take(&mut self.journal);
        let asking = Asking {
            world: self,
            waiting: &waiting,
        };
        let observation = observing::observe(&asking, |transitions| {
            wire::journal(&mut seen, &mut journal, transitions)
        });
        self.seen = seen;
        self.journal = journal;
        StepRecord {
            step,
            at_ms,
            requests,
            observation,
        }
    }

    /// Asks instance `instance` something, as the grader acting for that instance (the
    /// records its answer writes chain with that instance's); `None` if it panicked.
    fn asked<T>(&self, instance: usize, ask: impl FnOnce() -> T) -> Option<T> {
        let many = self.shops.len() > 1;
        if many {
            trace::note("lane", 0, lane("", instance, self.shops.len()));
        }
        let answer = catch_unwind(AssertUnwindSafe(ask)).ok();
        if many {
            trace::note("lane", 0, "");
        }
        answer
    }
}

/// The world as an observation asks it, with the requests that wait on the clock now.
struct Asking<'a> {
    world: &'a World,
    waiting: &'a BTreeMap<u64, Waiting>,
}

impl Shops for Asking<'_> {
    fn names(&self) -> Vec<&str> {
        let targets = self.world.targets.iter();
        targets.map(|(name, _)| name.as_str()).collect()
    }

    fn instances(&self) -> usize {
        self.world.shops.len()
    }

    fn dependency(&self, name: &str) -> DependencySnapshot {
        let stats = self
            .world
            .dependencies
            .get(name)
            .map(|d| d.stats())
            .unwrap_or_default();
        let counts = (stats.calls, stats.in_flight, stats.peak_in_flight);
        observing::counters(name, counts, stats.answered)
    }

    fn state(&self, instance: usize, name: &str) -> Option<String> {
        let shop = &self.world.shops[instance];
        let state = self.world.asked(instance, || shop.circuit_state(name));
        state.flatten().map(|s| s.as_str().to_owned())
    }

    fn metrics(&self, instance: usize, name: &str) -> Option<[u64; 5]> {
        let shop = &self.world.shops[instance];
        let metrics = self.world.asked(instance, || shop.metrics(name)).flatten();
        metrics.as_ref().map(metric_values)
    }

    fn transitions(&self, instance: usize) -> Option<Vec<String>> {
        let shop = &self.world.shops[instance];
        let list = self.world.asked(instance, || shop.transitions());
        list.map(|list| records(&list))
    }

    fn waiting(&self, instance: usize, name: &str) -> Vec<&'static str> {
        let sent = self.world.sent.iter();
        sent.filter(|(_, i, target)| *i == instance && target == name)
            .filter_map(|(id, _, _)| self.waiting.get(id).map(|why| why.as_str()))
            .collect()
    }
}
