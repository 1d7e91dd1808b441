//! Carrying out a plan's actions against the relay under test.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use fixture_targets::{Activity, Behaviour, ScriptedTarget};
use grader_harness::{Driver, Failure, Requests};
use grader_protocol::{Plan, RequestOutcome};
use relay_kit::{BreakerConfig, Clock, Code, FakeClock, Request, Target, TargetConfig};

use crate::wire::{Action, Observation, Settings, TargetSnapshot};
use crate::{BuildRelay, RelayUnderTest};

/// Lab 4's world: the fake clock, the scripted targets and the relay under test.
pub struct World {
    clock: FakeClock,
    targets: Vec<Arc<ScriptedTarget>>,
    relay: Arc<dyn RelayUnderTest>,
    requests: Requests,
}

impl World {
    /// Builds the targets and the relay `build` makes; a panic in it is caught by the
    /// caller.
    pub fn start(plan: &Plan<Settings, Action>, build: BuildRelay) -> World {
        let clock = FakeClock::new();
        let activity = Activity::new();
        let targets: Vec<Arc<ScriptedTarget>> = plan
            .targets
            .iter()
            .map(|t| Arc::new(ScriptedTarget::new(&t.name, activity.clone())))
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
                (target.clone() as Arc<dyn Target>, config)
            })
            .collect();
        let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
        let relay = Arc::from(build(shared_clock, wiring));
        World {
            clock,
            targets,
            relay,
            requests: Requests::new(Arc::new(activity), plan.stuck_after_ms),
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
        self.record()
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
                self.target(target)?.script(behaviour);
                Ok(Vec::new())
            }
            Action::Send { target, count } => {
                let held = |id| held_by(&self.targets, id);
                let call = self.call(target);
                self.requests.one_after_another(*count, target, call, &held)
            }
            Action::SendConcurrent { target, count } => {
                let held = |id| held_by(&self.targets, id);
                let call = self.call(target);
                self.requests.together(*count, target, call, &held)
            }
            Action::Release {
                target,
                count,
                answer,
            } => {
                let code = parse_code(answer)?;
                let count = count.map_or(usize::MAX, |c| c as usize);
                let mut ids = self.target(target)?.release(count, code);
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

    fn target(&self, name: &str) -> Result<&ScriptedTarget, Failure> {
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

    /// Waits until each of `ids` has returned or is held by a target.
    fn settle(&self, ids: &[u64], target: &str) -> Result<(), Failure> {
        self.requests
            .settle(ids, target, &|id| held_by(&self.targets, id))
    }

    /// The state of every target, and the transition records, after an action.
    fn record(&self) -> Observation {
        let targets = self
            .targets
            .iter()
            .map(|t| {
                let stats = t.stats();
                let state = catch_unwind(AssertUnwindSafe(|| self.relay.breaker_state(t.name())));
                let state = match state {
                    Ok(state) => state.map(|s| s.as_str().to_owned()),
                    Err(_) => {
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
        let transitions = match catch_unwind(AssertUnwindSafe(|| self.relay.transitions())) {
            Ok(list) => Some(list.iter().map(ToString::to_string).collect()),
            Err(_) => {
                self.mark_panicked();
                None
            }
        };
        Observation {
            targets,
            transitions,
        }
    }

    fn mark_panicked(&self) {
        self.requests.mark_panicked();
    }
}

/// Whether request `id` is held by one of `targets`.
fn held_by(targets: &[Arc<ScriptedTarget>], id: u64) -> bool {
    targets.iter().any(|t| t.stats().held.contains(&id))
}

fn parse_code(text: &str) -> Result<Code, Failure> {
    text.parse::<Code>()
        .map_err(|e| Failure::BadPlan(e.to_string()))
}
