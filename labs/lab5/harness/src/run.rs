//! Carrying out a plan's actions against the gateway under test.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use fixture_partners::ScriptedPartners;
use fixture_script::{Activity, Behaviour};
use gateway_kit::{
    AlertLog, AlertSink, BreakerSettings, Clock, FakeClock, Flow, FlowSettings, Message, Outcome,
};
use grader_harness::{Driver, Failure, LookKeys, Requests};
use grader_protocol::{Plan, RequestOutcome, StuckRecord};

use crate::wire::{Action, FlowSnapshot, Observation, Settings, seen};
use crate::{BuildGateway, GatewayUnderTest};

/// What a look at a flow's circuit state showed while messages were blocked.
const LOOKED: LookKeys = LookKeys {
    readable: seen::STATE_READABLE,
    blocked: seen::STATE_BLOCKED,
    panicked: seen::STATE_PANICKED,
};

/// Lab 5's world: the fake clock, the scripted partners, the alert log and the gateway
/// under test.
pub struct World {
    clock: FakeClock,
    flows: Vec<Flow>,
    partners: ScriptedPartners,
    alerts: AlertLog,
    gateway: Arc<dyn GatewayUnderTest>,
    requests: Requests,
    /// Records and alerts already in the journal.
    seen: Cell<(usize, usize)>,
    journal: RefCell<Vec<String>>,
}

impl World {
    /// Builds the partners and the gateway `build` makes; a panic in it is caught by the
    /// caller.
    pub fn start(plan: &Plan<Settings, Action>, build: BuildGateway) -> World {
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
        let wiring = flows
            .iter()
            .zip(&plan.targets)
            .map(|(flow, t)| (flow.clone(), flow_settings(&t.settings)))
            .collect();
        let alerts = AlertLog::new();
        let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
        let sink: Arc<dyn AlertSink> = Arc::new(alerts.clone());
        let gateway = Arc::from(build(shared_clock, sink, partners.partners(), wiring));
        let now = {
            let clock = clock.clone();
            move || u64::try_from(clock.now().as_millis()).unwrap_or(u64::MAX)
        };
        World {
            clock,
            flows,
            partners,
            alerts,
            gateway,
            requests: Requests::new(Arc::new(activity), plan.stuck_after_ms).with_clock(now),
            seen: Cell::new((0, 0)),
            journal: RefCell::new(Vec::new()),
        }
    }
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

impl Driver for World {
    type Settings = Settings;
    type Action = Action;
    type Observation = Observation;

    fn now_ms(&self) -> u64 {
        u64::try_from(self.clock.now().as_millis()).unwrap_or(u64::MAX)
    }

    fn act(&mut self, action: &Action) -> Result<Vec<u64>, Failure> {
        match action {
            Action::Script { flow, answer } => {
                let behaviour = match answer.as_str() {
                    "hold" => Behaviour::Hold,
                    "panic" => Behaviour::Panic,
                    answer => Behaviour::Answer(parse_outcome(answer)?),
                };
                if self.partners.script(&self.flow(flow)?, behaviour) {
                    Ok(Vec::new())
                } else {
                    Err(Failure::BadPlan(format!("no endpoint for {flow}")))
                }
            }
            Action::Send { flow, count } => {
                let held = |id| self.partners.is_held(id);
                let call = self.call(flow)?;
                let sent = self.requests.one_after_another(*count, flow, call, &held);
                sent.map_err(|failure| self.seen(failure, flow))
            }
            Action::SendConcurrent { flow, count } => {
                let held = |id| self.partners.is_held(id);
                let call = self.call(flow)?;
                let sent = self.requests.together(*count, flow, call, &held);
                sent.map_err(|failure| self.seen(failure, flow))
            }
            Action::Release {
                flow,
                count,
                answer,
            } => {
                let outcome = parse_outcome(answer)?;
                let count = count.map_or(usize::MAX, |c| c as usize);
                let endpoint = self
                    .partners
                    .endpoint(&self.flow(flow)?)
                    .ok_or_else(|| Failure::BadPlan(format!("no endpoint for {flow}")))?;
                let mut ids = endpoint.release(count, outcome);
                ids.sort_unstable();
                self.settle(&ids, flow)?;
                Ok(ids)
            }
            Action::Advance { ms } => {
                self.clock.advance(Duration::from_millis(*ms));
                Ok(Vec::new())
            }
            Action::Observe => Ok(Vec::new()),
        }
    }

