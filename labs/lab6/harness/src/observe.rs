//! What the harness records after every action: each dependency's counters, each shop
//! instance's view of each dependency, and the transition records.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use shipping_kit::{Metrics, Waiting};

use crate::run::World;
use crate::wire::{DependencySnapshot, InstanceSnapshot, LaneSnapshot, Observation};

/// The observation after an action. A panic in the code under test while it is asked is
/// caught and noted.
pub fn observe(world: &World) -> Observation {
    let dependencies = world
        .targets
        .iter()
        .map(|(name, _)| dependency(world, name))
        .collect();
    let instances = (0..world.shops.len())
        .map(|i| InstanceSnapshot {
            lanes: world
                .targets
                .iter()
                .map(|(name, _)| lane(world, i, name))
                .collect(),
        })
        .collect();
    let transitions: Vec<Option<Vec<String>>> = world
        .shops
        .iter()
        .map(|shop| {
            asked(world, || shop.transitions())
                .map(|list| list.iter().map(ToString::to_string).collect())
        })
        .collect();
    let journal = journal(world, &transitions);
    Observation {
        dependencies,
        instances,
        transitions,
        journal,
    }
}

fn dependency(world: &World, name: &str) -> DependencySnapshot {
    let stats = world
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

fn lane(world: &World, instance: usize, name: &str) -> LaneSnapshot {
    let shop = &world.shops[instance];
    let state = asked(world, || shop.circuit_state(name))
        .flatten()
        .map(|s| s.as_str().to_owned());
    let metrics = asked(world, || shop.metrics(name))
        .flatten()
        .map(|m| metrics(&m));
    let waiting = world
        .sent
        .iter()
        .filter(|(_, i, target)| *i == instance && target == name)
        .filter_map(|(id, _, _)| world.waiting(*id).map(Waiting::as_str));
    LaneSnapshot::new(name, state, metrics, waiting)
}

/// The metrics by name.
fn metrics(m: &Metrics) -> BTreeMap<String, u64> {
    crate::wire::metric_counts([
        m.timeout,
        m.no_capacity,
        m.queue_expired,
        m.circuit_open,
        m.no_tariff,
    ])
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

/// The journal so far: each instance's new records, in instance order, after the earlier
/// ones; marked with their instance when there is more than one.
fn journal(world: &World, transitions: &[Option<Vec<String>>]) -> Vec<String> {
    let mut seen = world.seen.borrow_mut();
    let mut journal = world.journal.borrow_mut();
    crate::wire::journal(&mut seen, &mut journal, transitions)
}
