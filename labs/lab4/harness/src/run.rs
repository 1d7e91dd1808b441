//! Carrying out a plan's actions against the relay under test.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use fixture_targets::{Activity, Behaviour, System};
use grader_harness::{Driver, Failure, LookKeys, Requests};
use grader_protocol::{Plan, RequestOutcome, StuckRecord};
use relay_kit::{BreakerConfig, Clock, Code, FakeClock, Request, Target, TargetConfig};

use crate::systems::system;
use crate::wire::{Action, Observation, Settings, TargetSnapshot, seen};
use crate::{BuildRelay, RelayUnderTest};

/// What a look at a target's breaker state showed while requests were blocked.
const LOOKED: LookKeys = LookKeys {
    readable: seen::BREAKER_READABLE,
    blocked: seen::BREAKER_BLOCKED,
    panicked: seen::BREAKER_PANICKED,
};

/// Lab 4's world: the fake clock, the scripted targets and the relay under test.
pub struct World {
    clock: FakeClock,
    targets: Vec<Arc<dyn System>>,
    relay: Arc<dyn RelayUnderTest>,
    requests: Requests,
}

impl World {
    /// Builds the targets and the relay `build` makes; a panic in it is caught by the
    /// caller.
    pub fn start(plan: &Plan<Settings, Action>, build: BuildRelay) -> World {
        let clock = FakeClock::new();
        let activity = Activity::new();
        let targets: Vec<Arc<dyn System>> = plan
            .targets
            .iter()
            .map(|t| system(&t.name, &activity))
            .collect();
        let wiring: Vec<(Arc<dyn Target>, TargetConfig)> = plan
            .targets
            .iter()
            .zip(&targets)
            .map(|(t, target)| {
                let config = TargetConfig {
                    breaker: BreakerConfig {
                        failure_threshold: t.settings.failure_threshold,
                        retry_after: Duration::from_millis(t.settings.retry_after_ms),
                    },
                    max_concurrent: usize::try_from(t.settings.max_concurrent)
                        .unwrap_or(usize::MAX),
                };
                (target.clone().into_target(), config)
            })
            .collect();
        let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
        let relay = Arc::from(build(shared_clock, wiring));
        let now = {
            let clock = clock.clone();
            move || now_ms(&clock)
        };
        World {
            clock,
            targets,
            relay,
            requests: Requests::new(Arc::new(activity), plan.stuck_after_ms).with_clock(now),
        }
    }
}

impl Driver for World {
    type Settings = Settings;
    type Action = Action;
    type Observation = Observation;

    fn now_ms(&self) -> u64 {
        now_ms(&self.clock)
    }

    fn act(&mut self, action: &Action) -> Result<Vec<u64>, Failure> {
        self.carry_out(action)
    }

    fn outcomes(&self, ids: &[u64]) -> Vec<RequestOutcome> {
        self.requests.outcomes(ids, "held")
    }

    fn observe(&self) -> Observation {
        self.record().unwrap_or_else(|_| Observation {
            targets: Vec::new(),
            transitions: None,
        })
    }

    fn try_observe(&self) -> Result<Observation, Failure> {
        self.record().map_err(|blocked| {
            Failure::Stuck(StuckRecord::reading(blocked, self.requests.limit_ms()))
        })
    }

    fn panicked(&self) -> bool {
        self.requests.panicked()
    }
}

fn now_ms(clock: &FakeClock) -> u64 {
    u64::try_from(clock.now().as_millis()).unwrap_or(u64::MAX)
}

