//! The lab 6 harness program: the harness library, linked with one crate under test.
//!
//! The grader compiles this file once per crate it grades, with `quote_client` pointing at
//! that crate, so it stays as small as possible: it only adapts `quote_client::Shop` to the
//! harness's [`ShopUnderTest`].

use lab6_harness::ShopUnderTest;
use shipping_kit::{Browse, Checkout, Metrics, Order, Page, State, Transition};

lab6_harness::under_test! {
    struct UnderTest(quote_client::Shop);
    impl ShopUnderTest {
        fn checkout(&self, order: &Order) -> Checkout;
        fn browse(&self, page: &Page) -> Browse;
        fn circuit_state(&self, dependency: &str) -> Option<State>;
        fn metrics(&self, dependency: &str) -> Option<Metrics>;
        fn transitions(&self) -> Vec<Transition>;
    }
}

fn main() {
    lab6_harness::main(|clock, dependencies| {
        Box::new(UnderTest(quote_client::Shop::new(clock, dependencies)))
    })
}
