//! Carrying out a plan's actions against the relay under test.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Barrier, Mutex, PoisonError};
use std::time::Duration;

use fixture_targets::{Activity, Behaviour, ScriptedTarget};
use grader_harness::{Driver, Failure};
use grader_protocol::{Plan, RequestOutcome, StuckRecord};
use relay_kit::{BreakerConfig, Clock, Code, FakeClock, Request, Target, TargetConfig};

use crate::wire::{Action, Observation, Settings, TargetSnapshot};
use crate::{BuildRelay, RelayUnderTest};

/// How one request thread ended, once it has.
#[derive(Clone, Copy)]
enum Ended {
    Returned(Code),
    Panicked,
}

/// A request sent during the run, and where its result will appear.
struct Sent {
    id: u64,
    result: Arc<Mutex<Option<Ended>>>,
}

/// Sets a request's result even if the relay panics, and announces it.
struct Finish {
    result: Arc<Mutex<Option<Ended>>>,
    activity: Activity,
}

impl Drop for Finish {
    fn drop(&mut self) {
        let mut slot = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(Ended::Panicked);
        }
        drop(slot);
        self.activity.bump();
    }
}

/// Lab 4's world: the fake clock, the scripted targets and the relay under test.
pub struct World {
    clock: FakeClock,
    activity: Activity,
    targets: Vec<Arc<ScriptedTarget>>,
    relay: Arc<dyn RelayUnderTest>,
    sent: Vec<Sent>,
    next_id: u64,
    stuck_after: Duration,
    stuck_after_ms: u64,
    panicked: Arc<Mutex<bool>>,
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
            activity,
            targets,
            relay,
            sent: Vec::new(),
            next_id: 1,
            stuck_after: Duration::from_millis(plan.stuck_after_ms),
            stuck_after_ms: plan.stuck_after_ms,
            panicked: Arc::new(Mutex::new(false)),
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
        ids.iter()
            .map(|&id| RequestOutcome {
                id,
                outcome: match self.ended(id) {
                    Some(Ended::Returned(code)) => code.as_str().to_owned(),
                    Some(Ended::Panicked) => "panicked".to_owned(),
                    None => "held".to_owned(),
                },
            })
            .collect()
    }

    fn observe(&self) -> Observation {
        self.record()
    }

    fn panicked(&self) -> bool {
        *self.panicked.lock().unwrap_or_else(PoisonError::into_inner)
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
                let mut ids = Vec::new();
                for _ in 0..*count {
                    let id = self.spawn(target, None)?;
                    self.settle(&[id], target)?;
                    ids.push(id);
                }
                Ok(ids)
            }
            Action::SendConcurrent { target, count } => {
                // Every request thread waits at the gate until all of them are ready, then
                // they call the relay at the same instant: as much contention as threads
                // can make, so a race between "may I go?" and "I am going" shows up.
                let gate = Arc::new(Barrier::new(*count as usize + 1));
                let ids = (0..*count)
                    .map(|_| self.spawn(target, Some(gate.clone())))
                    .collect::<Result<Vec<_>, _>>()?;
                gate.wait();
                self.settle(&ids, target)?;
                Ok(ids)
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

    /// Starts one request on its own thread; with a `gate`, the request waits there until
    /// every request of its batch has started.
    fn spawn(&mut self, target: &str, gate: Option<Arc<Barrier>>) -> Result<u64, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        let result = Arc::new(Mutex::new(None));
        let finish = Finish {
            result: result.clone(),
            activity: self.activity.clone(),
        };
        let relay = self.relay.clone();
        let panicked = self.panicked.clone();
        let request = Request::new(id, target);
        std::thread::Builder::new()
            .name(format!("request-{id}"))
            .spawn(move || {
                let finish = finish;
                if let Some(gate) = gate {
                    gate.wait();
                }
                let code = catch_unwind(AssertUnwindSafe(|| relay.handle(&request)));
                let ended = match code {
                    Ok(code) => Ended::Returned(code),
                    Err(_) => {
                        *panicked.lock().unwrap_or_else(PoisonError::into_inner) = true;
                        Ended::Panicked
                    }
                };
                *finish.result.lock().unwrap_or_else(PoisonError::into_inner) = Some(ended);
            })
            .map_err(|e| Failure::BadPlan(format!("cannot start a request thread: {e}")))?;
        self.sent.push(Sent { id, result });
        Ok(id)
    }

    /// Waits until each of `ids` has returned or is held by a target.
    fn settle(&self, ids: &[u64], target: &str) -> Result<(), Failure> {
        let settled = |id: u64| self.ended(id).is_some() || self.is_held(id);
        let ok = self
            .activity
            .wait_for(self.stuck_after, || ids.iter().all(|&id| settled(id)));
        if ok {
            return Ok(());
        }
        let stuck = ids.iter().copied().filter(|&id| !settled(id)).collect();
        Err(Failure::Stuck(StuckRecord {
            step: 0,
            at_ms: 0,
            requests: stuck,
            sent: ids.len() as u64,
            target: target.to_owned(),
            waited_ms: self.stuck_after_ms,
        }))
    }

    fn ended(&self, id: u64) -> Option<Ended> {
        let sent = self.sent.iter().find(|s| s.id == id)?;
        *sent.result.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_held(&self, id: u64) -> bool {
        self.targets.iter().any(|t| t.stats().held.contains(&id))
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
        *self.panicked.lock().unwrap_or_else(PoisonError::into_inner) = true;
    }
}

fn parse_code(text: &str) -> Result<Code, Failure> {
    text.parse::<Code>()
        .map_err(|e| Failure::BadPlan(e.to_string()))
}
