//! One schedule: the plan's actions against a fresh gateway, fresh partners, a fresh alert
//! log and a fresh fake clock, all on the runtime.
//!
//! As in the normal harness, every step waits until each message it started has returned
//! or is held inside a partner's endpoint, and every flow is recorded after each step.
//! Nothing here waits in real time: a message that can never return leaves every thread
//! waiting, and the runtime stops the schedule as a deadlock.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use fixture_partners::ScriptedPartners;
use fixture_script::{Activity, Behaviour};
use gateway_kit::{
    AlertLog, AlertSink, BreakerSettings, Clock, FakeClock, Flow, FlowSettings, Message, Outcome,
    Partner,
};
use grader_protocol::{RequestOutcome, StepRecord};
use lab5_harness::wire::{Action, FlowSnapshot, Observation, Settings};
use race_explore::output::{self, Event, push, push_step, set_step};
use race_explore::requests::Requests;
use race_std::sync::Arc;
use race_std::trace;

use crate::monitor::{self, Watched, WatchedSink};
use crate::{BuildGateway, GatewayUnderTest, Plan};

struct World {
    clock: FakeClock,
    activity: Activity,
    flows: Vec<Flow>,
    partners: ScriptedPartners,
    alerts: AlertLog,
    gateway: Arc<dyn GatewayUnderTest>,
    requests: Requests<Outcome>,
    /// Records and alerts already in the journal, and the journal.
    seen: (usize, usize),
    journal: Vec<String>,
}

/// The gateway's settings for one flow, from the plan's.
fn flow_settings(s: &Settings) -> FlowSettings {
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    FlowSettings {
        breaker: BreakerSettings {
            window: count(s.window),
            minimum_calls: count(s.minimum_calls),
            failure_rate_percent: u32::try_from(s.failure_rate_percent).unwrap_or(u32::MAX),
            max_age: s.max_age_ms.map(Duration::from_millis),
            open_for: Duration::from_millis(s.open_for_ms),
            probes: count(s.probes),
        },
        max_concurrent: count(s.max_concurrent),
    }
}

/// Runs the plan once, on the schedule the explorer is choosing now. The events (steps,
/// panics) go to the schedule's buffer.
pub fn run(plan: &Plan, build: BuildGateway) {
    push(Event::Ready);
    let clock = FakeClock::new();
    let activity = Activity::new();
    // The grader checked every name against the lab; a name that still does not parse
    // gets a flow of its own that no message is ever sent on.
    let flows: Vec<Flow> = plan
        .targets
        .iter()
        .map(|t| {
            t.name
                .parse()
                .unwrap_or_else(|_| Flow::new(t.name.clone(), "?"))
        })
        .collect();
    let partners = ScriptedPartners::new(&flows, &activity);
    let limits: BTreeMap<String, (u64, u64)> = flows
        .iter()
        .zip(&plan.targets)
        .map(|(flow, t)| {
            let s = &t.settings;
            (flow.to_string(), (s.max_concurrent, s.probes))
        })
        .collect();
    monitor::set_limits(limits);
    let watched: Vec<Arc<dyn Partner>> = partners
        .partners()
        .into_iter()
        .map(|p| Arc::new(Watched::new(p)) as Arc<dyn Partner>)
        .collect();
    let wiring = flows
        .iter()
        .zip(&plan.targets)
        .map(|(flow, t)| (flow.clone(), flow_settings(&t.settings)))
        .collect();
    let alerts = AlertLog::new();
    let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
    let sink: Arc<dyn AlertSink> = Arc::new(WatchedSink::new(alerts.clone()));
    let Ok(gateway) = catch_unwind(AssertUnwindSafe(|| {
        build(shared_clock, sink, watched, wiring)
    })) else {
        return;
    };
    let mut world = World {
        clock,
        activity,
        flows,
        partners,
        alerts,
        gateway: Arc::from(gateway),
        requests: Requests::default(),
        seen: (0, 0),
        journal: Vec::new(),
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
        let panicked = world.requests.panicked() || output::has_panic();
        monitor::after_step(!panicked);
        if panicked {
            world.wind_down(plan.actions.len());
            return;
        }
    }
    set_step(None);
    push(Event::Finished);
    world.wind_down(plan.actions.len());
}

fn now_ms(clock: &FakeClock) -> u64 {
    u64::try_from(clock.now().as_millis()).unwrap_or(u64::MAX)
}

fn outcome(text: &str) -> Outcome {
    // The grader refused the answers an endpoint never gives.
    text.parse().unwrap_or(Outcome::Status(500))
}

