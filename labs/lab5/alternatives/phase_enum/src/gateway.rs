//! The gateway: lanes kept in a list sorted by flow.

use std::sync::Arc;

use gateway_kit::{
    AlertSink, Clock, Flow, FlowSettings, Message, Outcome, Partner, State, Transition,
    TransitionLog, deliver,
};

use crate::{Breaker, Bulkhead};

/// Delivers messages to partners, protecting each flow separately.
pub struct Gateway {
    lanes: Vec<(Flow, Lane)>,
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
        let log = TransitionLog::new();
        let mut lanes = Vec::new();
        for (flow, settings) in flows {
            let Some(partner) = partners.iter().find(|p| p.name() == flow.partner) else {
                continue;
            };
            let breaker = Breaker::new(
                flow.clone(),
                settings.breaker,
                Arc::clone(&clock),
                log.clone(),
                Arc::clone(&alerts),
            );
            let lane = Lane {
                partner: Arc::clone(partner),
                breaker,
                bulkhead: Bulkhead::new(settings.max_concurrent),
            };
            lanes.push((flow, lane));
        }
        lanes.sort_by(|a, b| a.0.cmp(&b.0));
        Self { lanes, log }
    }

    fn lane(&self, flow: &Flow) -> Option<&Lane> {
        let at = self.lanes.binary_search_by(|(f, _)| f.cmp(flow)).ok()?;
        Some(&self.lanes[at].1)
    }

    /// Delivers one message: breaker, then bulkhead, then the partner.
    pub fn send(&self, message: &Message) -> Outcome {
        match self.lane(&message.flow) {
            None => Outcome::Refused,
            Some(lane) => lane.breaker.call(|| {
                lane.bulkhead
                    .call(|| deliver(lane.partner.as_ref(), message))
            }),
        }
    }

    /// The state of `flow`'s breaker, or `None` for a flow this gateway does not know.
    pub fn circuit_state(&self, flow: &Flow) -> Option<State> {
        Some(self.lane(flow)?.breaker.state())
    }

    /// Every breaker transition so far, across all flows, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
