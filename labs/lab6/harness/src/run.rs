//! Carrying out a plan's actions against the shops under test.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

use fixture_dependencies::outcomes::{browse_words, checkout_words, layered};
use fixture_dependencies::{ScriptedDependencies, ScriptedDependency};
use fixture_script::{Activity, Behaviour};
use grader_harness::{Driver, Failure, Notifier, Requests};
use grader_protocol::{Plan, RequestOutcome, StuckRecord};
use shipping_kit::{
    Answer, Clock, Dependency, DependencySettings, FakeClock, Order, Page, SHIPPING, Waiting,
};

use crate::wire::{self, Action, Observation, Settings, WakeOrder};
use crate::{BuildShop, ShopUnderTest};

#[path = "shop_settings.rs"]
mod shop_settings;
use shop_settings::dependency_settings;

/// The most woken requests one step lets go, one after the other, before the ones still
/// waking each other without time moving are reported stuck.
const MOST_LET_GO: usize = 10_000;

/// Lab 6's world: the fake clock, the scripted dependencies and one shop per instance.
pub struct World {
    pub(crate) clock: FakeClock,
    activity: Activity,
    pub(crate) dependencies: ScriptedDependencies,
    /// The targets in plan order, with their settings.
    pub(crate) targets: Vec<(String, Settings)>,
    pub(crate) shops: Vec<Arc<dyn ShopUnderTest>>,
    pub(crate) requests: Requests,
    /// Every request sent: its id, its instance (from 0) and its target.
    pub(crate) sent: Vec<(u64, usize, String)>,
    /// The thread each request runs on, once it has started.
    threads: Arc<Mutex<HashMap<u64, ThreadId>>>,
    /// A panic of the code under test while the harness released held calls.
    release_panicked: Arc<AtomicBool>,
    stuck_after_ms: u64,
    /// Whose turn comes first among requests woken at the same moment.
    order: WakeOrder,
    /// Per instance, the records already in the journal.
    pub(crate) seen: RefCell<Vec<usize>>,
    pub(crate) journal: RefCell<Vec<String>>,
}

/// The requests' notifier: the fixtures' activity, waited on steadily, because a woken
/// request can wake another one before it settles again.
struct Steady(Activity);

impl Notifier for Steady {
    fn bump(&self) {
        self.0.bump();
    }

    fn wait_for(&self, limit: Duration, done: &mut dyn FnMut() -> bool) -> bool {
        self.0.wait_steady(limit, done)
    }
}

impl World {
    /// Builds the dependencies and one shop per instance the plan uses; a panic in `build`
    /// is caught by the caller.
    pub fn start(plan: &Plan<Settings, Action>, build: BuildShop) -> World {
        let activity = Activity::new();
        let bell = activity.clone();
        // Serial: a request woken by another thread's change waits for its turn, so that
        // requests woken together go on one at a time, in the scenario's order.
        let clock = FakeClock::serial(move || bell.bump());
        let dependencies = ScriptedDependencies::new(&activity);
        let targets = wire::targets(&plan.targets);
        let wiring: Vec<(Arc<dyn Dependency>, DependencySettings)> = targets
            .iter()
            .filter_map(|(name, settings)| {
                let dependency = dependencies.get(name)?.clone() as Arc<dyn Dependency>;
                Some((dependency, dependency_settings(settings)))
            })
            .collect();
        let shops = (0..wire::instances(&plan.actions))
            .map(|_| {
                let shared: Arc<dyn Clock> = Arc::new(clock.clone());
                Arc::from(build(shared, wiring.clone()))
            })
            .collect::<Vec<Arc<dyn ShopUnderTest>>>();
        let now = {
            let clock = clock.clone();
            move || u64::try_from(clock.now().as_millis()).unwrap_or(u64::MAX)
        };
        World {
            seen: RefCell::new(vec![0; shops.len()]),
            clock,
            dependencies,
            targets,
            shops,
            requests: Requests::new(Arc::new(Steady(activity.clone())), plan.stuck_after_ms)
                .with_clock(now),
            activity,
            sent: Vec::new(),
            threads: Arc::default(),
            release_panicked: Arc::default(),
            stuck_after_ms: plan.stuck_after_ms,
            order: WakeOrder::default(),
            journal: RefCell::new(Vec::new()),
        }
    }
}

impl Driver for World {
    type Settings = Settings;
    type Action = Action;
    type Observation = Observation;

    fn now_ms(&self) -> u64 {
        u64::try_from(self.clock.now().as_millis()).unwrap_or(u64::MAX)
    }