    fn outcomes(&self, ids: &[u64]) -> Vec<RequestOutcome> {
        self.requests.outcomes(ids, "held")
    }

    fn observe(&self) -> Observation {
        self.record().unwrap_or_else(|_| Observation {
            flows: Vec::new(),
            transitions: None,
            alerts: Vec::new(),
            journal: Vec::new(),
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

impl World {
    fn flow(&self, name: &str) -> Result<Flow, Failure> {
        self.flows
            .iter()
            .find(|f| f.to_string() == name)
            .cloned()
            .ok_or_else(|| Failure::BadPlan(format!("no flow named {name}")))
    }

    /// What a message on `flow` does: `Gateway::send`, its outcome in words.
    fn call(&self, flow: &str) -> Result<impl Fn(u64) -> String + Send + Sync + 'static, Failure> {
        let flow = self.flow(flow)?;
        let gateway = self.gateway.clone();
        Ok(move |id| gateway.send(&Message::new(id, flow.clone())).to_string())
    }

    /// Waits until each of `ids` has returned or is held by a partner's endpoint.
    fn settle(&self, ids: &[u64], flow: &str) -> Result<(), Failure> {
        self.requests
            .settle(ids, flow, &|id| self.partners.is_held(id))
            .map_err(|failure| self.seen(failure, flow))
    }

    /// A stuck failure with what was seen of the breaker's lock: when the messages are
    /// blocked for good, whether the flow's circuit state can still be read (if it can,
    /// what they wait for is not the breaker's lock).
    fn seen(&self, failure: Failure, flow: &str) -> Failure {
        let Ok(flow) = self.flow(flow) else {
            return failure;
        };
        let gateway = self.gateway.clone();
        let look = move || {
            gateway.circuit_state(&flow);
        };
        self.requests.look(failure, look, &LOOKED)
    }

    /// Every flow's circuit state and the transition records, read from the gateway on a
    /// thread of their own, then what the partners and the alert log saw after an action;
    /// or, when the read did not return (one of the gateway's locks is held), whether it
    /// blocked for good.
    fn record(&self) -> Result<Observation, bool> {
        let gateway = self.gateway.clone();
        let flows = self.flows.clone();
        let (states, transitions) = self.requests.read(move || {
            let states: Vec<_> = flows
                .iter()
                .map(|f| {
                    catch_unwind(AssertUnwindSafe(|| gateway.circuit_state(f)))
                        .ok()
                        .map(|state| state.map(|s| s.as_str().to_owned()))
                })
                .collect();
            let transitions = catch_unwind(AssertUnwindSafe(|| {
                gateway
                    .transitions()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            }))
            .ok();
            (states, transitions)
        })?;
        if states.iter().any(Option::is_none) || transitions.is_none() {
            self.requests.mark_panicked();
        }
        let flows = self
            .flows
            .iter()
            .zip(states)
            .map(|(flow, state)| self.snapshot(flow, state.flatten()))
            .collect();
        let alerts: Vec<String> = self
            .alerts
            .snapshot()
            .iter()
            .map(ToString::to_string)
            .collect();
        let journal = self.journal(transitions.as_deref().unwrap_or_default(), &alerts);
        Ok(Observation {
            flows,
            transitions,
            alerts,
            journal,
        })
    }

    /// A flow's snapshot: its circuit state as read (`None` when the read panicked or the
    /// flow is unknown), and what its partner saw.
    fn snapshot(&self, flow: &Flow, state: Option<String>) -> FlowSnapshot {
        let stats = self.partners.stats(flow).unwrap_or_default();
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

    /// The journal so far: records and alerts in the order the harness first saw them.
    fn journal(&self, transitions: &[String], alerts: &[String]) -> Vec<String> {
        let (records_seen, alerts_seen) = self.seen.get();
        let mut journal = self.journal.borrow_mut();
        journal.extend(transitions.iter().skip(records_seen).cloned());
        // Reports print each entry after `record: `; an alert reads `TIME alert: FLOW ...`.
        journal.extend(
            alerts
                .iter()
                .skip(alerts_seen)
                .map(|a| match a.split_once(' ') {
                    Some((time, rest)) => format!("{time} alert: {rest}"),
                    None => format!("alert: {a}"),
                }),
        );
        self.seen.set((
            transitions.len().max(records_seen),
            alerts.len().max(alerts_seen),
        ));
        journal.clone()
    }
}

fn parse_outcome(text: &str) -> Result<Outcome, Failure> {
    text.parse::<Outcome>()
        .map_err(|e| Failure::BadPlan(e.to_string()))
}
