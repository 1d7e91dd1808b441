//! The lab 5 harness program: the harness library, linked with one crate under test.
//!
//! The grader compiles this file once per crate it grades, with `edi_gateway` pointing at
//! that crate, so it stays as small as possible: it only adapts `edi_gateway::Gateway` to
//! the harness's [`GatewayUnderTest`].

use gateway_kit::{Flow, Message, Outcome, State, Transition};
use lab5_harness::GatewayUnderTest;

lab5_harness::under_test! {
    struct UnderTest(edi_gateway::Gateway);
    impl GatewayUnderTest {
        fn send(&self, message: &Message) -> Outcome;
        fn circuit_state(&self, flow: &Flow) -> Option<State>;
        fn transitions(&self) -> Vec<Transition>;
    }
}

fn main() {
    lab5_harness::main(|clock, alerts, partners, flows| {
        Box::new(UnderTest(edi_gateway::Gateway::new(
            clock, alerts, partners, flows,
        )))
    })
}
