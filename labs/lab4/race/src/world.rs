//! One schedule: the plan's actions against a fresh relay, fresh targets and a fresh fake
//! clock, all on the runtime.
//!
//! As in the normal harness, every step waits until each request it started has returned
//! or is held inside a target, and the state of every target is recorded after each step.
//! Nothing here waits in real time: a request that can never return leaves every thread
//! waiting, and the runtime stops the schedule as a deadlock.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use fixture_claims::Claims;
use fixture_core_banking::CoreBanking;
use fixture_targets::{Activity, Behaviour, ScriptedTarget, System};
use grader_protocol::{RequestOutcome, StepRecord};
use lab4_harness::wire::{Action, Observation, TargetSnapshot};
use race_explore::output::{self, Event, push, push_step, set_step};
use race_explore::requests::Requests;
use race_std::sync::Arc;
use race_std::trace;
use relay_kit::{BreakerConfig, Clock, Code, FakeClock, Request, Target, TargetConfig};

use crate::monitor::Watched;
use crate::{BuildRelay, Plan, RelayUnderTest};

struct World {
    clock: FakeClock,
    activity: Activity,
    targets: Vec<Arc<dyn System>>,
    relay: Arc<dyn RelayUnderTest>,
    requests: Requests<Code>,
}

/// The mock system a target of the plan is, as in the normal harness.
fn system(name: &str, activity: &Activity) -> Arc<dyn System> {
    match name {
        fixture_core_banking::NAME => Arc::new(CoreBanking::new(activity.clone())),
        fixture_claims::NAME => Arc::new(Claims::new(activity.clone())),
        _ => Arc::new(ScriptedTarget::new(name, activity.clone())),
    }
}

/// Runs the plan once, on the schedule the explorer is choosing now. The events (steps,
/// panics) go to the schedule's buffer.
pub fn run(plan: &Plan, build: BuildRelay) {
    push(Event::Ready);
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
            let settings = &t.settings;
            let config = TargetConfig {
                breaker: BreakerConfig {
                    failure_threshold: settings.failure_threshold,
                    retry_after: Duration::from_millis(settings.retry_after_ms),
                },
                max_concurrent: usize::try_from(settings.max_concurrent).unwrap_or(usize::MAX),
            };
            let watched = Watched::new(target.clone().into_target(), settings.max_concurrent);
            (Arc::new(watched) as Arc<dyn Target>, config)
        })
        .collect();
    crate::monitor::set_limits(
        plan.targets
            .iter()
            .map(|t| (t.name.clone(), t.settings.max_concurrent))
            .collect(),
    );
    let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
    let Ok(relay) = catch_unwind(AssertUnwindSafe(|| build(shared_clock, wiring))) else {
        return;
    };
    let mut world = World {
        clock,
        activity,
        targets,
        relay: Arc::from(relay),
        requests: Requests::default(),
    };
    for (step, action) in plan.actions.iter().enumerate() {
        set_step(Some(step));
        let at_ms = now_ms(&world.clock);
        trace::note("step", step as u64, "");
        push(Event::Begin { step, at_ms });
        let ids = world.act(action);
        push(Event::Observing { step });
        let record = world.record(step, at_ms, &ids);
        push_step(record);
        crate::monitor::after_step();
        if world.requests.panicked() || output::has_panic() {
            world.wind_down(plan.actions.len());
            return;
        }
    }
    set_step(None);
    push(Event::Finished);
    world.wind_down(plan.actions.len());
}

fn code_text(code: &Code) -> String {
    code.as_str().to_owned()
}

fn now_ms(clock: &FakeClock) -> u64 {
    u64::try_from(clock.now().as_millis()).unwrap_or(u64::MAX)
}

impl World {
    /// Carries out one action; returns the ids of the requests it concerns. The grader
    /// checked the plan, so a target or code it names exists.
    fn act(&mut self, action: &Action) -> Vec<u64> {
        match action {
            Action::Script { target, answer } => {
                let behaviour = match answer.as_str() {
                    "hold" => Behaviour::Hold,
                    "panic" => Behaviour::Panic,
                    code => Behaviour::Answer(code.parse().unwrap_or(Code::E500)),
                };
                // The grader refused the answers a system never gives.
                if let Some(t) = self.target(target) {
                    let _ = t.script(behaviour);
                }
                Vec::new()
            }
            Action::Send { target, count } => {
                let mut ids = Vec::new();
                for _ in 0..*count {
                    let id = self.spawn(target);
                    self.settle(&[id]);
                    ids.push(id);
                }
                ids
            }
            Action::SendConcurrent { target, count } => {
                let ids: Vec<u64> = (0..*count).map(|_| self.spawn(target)).collect();
                self.settle(&ids);
                ids
            }
            Action::Release {
                target,
                count,
                answer,
            } => {
                let code = answer.parse().unwrap_or(Code::E500);
                let count = count.map_or(usize::MAX, |c| c as usize);
                let mut ids = match self.target(target) {
                    Some(t) => t.release(count, code).unwrap_or_default(),
                    None => Vec::new(),
                };
                ids.sort_unstable();
                self.settle(&ids);
                ids
            }
            Action::Advance { ms } => {
                self.clock.advance(Duration::from_millis(*ms));
                Vec::new()
            }
            Action::Observe => Vec::new(),
        }
    }

    fn target(&self, name: &str) -> Option<&dyn System> {
        self.targets
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    /// Starts one request on a thread of its own.
    fn spawn(&mut self, target: &str) -> u64 {
        let relay = self.relay.clone();
        let activity = self.activity.clone();
        let request = Request::new(self.requests.next_id(), target);
        self.requests.spawn(
            "request",
            target,
            move || relay.handle(&request),
            code_text,
            move || activity.bump(),
        )
    }

    /// Waits until each of `ids` has returned or is held by a target.
    fn settle(&self, ids: &[u64]) {
        self.activity.wait(|| {
            // Each target's counters read once per look, not once per request.
            let mut held: Option<Vec<u64>> = None;
            ids.iter().all(|&id| {
                self.requests.ended(id).is_some()
                    || held.get_or_insert_with(|| self.held()).contains(&id)
            })
        });
    }

    /// The requests held by a target right now.
    fn held(&self) -> Vec<u64> {
        self.targets.iter().flat_map(|t| t.stats().held).collect()
    }

    /// Lets every held call go and waits for every request to return: a request that
    /// cannot leaves every thread waiting, which the runtime reports. For the record this
    /// is step `after_last`, one past the plan's last.
    fn wind_down(&mut self, after_last: usize) {
        trace::note("step", after_last as u64, "");
        for t in &self.targets {
            t.engine().release(usize::MAX, Code::Ok);
        }
        self.requests.join_all();
    }

    /// What an action produced, and the state of every target after it.
    fn record(&self, step: usize, at_ms: u64, ids: &[u64]) -> StepRecord<Observation> {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        let requests = ids
            .iter()
            .map(|&id| RequestOutcome {
                id,
                outcome: self.requests.outcome(id, code_text),
            })
            .collect();
        let targets = self
            .targets
            .iter()
            .map(|t| {
                let stats = t.stats();
                let state = catch_unwind(AssertUnwindSafe(|| self.relay.breaker_state(t.name())))
                    .ok()
                    .flatten()
                    .map(|s| s.as_str().to_owned());
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
        let transitions = catch_unwind(AssertUnwindSafe(|| self.relay.transitions()))
            .ok()
            .map(|list| list.iter().map(ToString::to_string).collect());
        StepRecord {
            step,
            at_ms,
            requests,
            observation: Observation {
                targets,
                transitions,
            },
        }
    }
}
