//! What the race harness records after every action, as the normal harness does: each
//! dependency's counters, each instance's view of each dependency, and the records.

use std::panic::{AssertUnwindSafe, catch_unwind};

use std::collections::BTreeMap;

use grader_protocol::{RequestOutcome, StepRecord};
use lab6_harness::wire::{self, DependencySnapshot, InstanceSnapshot, LaneSnapshot, Observation};
use race_std::trace;
use shipping_kit::Waiting;

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
        let dependencies = self
            .targets
            .iter()
            .map(|(name, _)| self.dependency(name))
            .collect();
        let instances = (0..self.shops.len())
            .map(|i| InstanceSnapshot {
                lanes: self
                    .targets
                    .iter()
                    .map(|(name, _)| self.lane(i, name, &waiting))
                    .collect(),
            })
            .collect();
        let transitions: Vec<Option<Vec<String>>> = (0..self.shops.len())
            .map(|i| {
                self.asked(i, || self.shops[i].transitions())
                    .map(|list| list.iter().map(ToString::to_string).collect())
            })
            .collect();
        let journal = wire::journal(&mut self.seen, &mut self.journal, &transitions);
        StepRecord {
            step,
            at_ms,
            requests,
            observation: Observation {
                dependencies,
                instances,
                transitions,
                journal,
            },
        }
    }

    fn dependency(&self, name: &str) -> DependencySnapshot {
        let stats = self
            .dependencies
            .get(name)
            .map(|d| d.stats())
            .unwrap_or_default();
        DependencySnapshot {
            name: name.to_owned(),
            calls: stats.calls,
            in_flight: stats.in_flight,
            peak: stats.peak_in_flight,
            answered: stats
                .answered
                .iter()
                .map(|(answer, n)| (answer.to_string(), *n))
                .collect(),
        }
    }

    fn lane(&self, instance: usize, name: &str, waiting: &BTreeMap<u64, Waiting>) -> LaneSnapshot {
        let shop = &self.shops[instance];
        let state = self
            .asked(instance, || shop.circuit_state(name))
            .flatten()
            .map(|s| s.as_str().to_owned());
        let metrics = self
            .asked(instance, || shop.metrics(name))
            .flatten()
            .map(|m| {
                wire::metric_counts([
                    m.timeout,
                    m.no_capacity,
                    m.queue_expired,
                    m.circuit_open,
                    m.no_tariff,
                ])
            });
        let waiting = self
            .sent
            .iter()
            .filter(|(_, i, target)| *i == instance && target == name)
            .filter_map(|(id, _, _)| waiting.get(id).map(|why| why.as_str()));
        LaneSnapshot::new(name, state, metrics, waiting)
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
