//! The lab 4 harness: the child process in which code under test runs.
//!
//! The grader builds a tiny program (`main/src/main.rs`) that links this library with the
//! crate it grades (the skeleton, the reference, a student's submission), starts one
//! process per scenario, writes the scenario's plan on standard input and reads events
//! back from the results file the plan names (`grader_harness` does that part for every
//! lab). A panic, a deadlock, an endless loop or an abort here costs one scenario, never
//! the grader. What the plan and the events carry for lab 4 is in [`wire`].
//!
//! Everything lives in this library, which does not depend on the code under test, so an
//! edit of a student's file recompiles only their crate and the few lines of `main`.
//!
//! Time is a `FakeClock` that moves only on `advance` actions. Slow targets hold calls on
//! a condition variable until a `release` action, so no action sleeps. The only real time
//! read here is the watchdog that names requests stuck inside the relay.

mod run;
pub mod systems;
pub mod wire;

/// The harness program's adapter for the code under test (`grader_harness::under_test`).
pub use grader_harness::under_test;

use std::sync::Arc;

use relay_kit::{Clock, Code, Request, State, Target, TargetConfig, Transition};

/// What the harness needs from a relay: the public API of the lab's `Relay`.
pub trait RelayUnderTest: Send + Sync {
    /// `Relay::handle`.
    fn handle(&self, request: &Request) -> Code;
    /// `Relay::breaker_state`.
    fn breaker_state(&self, target: &str) -> Option<State>;
    /// `Relay::transitions`.
    fn transitions(&self) -> Vec<Transition>;
}

/// Builds the relay under test: `Relay::new`.
pub type BuildRelay =
    fn(Arc<dyn Clock>, Vec<(Arc<dyn Target>, TargetConfig)>) -> Box<dyn RelayUnderTest>;

/// Reads the plan, runs it against the relay `build` makes, and ends the process.
pub fn main(build: BuildRelay) -> ! {
    grader_harness::main(
        "lab4_harness",
        |plan| run::World::start(plan, build),
        |payload| payload.is::<fixture_targets::ScriptedPanic>(),
    )
}