impl World {
    /// Carries out one action; returns the ids of the messages it concerns. The grader
    /// checked the plan, so a flow it names exists.
    fn act(&mut self, action: &Action) -> Vec<u64> {
        match action {
            Action::Script { flow, answer } => {
                let behaviour = match answer.as_str() {
                    "hold" => Behaviour::Hold,
                    "panic" => Behaviour::Panic,
                    answer => Behaviour::Answer(outcome(answer)),
                };
                if let Some(flow) = self.flow(flow) {
                    self.partners.script(&flow, behaviour);
                }
                Vec::new()
            }
            Action::Send { flow, count } => {
                let mut ids = Vec::new();
                for _ in 0..*count {
                    let id = self.spawn(flow);
                    self.settle(&[id]);
                    ids.push(id);
                }
                ids
            }
            Action::SendConcurrent { flow, count } => {
                let ids: Vec<u64> = (0..*count).map(|_| self.spawn(flow)).collect();
                self.settle(&ids);
                ids
            }
            Action::Release {
                flow,
                count,
                answer,
            } => {
                let count = count.map_or(usize::MAX, |c| c as usize);
                let mut ids = match self.flow(flow).and_then(|f| self.partners.endpoint(&f)) {
                    Some(endpoint) => endpoint.release(count, outcome(answer)),
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

    fn flow(&self, name: &str) -> Option<Flow> {
        self.flows.iter().find(|f| f.to_string() == name).cloned()
    }

    /// Starts one message on a thread of its own.
    fn spawn(&mut self, flow: &str) -> u64 {
        let gateway = self.gateway.clone();
        let activity = self.activity.clone();
        let to = self
            .flow(flow)
            .unwrap_or_else(|| Flow::new(flow.to_owned(), "?"));
        let message = Message::new(self.requests.next_id(), to);
        self.requests.spawn(
            "message",
            flow,
            move || gateway.send(&message),
            ToString::to_string,
            move || activity.bump(),
        )
    }

    /// Waits until each of `ids` has returned or is held by a partner's endpoint.
    fn settle(&self, ids: &[u64]) {
        self.activity.wait(|| {
            ids.iter()
                .all(|&id| self.requests.ended(id).is_some() || self.partners.is_held(id))
        });
    }

    /// Lets every held call go and waits for every message to return: a message that
    /// cannot leaves every thread waiting, which the runtime reports. For the record this
    /// is step `after_last`, one past the plan's last.
    fn wind_down(&mut self, after_last: usize) {
        trace::note("step", after_last as u64, "");
        for flow in &self.flows {
            if let Some(endpoint) = self.partners.endpoint(flow) {
                endpoint.release(usize::MAX, Outcome::Status(200));
            }
        }
        self.requests.join_all();
        monitor::after_step(!self.requests.panicked() && !output::has_panic());
    }

    /// What an action produced, and every flow after it.
    fn record(&mut self, step: usize, at_ms: u64, ids: &[u64]) -> StepRecord<Observation> {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        let requests = ids
            .iter()
            .map(|&id| RequestOutcome {
                id,
                outcome: self.requests.outcome(id, ToString::to_string),
            })
            .collect();
        let flows = self.flows.iter().map(|flow| self.snapshot(flow)).collect();
        let transitions = catch_unwind(AssertUnwindSafe(|| self.gateway.transitions()))
            .ok()
            .map(|list| list.iter().map(ToString::to_string).collect::<Vec<_>>());
        let alerts: Vec<String> = self
            .alerts
            .snapshot()
            .iter()
            .map(ToString::to_string)
            .collect();
        let journal = self.journal(transitions.as_deref().unwrap_or_default(), &alerts);
        StepRecord {
            step,
            at_ms,
            requests,
            observation: Observation {
                flows,
                transitions,
                alerts,
                journal,
            },
        }
    }

    fn snapshot(&self, flow: &Flow) -> FlowSnapshot {
        let stats = self.partners.stats(flow).unwrap_or_default();
        let state = catch_unwind(AssertUnwindSafe(|| self.gateway.circuit_state(flow)))
            .ok()
            .flatten()
            .map(|s| s.as_str().to_owned());
        FlowSnapshot {
            name: flow.to_string(),
            state,
            calls: stats.calls,
            in_flight: stats.in_flight,
            peak: stats.peak_in_flight,
            answered: stats
                .answered
                .iter()
                .map(|(outcome, n)| (outcome.to_string(), *n))
                .collect(),
        }
    }

    /// The journal so far: records and alerts in the order the harness first saw them,
    /// as the normal harness keeps it.
    fn journal(&mut self, transitions: &[String], alerts: &[String]) -> Vec<String> {
        let (records_seen, alerts_seen) = self.seen;
        self.journal
            .extend(transitions.iter().skip(records_seen).cloned());
        self.journal.extend(
            alerts
                .iter()
                .skip(alerts_seen)
                .map(|a| match a.split_once(' ') {
                    Some((time, rest)) => format!("{time} alert: {rest}"),
                    None => format!("alert: {a}"),
                }),
        );
        self.seen = (
            transitions.len().max(records_seen),
            alerts.len().max(alerts_seen),
        );
        self.journal.clone()
    }
}
