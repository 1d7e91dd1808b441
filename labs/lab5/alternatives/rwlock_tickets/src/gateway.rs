//! The gateway: partners found by name, lanes in a map.

use std::collections::HashMap;
use std::sync::Arc;

use gateway_kit::{
    AlertSink, Clock, Flow, FlowSettings, Message, Outcome, Partner, State, Transition,
    TransitionLog, deliver,
};

use crate::{Breaker, Bulkhead};

/// Delivers messages to partners, protecting each flow separately.
pub struct Gateway {
    lanes: HashMap<Flow, Arc<Lane>>,
    log: TransitionLog,
}

struct Lane {
    partner: Arc<dyn Partner>,
    breaker: Breaker,
    bulkhead: Bulkhead,
}

impl Gateway {
    /// A gateway for `flows`, delivering to `partners` (matched by name).
    pub fn new(
        clock: Arc<dyn Clock>,
        alerts: Arc<dyn AlertSink>,
        partners: Vec<Arc<dyn Partner>>,
        flows: Vec<(Flow, FlowSettings)>,
    ) -> Self {
        let by_name: HashMap<String, Arc<dyn Partner>> = partners
            .into_iter()
            .map(|p| (p.name().to_owned(), p))
            .collect();
        let log = TransitionLog::new();
        let mut lanes = HashMap::new();
        for (flow, settings) in flows {
            if let Some(partner) = by_name.get(&flow.partner) {
                let lane = Lane {
                    partner: partner.clone(),
                    breaker: Breaker::new(
                        flow.clone(),
                        settings.breaker,
                        clock.clone(),
                        log.clone(),
                        alerts.clone(),
                    ),
                    bulkhead: Bulkhead::new(settings.max_concurrent),
                };
                lanes.insert(flow, Arc::new(lane));
            }
        }
        Self { lanes, log }
    }

    /// Delivers one message: breaker, then bulkhead, then the partner.
    pub fn send(&self, message: &Message) -> Outcome {
        let Some(lane) = self.lanes.get(&message.flow).cloned() else {
            return Outcome::Refused;
        };
        let deliver_it = || deliver(lane.partner.as_ref(), message);
        lane.breaker.call(|| lane.bulkhead.call(deliver_it))
    }

    /// The state of `flow`'s breaker, or `None` for a flow this gateway does not know.
    pub fn circuit_state(&self, flow: &Flow) -> Option<State> {
        self.lanes.get(flow).map(|lane| lane.breaker.state())
    }

    /// Every breaker transition so far, across all flows, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
