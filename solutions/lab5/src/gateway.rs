//! The gateway: delivers each message to its partner through its flow's own breaker and
//! bulkhead.
//!
//! Every (partner, message type) flow gets a separate breaker and a separate bulkhead, so
//! a partner whose ORDERS endpoint is down still receives its invoices, and every other
//! partner notices nothing.

use std::collections::HashMap;
use std::sync::Arc;

use gateway_kit::{
    AlertSink, Clock, Flow, FlowSettings, Message, Outcome, Partner, State, Transition,
    TransitionLog, deliver,
};

use crate::{Breaker, Bulkhead};

/// Delivers messages to partners, protecting each flow separately.
pub struct Gateway {
    lanes: HashMap<Flow, Lane>,
    log: TransitionLog,
}

/// Everything that belongs to one flow.
struct Lane {
    partner: Arc<dyn Partner>,
    breaker: Breaker,
    bulkhead: Bulkhead,
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
        let lanes = flows
            .into_iter()
            .filter_map(|(flow, settings)| {
                let partner = partners.iter().find(|p| p.name() == flow.partner)?.clone();
                let breaker = Breaker::new(
                    flow.clone(),
                    settings.breaker,
                    clock.clone(),
                    log.clone(),
                    alerts.clone(),
                );
                let lane = Lane {
                    partner,
                    breaker,
                    bulkhead: Bulkhead::new(settings.max_concurrent),
                };
                Some((flow, lane))
            })
            .collect();
        Self { lanes, log }
    }

    /// Delivers one message and returns how it ended.
    ///
    /// The breaker decides first, so a message for an open circuit takes no bulkhead slot;
    /// then the bulkhead; then the partner. A message on a flow this gateway does not know
    /// is `Refused`: there is nothing to connect to.
    pub fn send(&self, message: &Message) -> Outcome {
        let Some(lane) = self.lanes.get(&message.flow) else {
            return Outcome::Refused;
        };
        lane.breaker.call(|| {
            lane.bulkhead
                .call(|| deliver(lane.partner.as_ref(), message))
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use gateway_kit::{AlertLog, FakeClock};

    /// A partner whose ORDERS endpoint is down and whose other endpoints work.
    struct OrdersDown(&'static str);

    impl Partner for OrdersDown {
        fn name(&self) -> &str {
            self.0
        }
        fn send(&self, message: &Message) -> Outcome {
            match message.flow.message_type.as_str() {
                "ORDERS" => Outcome::Timeout,
                _ => Outcome::Status(200),
            }
        }
    }

    #[test]
    fn each_flow_has_its_own_circuit() {
        let flows = ["acme/ORDERS", "acme/INVOIC", "globex/ORDERS"]
            .map(|f| (f.parse::<Flow>().unwrap(), FlowSettings::default()));
        let gateway = Gateway::new(
            Arc::new(FakeClock::new()),
            Arc::new(AlertLog::new()),
            vec![Arc::new(OrdersDown("acme")), Arc::new(OrdersDown("globex"))],
            flows.to_vec(),
        );
        let [orders, invoices, other] = flows.map(|(flow, _)| flow);
        for id in 0..10 {
            assert_eq!(
                gateway.send(&Message::new(id, orders.clone())),
                Outcome::Timeout
            );
        }
        assert_eq!(gateway.circuit_state(&orders), Some(State::Open));
        assert_eq!(
            gateway.send(&Message::new(10, orders.clone())),
            Outcome::CircuitOpen
        );
        assert_eq!(
            gateway.send(&Message::new(11, invoices.clone())),
            Outcome::Status(200)
        );
        assert_eq!(gateway.circuit_state(&invoices), Some(State::Closed));
        assert_eq!(gateway.circuit_state(&other), Some(State::Closed));
        let unknown = Flow::new("initech", "ORDERS");
        assert_eq!(gateway.circuit_state(&unknown), None);
        assert_eq!(gateway.send(&Message::new(12, unknown)), Outcome::Refused);
        assert_eq!(gateway.transitions().len(), 1);
    }
}
