//! The lab 4 harness program: the harness library, linked with one crate under test.
//!
//! The grader compiles this file once per crate it grades, with `relay_base` pointing at
//! that crate, so it stays as small as possible: it only adapts `relay_base::Relay` to
//! the harness's [`RelayUnderTest`].

use lab4_harness::RelayUnderTest;
use relay_kit::{Code, Request, State, Transition};

lab4_harness::under_test! {
    struct UnderTest(relay_base::Relay);
    impl RelayUnderTest {
        fn handle(&self, request: &Request) -> Code;
        fn breaker_state(&self, target: &str) -> Option<State>;
        fn transitions(&self) -> Vec<Transition>;
    }
}

fn main() {
    lab4_harness::main(|clock, targets| Box::new(UnderTest(relay_base::Relay::new(clock, targets))))
}