    fn act(&mut self, action: &Action) -> Result<Vec<u64>, Failure> {
        match action {
            Action::Script { target, answer } => {
                let behaviour = match answer.as_str() {
                    "hold" => Behaviour::Hold,
                    "panic" => Behaviour::Panic,
                    answer => Behaviour::Answer(parse_answer(answer)?),
                };
                self.dependency(target)?.script(behaviour);
                Ok(Vec::new())
            }
            Action::Send {
                target,
                count,
                instance,
                layers,
            } => {
                let call = Arc::new(self.call(target, *instance, *layers)?);
                let mut ids = Vec::new();
                for _ in 0..*count {
                    let call = call.clone();
                    let id = self.requests.spawn(move |id| call(id))?;
                    self.sent.push((id, *instance as usize - 1, target.clone()));
                    self.settle(target)?;
                    ids.push(id);
                }
                Ok(ids)
            }
            Action::SendConcurrent {
                target,
                count,
                instance,
            } => {
                // At the same moment of the fake clock, entering one after another: each
                // once the one before has returned, is held, or waits on the fake clock,
                // so the order they reach the queue in, and the verdict, never depend on
                // the machine's thread scheduler.
                let call = Arc::new(self.call(target, *instance, 1)?);
                let mut ids = Vec::new();
                for _ in 0..*count {
                    let call = call.clone();
                    let id = self.requests.spawn(move |id| call(id))?;
                    self.sent.push((id, *instance as usize - 1, target.clone()));
                    self.settle(target)?;
                    ids.push(id);
                }
                Ok(ids)
            }
            Action::Release {
                target,
                count,
                answer,
            } => {
                let answer = parse_answer(answer)?;
                let count = count.map_or(usize::MAX, |c| c as usize);
                let ids = self.release(target, count, answer)?;
                self.settle(target)?;
                Ok(ids)
            }
            Action::Advance { ms } => self.advance(Duration::from_millis(*ms)),
            Action::WakeOrder { order } => {
                self.order = *order;
                Ok(Vec::new())
            }
            Action::Observe => Ok(Vec::new()),
        }
    }

    fn outcomes(&self, ids: &[u64]) -> Vec<RequestOutcome> {
        let mut outcomes = self.requests.outcomes(ids, "");
        for o in &mut outcomes {
            if o.outcome.is_empty() {
                o.outcome = self
                    .waiting(o.id)
                    .map_or("running", Waiting::as_str)
                    .to_owned();
            }
        }
        outcomes
    }

    fn observe(&self) -> Observation {
        // The runner calls `try_observe`; here a look that blocked gives an empty observation.
        crate::observe::observe(self).unwrap_or_else(|_| Observation {
            dependencies: Vec::new(),
            instances: Vec::new(),
            transitions: Vec::new(),
            journal: Vec::new(),
        })
    }

    fn try_observe(&self) -> Result<Observation, Failure> {
        crate::observe::observe(self)
    }

    fn panicked(&self) -> bool {
        self.requests.panicked() || self.release_panicked.load(Ordering::SeqCst)
    }
}

impl World {
    pub(crate) fn dependency(&self, name: &str) -> Result<&Arc<ScriptedDependency>, Failure> {
        self.dependencies
            .get(name)
            .ok_or_else(|| Failure::BadPlan(format!("no dependency named {name}")))
    }

