//! One schedule: the plan's actions against fresh shops (one per instance), fresh scripted
//! dependencies and a fresh fake clock, all on the runtime.
//!
//! As in the normal harness, every step waits until each request has returned or waits on
//! the fake clock, and every instance is recorded after each step. Unlike it, requests
//! woken together run together, in the explorer's interleaving, and an advance wakes
//! together every waiter whose deadline falls at the same instant. At the end every held
//! call is answered and the clock moved past every deadline: a request that still does not
//! return leaves every thread waiting, and the runtime stops the schedule as a deadlock.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use fixture_dependencies::outcomes::{browse_words, checkout_words, layered};
use fixture_dependencies::{ScriptedDependencies, ScriptedDependency};
use fixture_script::{Activity, Behaviour};
use lab6_harness::wire::{self, Action, Settings};
use race_explore::output::{self, Event, push, push_step, set_step};
use race_explore::requests::Requests;
use race_std::sync::Arc;
use race_std::trace;
use shipping_kit::{
    Answer, Clock, Dependency, DependencySettings, FakeClock, Order, Page, SHIPPING, Waiting,
};

use crate::monitor::{self, Limits};
use crate::watched::{Threads, Watched, WatchedClock, asleep, number};
use crate::{BuildShop, Plan, ShopUnderTest};

#[path = "../../harness/src/shop_settings.rs"]
mod shop_settings;
use shop_settings::dependency_settings;

pub(crate) struct World {
    pub(crate) clock: FakeClock,
    activity: Activity,
    pub(crate) dependencies: ScriptedDependencies,
    /// The targets in plan order, with their settings.
    pub(crate) targets: Vec<(String, Settings)>,
    pub(crate) shops: Vec<Arc<dyn ShopUnderTest>>,
    pub(crate) requests: Requests<String>,
    /// Every request sent: its id, its instance (from 0) and its target.
    pub(crate) sent: Vec<(u64, usize, String)>,
    pub(crate) threads: Threads,
    /// Per instance, the records already in the journal, and the journal.
    pub(crate) seen: Vec<usize>,
    pub(crate) journal: Vec<String>,
}

/// The name a lane's records chain under: the dependency's, with its instance's when the
/// scenario runs more than one.
pub(crate) fn lane(target: &str, instance: usize, instances: usize) -> String {
    if instances > 1 {
        format!("{target} (instance {})", instance + 1)
    } else {
        target.to_owned()
    }
}

fn limits(s: &Settings) -> Limits {
    Limits {
        max_active: s.max_active,
        max_queued: s.max_queued,
        max_queue_wait: Duration::from_millis(s.max_queue_wait_ms),
        budget: Duration::from_millis(s.budget_ms),
        probes: s.probes,
    }
}

/// Runs the plan once, on the schedule the explorer is choosing now. The events (steps,
/// panics) go to the schedule's buffer.
pub fn run(plan: &Plan, build: BuildShop) {
    push(Event::Ready);
    let activity = Activity::new();
    let bell = activity.clone();
    let clock = FakeClock::with_observer(move || bell.bump());
    let dependencies = ScriptedDependencies::new(&activity);
    let targets = wire::targets(&plan.targets);
    let instances = wire::instances(&plan.actions);
    let threads = Threads::default();
    let mut lanes = Vec::new();
    let mut shops: Vec<Arc<dyn ShopUnderTest>> = Vec::new();
    for instance in 0..instances {
        let mut wiring: Vec<(Arc<dyn Dependency>, DependencySettings)> = Vec::new();
        for (name, settings) in &targets {
            let Some(dependency) = dependencies.get(name) else {
                continue;
            };
            let lane = lane(name, instance, instances);
            lanes.push((lane.clone(), name.clone(), limits(settings)));
            let watched = Watched::new(dependency.clone(), lane);
            wiring.push((Arc::new(watched), dependency_settings(settings)));
        }
        let shared: Arc<dyn Clock> = Arc::new(WatchedClock::new(clock.clone(), threads.clone()));
        let Ok(shop) = catch_unwind(AssertUnwindSafe(|| build(shared, wiring))) else {
            return;
        };
        shops.push(Arc::from(shop));
    }
    monitor::lanes(lanes);
    let mut world = World {
        clock,
        activity,
        dependencies,
        targets,
        seen: vec![0; shops.len()],
        shops,
        requests: Requests::default(),
        sent: Vec::new(),
        threads,
        journal: Vec::new(),
    };
    for (step, action) in plan.actions.iter().enumerate() {
        set_step(Some(step));
        let at_ms = world.now_ms();
        trace::note("step", step as u64, "");
        push(Event::Begin { step, at_ms });
        let ids = world.act(action);
        push(Event::Observing { step });
        let record = world.record(step, at_ms, &ids);
        push_step(record);
        if world.requests.panicked() || output::has_panic() {
            world.wind_down(plan.actions.len());
            return;
        }
    }
    set_step(None);
    push(Event::Finished);
    world.wind_down(plan.actions.len());
}

