//! The lab 6 harness: the child process in which the shops under test run.
//!
//! The grader builds a tiny program (`main/src/main.rs`) that links this library with the
//! crate it grades, starts one process per scenario, writes the scenario's plan on standard
//! input and reads events back (`grader_harness` does that part for every lab). What the
//! plan and the events carry for lab 6 is in [`wire`].
//!
//! Every shop instance gets the same [`FakeClock`](shipping_kit::FakeClock) and the same
//! scripted dependencies (`fixture_dependencies`): the vendor and the catalog answer, panic
//! or hold calls as told. Lab 6's code waits on the clock (in the queue, between attempts,
//! for answers), so a step is over when every request has returned or **waits on the fake
//! clock**, and an `advance` wakes the waiters one at a time, earliest deadline first,
//! letting everything settle after each.

mod observe;
pub mod observing;
mod run;
mod stuck;
pub mod wire;

use std::sync::Arc;

use shipping_kit::{
    Browse, Checkout, Clock, Dependency, DependencySettings, Metrics, Order, Page, State,
    Transition,
};

/// What the harness needs from a shop: the public API of the lab's `Shop`.
pub trait ShopUnderTest: Send + Sync {
    /// `Shop::checkout`.
    fn checkout(&self, order: &Order) -> Checkout;
    /// `Shop::browse`.
    fn browse(&self, page: &Page) -> Browse;
    /// `Shop::circuit_state`.
    fn circuit_state(&self, dependency: &str) -> Option<State>;
    /// `Shop::metrics`.
    fn metrics(&self, dependency: &str) -> Option<Metrics>;
    /// `Shop::transitions`.
    fn transitions(&self) -> Vec<Transition>;
}

/// Builds one shop under test: `Shop::new`.
pub type BuildShop =
    fn(Arc<dyn Clock>, Vec<(Arc<dyn Dependency>, DependencySettings)>) -> Box<dyn ShopUnderTest>;

/// Reads the plan, runs it against the shops `build` makes, and ends the process.
pub fn main(build: BuildShop) -> ! {
    grader_harness::main(
        "lab6_harness",
        |plan| run::World::start(plan, build),
        |payload| payload.is::<fixture_script::ScriptedPanic>(),
    )
}
