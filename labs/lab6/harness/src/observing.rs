//! How an observation is put together, for the normal harness and the race harness alike:
//! each runs its shops on its own runtime (the real `std` or the explorer's), so each
//! answers [`Shops`], and [`observe`] asks in one order for both (the race harness's
//! schedules depend on the order in which the code under test is asked).

use crate::wire::{self, DependencySnapshot, InstanceSnapshot, LaneSnapshot, Observation};

/// What an observation asks of a world of shop instances and scripted dependencies.
pub trait Shops {
    /// The dependencies' names, in the plan's order.
    fn names(&self) -> Vec<&str>;
    /// How many shop instances run.
    fn instances(&self) -> usize;
    /// Dependency `name`'s counters.
    fn dependency(&self, name: &str) -> DependencySnapshot;
    /// The circuit state of `name` that instance `instance` reports (`None` if it says
    /// none, or asking panicked).
    fn state(&self, instance: usize, name: &str) -> Option<String>;
    /// Instance `instance`'s metrics for `name`, in [`wire::METRICS`]' order (`None` as
    /// for [`Shops::state`]).
    fn metrics(&self, instance: usize, name: &str) -> Option<[u64; 5]>;
    /// Instance `instance`'s transition records, as text; `None` if asking panicked.
    fn transitions(&self, instance: usize) -> Option<Vec<String>>;
    /// What each request of instance `instance` to `name` that waits on the clock waits
    /// for, in words (`held`, `queued`, `pausing`).
    fn waiting(&self, instance: usize, name: &str) -> Vec<&'static str>;
}

/// The observation after an action: every dependency, then each instance's view of each
/// dependency (its circuit state, then its metrics), then each instance's records, which
/// `journal` adds to the journal and returns it.
pub fn observe(
    shops: &impl Shops,
    journal: impl FnOnce(&[Option<Vec<String>>]) -> Vec<String>,
) -> Observation {
    let names = shops.names();
    let dependencies = names.iter().map(|name| shops.dependency(name)).collect();
    let instances = (0..shops.instances())
        .map(|i| InstanceSnapshot {
            lanes: names.iter().map(|name| lane(shops, i, name)).collect(),
        })
        .collect();
    let transitions: Vec<Option<Vec<String>>> = (0..shops.instances())
        .map(|i| shops.transitions(i))
        .collect();
    let journal = journal(&transitions);
    Observation {
        dependencies,
        instances,
        transitions,
        journal,
    }
}

/// Dependency `name` as instance `instance` sees it.
fn lane(shops: &impl Shops, instance: usize, name: &str) -> LaneSnapshot {
    let state = shops.state(instance, name);
    let metrics = shops.metrics(instance, name).map(wire::metric_counts);
    LaneSnapshot::new(name, state, metrics, shops.waiting(instance, name))
}

/// Dependency `name`'s counters: calls that reached it, calls in progress now and at most
/// at once, and finished calls per answer.
pub fn counters<A: ToString>(
    name: &str,
    (calls, in_flight, peak): (u64, u64, u64),
    answered: impl IntoIterator<Item = (A, u64)>,
) -> DependencySnapshot {
    DependencySnapshot {
        name: name.to_owned(),
        calls,
        in_flight,
        peak,
        answered: answered
            .into_iter()
            .map(|(answer, n)| (answer.to_string(), n))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// Two dependencies and two instances that note each question in the order asked.
    #[derive(Default)]
    struct Noted(RefCell<Vec<String>>);

    impl Noted {
        fn note(&self, what: String) {
            self.0.borrow_mut().push(what);
        }
    }

    impl Shops for Noted {
        fn names(&self) -> Vec<&str> {
            vec!["shipping", "catalog"]
        }

        fn instances(&self) -> usize {
            2
        }

        fn dependency(&self, name: &str) -> DependencySnapshot {
            self.note(format!("dependency {name}"));
            counters(name, (3, 1, 2), [("ok", 2u64)])
        }

        fn state(&self, instance: usize, name: &str) -> Option<String> {
            self.note(format!("state {instance} {name}"));
            (instance == 0).then(|| "OPEN".to_owned())
        }

        fn metrics(&self, instance: usize, name: &str) -> Option<[u64; 5]> {
            self.note(format!("metrics {instance} {name}"));
            Some([1, 2, 3, 4, 5])
        }

        fn transitions(&self, instance: usize) -> Option<Vec<String>> {
            self.note(format!("transitions {instance}"));
            Some(vec![format!("r{instance}")])
        }

        fn waiting(&self, instance: usize, name: &str) -> Vec<&'static str> {
            self.note(format!("waiting {instance} {name}"));
            vec!["queued", "held", "queued"]
        }
    }

    #[test]
    fn every_dependency_then_each_instances_lanes_then_its_records_are_asked_in_order() {
        let shops = Noted::default();
        let observation = observe(&shops, |transitions| {
            shops.note("journal".to_owned());
            assert_eq!(transitions.len(), 2);
            vec!["j".to_owned()]
        });
        let asked = shops.0.borrow().clone();
        let lane = |i: usize, name: &str| {
            [
                format!("state {i} {name}"),
                format!("metrics {i} {name}"),
                format!("waiting {i} {name}"),
            ]
        };
        let mut expected = vec![
            "dependency shipping".to_owned(),
            "dependency catalog".into(),
        ];
        for i in 0..2 {
            expected.extend(lane(i, "shipping"));
            expected.extend(lane(i, "catalog"));
        }
        expected.extend([
            "transitions 0".into(),
            "transitions 1".into(),
            "journal".into(),
        ]);
        assert_eq!(asked, expected);
        assert_eq!(observation.journal, ["j"]);
        assert_eq!(observation.dependencies[1].answered["ok"], 2);
        let lane = &observation.instances[0].lanes[1];
        assert_eq!((lane.held, lane.queued, lane.pausing), (1, 2, 0));
        assert_eq!(lane.state.as_deref(), Some("OPEN"));
        assert_eq!(lane.metrics.as_ref().map(|m| m["circuit_open"]), Some(4));
        assert_eq!(observation.instances[1].lanes[0].state, None);
        assert_eq!(
            observation.transitions,
            [Some(vec!["r0".to_owned()]), Some(vec!["r1".to_owned()])]
        );
    }
}
