//! The lab 4 rehearsal program: the rehearsal library, linked with one crate under test.
//!
//! The grader compiles this file once per crate it rehearses, with `relay_base` pointing at
//! that crate, so it only adapts `relay_base::Relay` to the library's [`RelayUnderTest`].

use lab4_rehearsal::RelayUnderTest;
use relay_kit::{Code, Request, State, Transition};

lab4_rehearsal::under_test! {
    struct UnderTest(relay_base::Relay);
    impl RelayUnderTest {
        fn handle(&self, request: &Request) -> Code;
        fn breaker_state(&self, target: &str) -> Option<State>;
        fn transitions(&self) -> Vec<Transition>;
    }
}

fn main() {
    lab4_rehearsal::main(|clock, targets| {
        Box::new(UnderTest(relay_base::Relay::new(clock, targets)))
    })
}