impl World {
    pub(crate) fn now_ms(&self) -> u64 {
        u64::try_from(self.clock.now().as_millis()).unwrap_or(u64::MAX)
    }

    /// Carries out one action; returns the ids of the requests it concerns. The grader
    /// checked the plan, so a dependency it names exists.
    fn act(&mut self, action: &Action) -> Vec<u64> {
        match action {
            Action::Script { target, answer } => {
                let behaviour = match answer.as_str() {
                    "hold" => Behaviour::Hold,
                    "panic" => Behaviour::Panic,
                    answer => Behaviour::Answer(answer.parse().unwrap_or(Answer::Refused)),
                };
                if let Some(dependency) = self.dependencies.get(target) {
                    dependency.script(behaviour);
                }
                Vec::new()
            }
            Action::Send {
                target,
                count,
                instance,
                layers,
            } => {
                let mut ids = Vec::new();
                for _ in 0..*count {
                    let id = self.spawn(target, *instance, *layers);
                    self.settle();
                    ids.push(id);
                }
                ids
            }
            Action::SendConcurrent {
                target,
                count,
                instance,
            } => {
                let ids: Vec<u64> = (0..*count)
                    .map(|_| self.spawn(target, *instance, 1))
                    .collect();
                self.settle();
                ids
            }
            Action::Release {
                target,
                count,
                answer,
            } => {
                let count = count.map_or(usize::MAX, |c| c as usize);
                let answer = answer.parse().unwrap_or(Answer::Refused);
                let mut ids = self.release(target, count, answer);
                ids.sort_unstable();
                self.settle();
                ids
            }
            Action::Advance { ms } => self.advance(Duration::from_millis(*ms)),
            // Here requests woken together run together, in every interleaving the
            // explorer tries: no order to choose.
            Action::WakeOrder { .. } | Action::Observe => Vec::new(),
        }
    }

    /// Starts one request to `target` on shop `instance` (from 1), through `layers`
    /// layers, on a task of its own.
    fn spawn(&mut self, target: &str, instance: u32, layers: u32) -> u64 {
        let index = (instance as usize)
            .saturating_sub(1)
            .min(self.shops.len() - 1);
        let shop = self.shops[index].clone();
        let name = lane(target, index, self.shops.len());
        let id = self.requests.next_id();
        let ahead: Vec<u64> = asleep(&self.clock, &self.threads)
            .into_iter()
            .filter(|(other, why)| {
                *why == Waiting::Queue && monitor::lane_of(*other).as_deref() == Some(name.as_str())
            })
            .map(|(other, _)| other)
            .collect();
        monitor::sent(id, &name, self.clock.now(), ahead);
        let attempts = self
            .targets
            .iter()
            .find(|(name, _)| name == target)
            .map_or(1, |(_, s)| s.max_attempts);
        let checkout = target == SHIPPING;
        let threads = self.threads.clone();
        let activity = self.activity.clone();
        // The records it writes chain with its instance's: the lane's name less the
        // dependency's.
        let lane_note = lane("", index, self.shops.len());
        let call = move || {
            threads
                .lock()
                .insert(number(race_std::thread::current().id()), id);
            trace::note("lane", id, lane_note);
            let once = || {
                if checkout {
                    checkout_words(shop.checkout(&Order { id }))
                } else {
                    browse_words(shop.browse(&Page { id }))
                }
            };
            let outcome = layered(layers, attempts, &once);
            monitor::returned(id, &outcome);
            outcome
        };
        self.requests
            .spawn("request", target, call, String::clone, move || {
                activity.bump()
            });
        self.sent.push((id, index, target.to_owned()));
        id
    }