    /// What one request to `target` on shop `instance` does, through `layers` layers, its
    /// outcome in words.
    fn call(
        &self,
        target: &str,
        instance: u32,
        layers: u32,
    ) -> Result<impl Fn(u64) -> String + Send + Sync + 'static, Failure> {
        let shop = instance
            .checked_sub(1)
            .and_then(|i| self.shops.get(i as usize))
            .cloned()
            .ok_or_else(|| Failure::BadPlan(format!("no shop instance {instance}")))?;
        let attempts = self
            .targets
            .iter()
            .find(|(name, _)| name == target)
            .map_or(1, |(_, s)| s.max_attempts);
        let threads = self.threads.clone();
        let checkout = target == SHIPPING;
        Ok(move |id| {
            threads
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id, std::thread::current().id());
            let once = || {
                if checkout {
                    checkout_words(shop.checkout(&Order { id }))
                } else {
                    browse_words(shop.browse(&Page { id }))
                }
            };
            layered(layers, attempts, &once)
        })
    }

    /// Waits until every request sent so far has returned or waits on the fake clock, and
    /// no request that was woken is still waiting for its turn: those go on one at a time,
    /// in the scenario's order, each settling before the next.
    fn settle(&self, target: &str) -> Result<(), Failure> {
        let ids: Vec<u64> = self.sent.iter().map(|&(id, _, _)| id).collect();
        let parked = |id| self.waiting(id).is_some();
        for _ in 0..MOST_LET_GO {
            let settled = self.requests.settle(&ids, target, &parked);
            let next = self.next_woken();
            match (settled, next) {
                (Ok(()), None) => return Ok(()),
                // A request may be blocked on something a woken one will let go of.
                (Ok(()), Some(seq))
                | (Err(Failure::Stuck(StuckRecord { blocked: true, .. })), Some(seq)) => {
                    self.clock.let_go(seq);
                }
                (Err(failure), _) => return Err(self.seen(failure)),
            }
        }
        // Requests that keep waking each other without time moving: they never settle.
        let ranks = self.ranks();
        let woken = self
            .clock
            .waiters()
            .iter()
            .filter(|w| w.rung)
            .filter_map(|w| ranks.get(&w.thread).copied())
            .collect();
        Err(Failure::Stuck(StuckRecord {
            step: 0,
            at_ms: 0,
            requests: woken,
            sent: ids.len() as u64,
            target: target.to_owned(),
            waited_ms: self.stuck_after_ms,
            blocked: false,
            reading: false,
            seen: None,
        }))
    }

    /// The woken request whose turn comes next, if any waits for its turn.
    fn next_woken(&self) -> Option<u64> {
        let ranks = self.ranks();
        self.clock
            .waiters()
            .into_iter()
            .filter(|w| w.rung)
            .min_by_key(|w| self.turn(&ranks, w.thread, w.seq))
            .map(|w| w.seq)
    }

    /// Each request thread's request id.
    fn ranks(&self) -> HashMap<ThreadId, u64> {
        self.threads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(&id, &thread)| (thread, id))
            .collect()
    }

    /// Where a wait of `thread` (wait number `seq`) comes among waits that end together:
    /// the lower, the sooner, in the scenario's order.
    fn turn(&self, ranks: &HashMap<ThreadId, u64>, thread: ThreadId, seq: u64) -> (u64, u64) {
        let rank = ranks.get(&thread).copied().unwrap_or(u64::MAX);
        match self.order {
            WakeOrder::OldestFirst => (rank, seq),
            WakeOrder::NewestFirst => (u64::MAX - rank, u64::MAX - seq),
        }
    }

    /// What request `id` waits for on the fake clock, if it does.
    pub(crate) fn waiting(&self, id: u64) -> Option<Waiting> {
        let thread = *self
            .threads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)?;
        self.clock.waiting(thread)
    }

    /// Notes a panic of the code under test outside a request.
    pub(crate) fn mark_panicked(&self) {
        self.requests.mark_panicked();
    }

    /// Whether request `id` has returned.
    pub(crate) fn returned(&self, id: u64) -> bool {
        self.requests
            .outcomes(&[id], "")
            .first()
            .is_some_and(|o| !o.outcome.is_empty())
    }

    /// Releases held calls on a thread of its own (dropping what they kept runs the code
    /// under test), and waits for it; the ids of the requests whose calls were answered.
    fn release(&self, target: &str, count: usize, answer: Answer) -> Result<Vec<u64>, Failure> {
        let dependency = self.dependency(target)?.clone();
        let done: Arc<Mutex<Option<Vec<u64>>>> = Arc::default();
        let (result, panicked, activity) = (
            done.clone(),
            self.release_panicked.clone(),
            self.activity.clone(),
        );
        std::thread::Builder::new()
            .name(format!("release-{target}"))
            .spawn(move || {
                let ids = catch_unwind(AssertUnwindSafe(|| dependency.release(count, answer)))
                    .unwrap_or_else(|_| {
                        panicked.store(true, Ordering::SeqCst);
                        Vec::new()
                    });
                *result.lock().unwrap_or_else(PoisonError::into_inner) = Some(ids);
                activity.bump();
            })
            .map_err(|e| Failure::BadPlan(format!("cannot start a release thread: {e}")))?;
        let limit = Duration::from_millis(self.stuck_after_ms);
        let finished = self.activity.wait_steady(limit, || {
            done.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some()
        });
        if !finished {
            return Err(Failure::Stuck(StuckRecord {
                step: 0,
                at_ms: 0,
                requests: Vec::new(),
                sent: 0,
                target: format!("the release of held calls at {target}"),
                waited_ms: self.stuck_after_ms,
                blocked: false,
                reading: false,
                seen: None,
            }));
        }
        let mut ids = done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_default();
        ids.sort_unstable();
        Ok(ids)
    }

    /// Moves the clock forward by `by`, waking one waiter at a time (earliest deadline
    /// first, then in the scenario's order) and letting everything settle after each; the
    /// ids of the requests that returned meanwhile.
    fn advance(&self, by: Duration) -> Result<Vec<u64>, Failure> {
        let until = self.clock.now() + by;
        let before: Vec<u64> = self
            .sent
            .iter()
            .map(|&(id, _, _)| id)
            .filter(|&id| !self.returned(id))
            .collect();
        let ranks = self.ranks();
        loop {
            let next = self
                .clock
                .waiters()
                .into_iter()
                .filter(|w| w.deadline <= until)
                .min_by_key(|w| (w.deadline, self.turn(&ranks, w.thread, w.seq)));
            let Some(waiter) = next else { break };
            self.clock.wake_one(waiter.seq);
            self.settle("the shop")?;
        }
        self.clock.set(until);
        Ok(before.into_iter().filter(|&id| self.returned(id)).collect())
    }
}

fn parse_answer(text: &str) -> Result<Answer, Failure> {
    text.parse::<Answer>()
        .map_err(|e| Failure::BadPlan(e.to_string()))
}
