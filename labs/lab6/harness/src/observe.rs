//! What the harness records after every action (each dependency's counters, each shop
//! instance's view of each dependency, and the transition records): the world's answers
//! to [`Shops`], which `crate::observing` puts together as the race harness's are.
//!
//! The shops are asked on a thread of their own ([`grader_harness::Requests::read`]): a
//! shop whose lock is held for good (across a call that waits, or taken twice) blocks
//! that thread, and the step is then reported stuck at once, not after the real-time
//! limit.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use grader_harness::Failure;
use grader_protocol::StuckRecord;
use shipping_kit::Waiting;

use crate::observing::{self, Shops};
use crate::run::World;
use crate::shop::{ShopUnderTest, metric_values, records};
use crate::wire::{DependencySnapshot, Observation};

/// The observation after an action, or a stuck failure when asking the shops blocked. A
/// panic in the code under test while it is asked is caught and noted.
pub fn observe(world: &World) -> Result<Observation, Failure> {
    let shops = world.shops.clone();
    let names: Vec<String> = world.targets.iter().map(|(n, _)| n.clone()).collect();
    let answers = world
        .requests
        .read(move || Answers::ask(&shops, &names))
        .map_err(|blocked| {
            Failure::Stuck(StuckRecord::reading(blocked, world.requests.limit_ms()))
        })?;
    if answers.panicked {
        world.mark_panicked();
    }
    let answered = Answered { world, answers };
    Ok(observing::observe(&answered, |transitions| {
        let mut seen = world.seen.borrow_mut();
        let mut journal = world.journal.borrow_mut();
        crate::wire::journal(&mut seen, &mut journal, transitions)
    }))
}

/// What every shop instance said when asked, per instance and then per dependency in
/// the plan's order; `None` where asking panicked.
struct Answers {
    states: Vec<Vec<Option<String>>>,
    metrics: Vec<Vec<Option<[u64; 5]>>>,
    transitions: Vec<Option<Vec<String>>>,
    panicked: bool,
}

impl Answers {
    fn ask(shops: &[Arc<dyn ShopUnderTest>], names: &[String]) -> Answers {
        let mut panicked = false;
        let mut asked = |ask: &mut dyn FnMut()| {
            if catch_unwind(AssertUnwindSafe(ask)).is_err() {
                panicked = true;
            }
        };
        let mut answers = Answers {
            states: Vec::new(),
            metrics: Vec::new(),
            transitions: Vec::new(),
            panicked: false,
        };
        for shop in shops {
            let (mut states, mut metrics, mut transitions) = (Vec::new(), Vec::new(), None);
            for name in names {
                let mut state = None;
                asked(&mut || state = shop.circuit_state(name).map(|s| s.as_str().to_owned()));
                states.push(state);
                let mut values = None;
                asked(&mut || values = shop.metrics(name).as_ref().map(metric_values));
                metrics.push(values);
            }
            asked(&mut || transitions = Some(records(&shop.transitions())));
            answers.states.push(states);
            answers.metrics.push(metrics);
            answers.transitions.push(transitions);
        }
        answers.panicked = panicked;
        answers
    }
}

/// The world, with the shops' answers read beforehand.
struct Answered<'a> {
    world: &'a World,
    answers: Answers,
}

impl Shops for Answered<'_> {
    fn names(&self) -> Vec<&str> {
        self.world
            .targets
            .iter()
            .map(|(name, _)| name.as_str())
            .collect()
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
        let lane = self.lane(name)?;
        self.answers.states.get(instance)?.get(lane)?.clone()
    }

    fn metrics(&self, instance: usize, name: &str) -> Option<[u64; 5]> {
        let lane = self.lane(name)?;
        *self.answers.metrics.get(instance)?.get(lane)?
    }

    fn transitions(&self, instance: usize) -> Option<Vec<String>> {
        self.answers.transitions.get(instance)?.clone()
    }

    fn waiting(&self, instance: usize, name: &str) -> Vec<&'static str> {
        self.world
            .sent
            .iter()
            .filter(|(_, i, target)| *i == instance && target == name)
            .filter_map(|(id, _, _)| self.world.waiting(*id).map(Waiting::as_str))
            .collect()
    }
}

impl Answered<'_> {
    /// Where dependency `name` stands in the plan's order.
    fn lane(&self, name: &str) -> Option<usize> {
        self.world.targets.iter().position(|(n, _)| n == name)
    }
}