    /// What each request that waits on the fake clock now waits for: one look at the
    /// clock (each look is a point where the explorer may switch threads).
    pub(crate) fn waiting_now(&self) -> BTreeMap<u64, Waiting> {
        asleep(&self.clock, &self.threads).into_iter().collect()
    }

    /// Waits until every request sent so far has returned or waits on the fake clock, then
    /// shows the monitor who sleeps.
    fn settle(&self) {
        self.activity.wait(|| {
            let waiting = self.waiting_now();
            self.sent
                .iter()
                .all(|&(id, _, _)| waiting.contains_key(&id) || self.requests.ended(id).is_some())
        });
        monitor::settled(&asleep(&self.clock, &self.threads));
    }

    /// Answers the `count` oldest held calls at `target` with `answer`, on the grader's
    /// task: letting go what the calls kept runs the code under test (a slot given back).
    fn release(&self, target: &str, count: usize, answer: Answer) -> Vec<u64> {
        let Some(dependency) = self.dependencies.get(target) else {
            return Vec::new();
        };
        let dependency: &ScriptedDependency = dependency;
        catch_unwind(AssertUnwindSafe(|| dependency.release(count, answer))).unwrap_or_default()
    }

    /// Moves the clock forward by `by`: each time, every waiter whose deadline is the
    /// earliest one due is woken, together, and everything settles before the next; the
    /// ids of the requests that returned meanwhile.
    fn advance(&self, by: Duration) -> Vec<u64> {
        let until = self.clock.now() + by;
        let before: Vec<u64> = self.open();
        self.wake_until(until, usize::MAX);
        monitor::time_is(until);
        self.clock.set(until);
        before
            .into_iter()
            .filter(|&id| self.requests.ended(id).is_some())
            .collect()
    }

    /// Requests that have not returned.
    fn open(&self) -> Vec<u64> {
        self.sent
            .iter()
            .map(|&(id, _, _)| id)
            .filter(|&id| self.requests.ended(id).is_none())
            .collect()
    }

    /// Wakes the waiters due by `until`, earliest deadline first (those that share it
    /// together), at most `most` times; whether any was due still.
    fn wake_until(&self, until: Duration, most: usize) -> bool {
        for _ in 0..most {
            let waiters = self.clock.waiters();
            let Some(deadline) = waiters
                .iter()
                .map(|w| w.deadline)
                .filter(|d| *d <= until)
                .min()
            else {
                return false;
            };
            // The monitor learns the time first: the woken may run at once.
            monitor::time_is(deadline);
            for w in waiters.iter().filter(|w| w.deadline == deadline) {
                self.clock.wake_one(w.seq);
            }
            self.settle();
        }
        self.clock.waiters().iter().any(|w| w.deadline <= until)
    }

    /// Answers every held call and moves the clock past every deadline, then waits for
    /// every request to return: one that cannot leaves every thread waiting, which the
    /// runtime reports. For the record this is step `after_last`, one past the plan's last.
    fn wind_down(&mut self, after_last: usize) {
        trace::note("step", after_last as u64, "");
        for (name, _) in &self.targets {
            self.release(name, usize::MAX, Answer::Ok(0));
        }
        self.settle();
        if self.wake_until(Duration::MAX, monitor::WIND_DOWN) {
            monitor::keeps_waiting(&asleep(&self.clock, &self.threads), self.clock.now());
        }
        self.requests.join_all();
    }
}
