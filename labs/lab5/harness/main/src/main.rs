//! The lab 5 harness program: the harness library, linked with one crate under test.
//!
//! The grader compiles this file once per crate it grades, with `edi_gateway` pointing at
//! that crate, so it stays as small as possible: it only adapts `edi_gateway::Gateway` to
//! the harness's [`GatewayUnderTest`].

use gateway_kit::{Flow, Message, Outcome, State, Transition};
use lab5_harness::GatewayUnderTest;

struct UnderTest(edi_gateway::Gateway);

impl GatewayUnderTest for UnderTest {
    fn send(&self, message: &Message) -> Outcome {
        self.0.send(message)
    }

    fn circuit_state(&self, flow: &Flow) -> Option<State> {
        self.0.circuit_state(flow)
    }

    fn transitions(&self) -> Vec<Transition> {
        self.0.transitions()
    }
}

fn main() {
    lab5_harness::main(|clock, alerts, partners, flows| {
        Box::new(UnderTest(edi_gateway::Gateway::new(
            clock, alerts, partners, flows,
        )))
    })
}
