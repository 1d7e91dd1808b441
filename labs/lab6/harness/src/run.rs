//! Carrying out a plan's actions against the shops under test.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

use fixture_dependencies::{QUOTED_PRICE, ScriptedDependencies, ScriptedDependency};
use fixture_script::{Activity, Behaviour};
use grader_harness::{Driver, Failure, Notifier, Requests};
use grader_protocol::{Plan, RequestOutcome, StuckRecord};
use shipping_kit::{
    Answer, BreakerSettings, Browse, BulkheadSettings, Cause, Checkout, Clock, Dependency,
    DependencySettings, FakeClock, Order, Page, RetrySettings, SHIPPING, Waiting,
};

use crate::wire::{Action, Observation, Settings};
use crate::{BuildShop, ShopUnderTest};

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
        let clock = FakeClock::with_observer(move || bell.bump());
        let dependencies = ScriptedDependencies::new(&activity);
        let targets: Vec<(String, Settings)> = plan
            .targets
            .iter()
            .map(|t| (t.name.clone(), t.settings))
            .collect();
        let wiring: Vec<(Arc<dyn Dependency>, DependencySettings)> = targets
            .iter()
            .filter_map(|(name, settings)| {
                let dependency = dependencies.get(name)?.clone() as Arc<dyn Dependency>;
                Some((dependency, dependency_settings(settings)))
            })
            .collect();
        let instances = plan.actions.iter().map(instance_of).max().unwrap_or(1);
        let shops = (0..instances.max(1))
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
            journal: RefCell::new(Vec::new()),
        }
    }
}

/// The shop instance an action uses (from 1), if it uses one.
fn instance_of(action: &Action) -> u32 {
    match action {
        Action::Send { instance, .. } | Action::SendConcurrent { instance, .. } => *instance,
        _ => 1,
    }
}

/// The shop's settings for one dependency, from the plan's.
fn dependency_settings(s: &Settings) -> DependencySettings {
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    DependencySettings {
        bulkhead: BulkheadSettings {
            max_active: count(s.max_active),
            max_queued: count(s.max_queued),
            max_queue_wait: Duration::from_millis(s.max_queue_wait_ms),
        },
        budget: Duration::from_millis(s.budget_ms),
        retry: RetrySettings {
            max_attempts: small(s.max_attempts),
            backoff: Duration::from_millis(s.backoff_ms),
            jitter_percent: small(s.jitter_percent),
            jitter_seed: s.jitter_seed,
        },
        breaker: BreakerSettings {
            window: count(s.window),
            minimum_calls: count(s.minimum_calls),
            failure_rate_percent: small(s.failure_rate_percent),
            open_for: Duration::from_millis(s.open_for_ms),
            probes: count(s.probes),
        },
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

    /// Waits until every request sent so far has returned or waits on the fake clock.
    fn settle(&self, target: &str) -> Result<(), Failure> {
        let ids: Vec<u64> = self.sent.iter().map(|&(id, _, _)| id).collect();
        self.requests
            .settle(&ids, target, &|id| self.waiting(id).is_some())
            .map_err(|failure| self.seen(failure))
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
    /// first, then the lowest request id, then the earliest wait) and letting everything
    /// settle after each; the ids of the requests that returned meanwhile.
    fn advance(&self, by: Duration) -> Result<Vec<u64>, Failure> {
        let until = self.clock.now() + by;
        let before: Vec<u64> = self
            .sent
            .iter()
            .map(|&(id, _, _)| id)
            .filter(|&id| !self.returned(id))
            .collect();
        let ranks: HashMap<ThreadId, u64> = self
            .threads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(&id, &thread)| (thread, id))
            .collect();
        loop {
            let next = self
                .clock
                .waiters()
                .into_iter()
                .filter(|w| w.deadline <= until)
                .min_by_key(|w| {
                    let rank = ranks.get(&w.thread).copied().unwrap_or(u64::MAX);
                    (w.deadline, rank, w.seq)
                });
            let Some(waiter) = next else { break };
            self.clock.wake_one(waiter.seq);
            self.settle("the shop")?;
        }
        self.clock.set(until);
        Ok(before.into_iter().filter(|&id| self.returned(id)).collect())
    }
}

/// A request through `layers` layers: the innermost is the shop; each outer layer calls
/// the one inside up to `attempts` times, again after every failure, as a naive client
/// would.
fn layered(layers: u32, attempts: u64, once: &dyn Fn() -> String) -> String {
    if layers <= 1 {
        return once();
    }
    let mut outcome = String::new();
    for _ in 0..attempts.max(1) {
        outcome = layered(layers - 1, attempts, once);
        if !CAUSES.contains(&outcome.as_str()) {
            break;
        }
    }
    outcome
}

/// Every cause's word: the outcomes of a request that got no valid answer.
const CAUSES: [&str; 6] = [
    "timeout",
    "no_capacity",
    "queue_expired",
    "circuit_open",
    "unavailable",
    "refused",
];

/// A checkout's outcome in words: `confirmed` (at the quoted price), `confirmed_at_N` (at
/// any other price), `no_tariff`, or the cause of unavailability.
fn checkout_words(checkout: Checkout) -> String {
    match checkout {
        Checkout::Confirmed { shipping } if shipping == QUOTED_PRICE => "confirmed".to_owned(),
        Checkout::Confirmed { shipping } => format!("confirmed_at_{shipping}"),
        Checkout::NoTariff => "no_tariff".to_owned(),
        Checkout::Unavailable(cause) => cause_word(cause),
    }
}

/// A page view's outcome in words: `shown` or the cause of unavailability.
fn browse_words(browse: Browse) -> String {
    match browse {
        Browse::Shown => "shown".to_owned(),
        Browse::Unavailable(cause) => cause_word(cause),
    }
}

fn cause_word(cause: Cause) -> String {
    cause.as_str().to_owned()
}

fn parse_answer(text: &str) -> Result<Answer, Failure> {
    text.parse::<Answer>()
        .map_err(|e| Failure::BadPlan(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_layers_multiply_the_attempts_on_failures_only() {
        let calls = std::cell::Cell::new(0);
        let failing = || {
            calls.set(calls.get() + 1);
            "unavailable".to_owned()
        };
        assert_eq!(layered(3, 3, &failing), "unavailable");
        assert_eq!(calls.get(), 9, "the shop itself is the third layer");
        calls.set(0);
        let fine = || {
            calls.set(calls.get() + 1);
            "confirmed".to_owned()
        };
        assert_eq!(layered(3, 3, &fine), "confirmed");
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn a_checkout_at_any_price_but_the_quote_is_named_as_such() {
        assert_eq!(
            checkout_words(Checkout::Confirmed {
                shipping: QUOTED_PRICE
            }),
            "confirmed"
        );
        assert_eq!(
            checkout_words(Checkout::Confirmed { shipping: 0 }),
            "confirmed_at_0"
        );
        assert_eq!(
            checkout_words(Checkout::Unavailable(Cause::QueueExpired)),
            "queue_expired"
        );
        assert_eq!(browse_words(Browse::Shown), "shown");
    }
}
