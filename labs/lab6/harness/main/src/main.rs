//! The lab 6 harness program: the harness library, linked with one crate under test.
//!
//! The grader compiles this file once per crate it grades, with `quote_client` pointing at
//! that crate, so it stays as small as possible: it only adapts `quote_client::Shop` to the
//! harness's [`ShopUnderTest`].

use lab6_harness::ShopUnderTest;
use shipping_kit::{Browse, Checkout, Metrics, Order, Page, State, Transition};

struct UnderTest(quote_client::Shop);

impl ShopUnderTest for UnderTest {
    fn checkout(&self, order: &Order) -> Checkout {
        self.0.checkout(order)
    }

    fn browse(&self, page: &Page) -> Browse {
        self.0.browse(page)
    }

    fn circuit_state(&self, dependency: &str) -> Option<State> {
        self.0.circuit_state(dependency)
    }

    fn metrics(&self, dependency: &str) -> Option<Metrics> {
        self.0.metrics(dependency)
    }

    fn transitions(&self) -> Vec<Transition> {
        self.0.transitions()
    }
}

fn main() {
    lab6_harness::main(|clock, dependencies| {
        Box::new(UnderTest(quote_client::Shop::new(clock, dependencies)))
    })
}