impl World {
    /// Carries out one action; returns the ids of the requests it concerns.
    fn carry_out(&mut self, action: &Action) -> Result<Vec<u64>, Failure> {
        match action {
            Action::Script { target, answer } => {
                let behaviour = match answer.as_str() {
                    "hold" => Behaviour::Hold,
                    "panic" => Behaviour::Panic,
                    code => Behaviour::Answer(parse_code(code)?),
                };
                self.target(target)?
                    .script(behaviour)
                    .map_err(|e| Failure::BadPlan(e.to_string()))?;
                Ok(Vec::new())
            }
            Action::Send { target, count } => {
                let held = |id| held_by(&self.targets, id);
                let call = self.call(target);
                let sent = self.requests.one_after_another(*count, target, call, &held);
                sent.map_err(|failure| self.seen(failure, target))
            }
            Action::SendConcurrent { target, count } => {
                let held = |id| held_by(&self.targets, id);
                let call = self.call(target);
                let sent = self.requests.together(*count, target, call, &held);
                sent.map_err(|failure| self.seen(failure, target))
            }
            Action::Release {
                target,
                count,
                answer,
            } => {
                let code = parse_code(answer)?;
                let count = count.map_or(usize::MAX, |c| c as usize);
                let mut ids = self
                    .target(target)?
                    .release(count, code)
                    .map_err(|e| Failure::BadPlan(e.to_string()))?;
                ids.sort_unstable();
                self.settle(&ids, target)?;
                Ok(ids)
            }
            Action::Advance { ms } => {
                self.clock.advance(Duration::from_millis(*ms));
                Ok(Vec::new())
            }
            Action::Observe => Ok(Vec::new()),
        }
    }

    fn target(&self, name: &str) -> Result<&dyn System, Failure> {
        self.targets
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
            .ok_or_else(|| Failure::BadPlan(format!("no target named {name}")))
    }

    /// What a request to `target` does: `Relay::handle`, its code in words.
    fn call(&self, target: &str) -> impl Fn(u64) -> String + Send + Sync + 'static {
        let relay = self.relay.clone();
        let target = target.to_owned();
        move |id| relay.handle(&Request::new(id, &target)).as_str().to_owned()
    }

    /// Waits until each of `ids` has returned or is held by a target. When some are
    /// stuck, looks at whether the breaker's state can still be read: if it can, what
    /// they wait for is not the breaker's lock.
    fn settle(&self, ids: &[u64], target: &str) -> Result<(), Failure> {
        self.requests
            .settle(ids, target, &|id| held_by(&self.targets, id))
            .map_err(|failure| self.seen(failure, target))
    }

    /// A stuck failure with what was seen of the breaker's lock: when the requests are
    /// blocked for good, whether the breaker's state can still be read (if it can, what
    /// they wait for is not the breaker's lock).
    fn seen(&self, failure: Failure, target: &str) -> Failure {
        let relay = self.relay.clone();
        let name = target.to_owned();
        let look = move || {
            relay.breaker_state(&name);
        };
        self.requests.look(failure, look, &LOOKED)
    }

    /// The state of every target, and the transition records, after an action; or,
    /// when reading them from the relay did not return, whether it blocked for good.
    fn record(&self) -> Result<Observation, bool> {
        let relay = self.relay.clone();
        let names: Vec<String> = self.targets.iter().map(|t| t.name().to_owned()).collect();
        let (states, transitions) = self.requests.read(move || {
            let states: Vec<_> = names
                .iter()
                .map(|n| catch_unwind(AssertUnwindSafe(|| relay.breaker_state(n))).ok())
                .collect();
            let transitions = catch_unwind(AssertUnwindSafe(|| relay.transitions())).ok();
            (states, transitions)
        })?;
        let targets = self
            .targets
            .iter()
            .zip(states)
            .map(|(t, state)| {
                let stats = t.stats();
                let state = match state {
                    Some(state) => state.map(|s| s.as_str().to_owned()),
                    None => {
                        self.mark_panicked();
                        None
                    }
                };
                TargetSnapshot {
                    name: t.name().to_owned(),
                    state,
                    calls: stats.calls,
                    in_flight: stats.in_flight,
                    peak: stats.peak_in_flight,
                    answered: stats
                        .answered
                        .iter()
                        .map(|(code, n)| (code.as_str().to_owned(), *n))
                        .collect::<BTreeMap<_, _>>(),
                }
            })
            .collect();
        let transitions = match transitions {
            Some(list) => Some(list.iter().map(ToString::to_string).collect()),
            None => {
                self.mark_panicked();
                None
            }
        };
        Ok(Observation {
            targets,
            transitions,
        })
    }

    fn mark_panicked(&self) {
        self.requests.mark_panicked();
    }
}

/// Whether request `id` is held by one of `targets`.
fn held_by(targets: &[Arc<dyn System>], id: u64) -> bool {
    targets.iter().any(|t| t.stats().held.contains(&id))
}

fn parse_code(text: &str) -> Result<Code, Failure> {
    text.parse::<Code>()
        .map_err(|e| Failure::BadPlan(e.to_string()))
}
