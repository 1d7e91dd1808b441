//! The gateway: delivers each message to its partner.
//!
//! Your job: give every (partner, message type) flow its own breaker and its own bulkhead,
//! and send each message through them. A partner whose ORDERS endpoint is down must still
//! receive its invoices, and every other partner must notice nothing.

use std::collections::HashMap;
use std::sync::Arc;

use gateway_kit::{
    AlertSink, Clock, Flow, FlowSettings, Message, Outcome, Partner, State, Transition,
    TransitionLog,
};

/// Delivers messages to partners, protecting each flow separately.
pub struct Gateway {
    lanes: HashMap<Flow, Lane>,
    log: TransitionLog,
}

/// Everything that belongs to one flow.
struct Lane {
    partner: Arc<dyn Partner>,
    // TODO(lab5): this flow's own breaker and bulkhead.
}

impl Gateway {
    /// A gateway for `flows`, each with its settings, delivering to `partners` (matched by
    /// name). Breakers read time from `clock` and send alerts to `alerts`. A flow whose
    /// partner is not among `partners` gets no lane: its messages are `Refused`.
    pub fn new(
        clock: Arc<dyn Clock>,
        alerts: Arc<dyn AlertSink>,
        partners: Vec<Arc<dyn Partner>>,
        flows: Vec<(Flow, FlowSettings)>,
    ) -> Self {
        let log = TransitionLog::new();
        // TODO(lab5): one lane per flow, keyed by the flow: its partner (the one in
        // `partners` whose name is `flow.partner`), a Breaker for this flow alone (with
        // `settings.breaker`, `clock`, this `log` and `alerts`) and a Bulkhead (with
        // `settings.max_concurrent`). Then `Self { lanes, log }`.
        let _ = (clock, alerts, partners, flows, log);
        todo!("lab 5: build one lane per flow in Gateway::new")
    }

    /// Delivers one message and returns how it ended. A message on a flow this gateway
    /// does not know is `Refused`: there is nothing to connect to.
    pub fn send(&self, message: &Message) -> Outcome {
        let Some(lane) = self.lanes.get(&message.flow) else {
            return Outcome::Refused;
        };
        // TODO(lab5): ask the breaker first (a CircuitOpen must not take a bulkhead slot),
        // then the bulkhead, then deliver. Unprotected, the delivery would be:
        //     gateway_kit::deliver(lane.partner.as_ref(), message)
        let _ = lane.partner.as_ref();
        todo!("lab 5: send the message through its breaker and bulkhead in Gateway::send")
    }

    /// The state of `flow`'s breaker, or `None` for a flow this gateway does not know.
    pub fn circuit_state(&self, flow: &Flow) -> Option<State> {
        let _ = self.lanes.get(flow)?;
        // TODO(lab5): ask this flow's breaker.
        todo!("lab 5: report the circuit state in Gateway::circuit_state")
    }

    /// Every breaker transition so far, across all flows, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
