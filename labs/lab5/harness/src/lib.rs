//! The lab 5 harness: the child process in which a gateway under test runs.
//!
//! The grader builds a tiny program (`main/src/main.rs`) that links this library with the
//! crate it grades, starts one process per scenario, writes the scenario's plan on
//! standard input and reads events back from the results file the plan names
//! (`grader_harness` does that part for every lab). What the plan and the events carry for
//! lab 5 is in [`wire`].
//!
//! The gateway gets a `FakeClock` that moves only on `advance` actions, scripted partners
//! (`fixture_partners`) whose endpoints answer, panic or hold calls as told, and an
//! `AlertLog` as its alert sink: the alerts are read from the log, never from the code
//! under test.

mod run;
pub mod wire;

/// The harness program's adapter for the code under test (`grader_harness::under_test`).
pub use grader_harness::under_test;

use std::sync::Arc;

use gateway_kit::{
    AlertSink, Clock, Flow, FlowSettings, Message, Outcome, Partner, State, Transition,
};

/// What the harness needs from a gateway: the public API of the lab's `Gateway`.
pub trait GatewayUnderTest: Send + Sync {
    /// `Gateway::send`.
    fn send(&self, message: &Message) -> Outcome;
    /// `Gateway::circuit_state`.
    fn circuit_state(&self, flow: &Flow) -> Option<State>;
    /// `Gateway::transitions`.
    fn transitions(&self) -> Vec<Transition>;
}

/// Builds the gateway under test: `Gateway::new`.
pub type BuildGateway = fn(
    Arc<dyn Clock>,
    Arc<dyn AlertSink>,
    Vec<Arc<dyn Partner>>,
    Vec<(Flow, FlowSettings)>,
) -> Box<dyn GatewayUnderTest>;

/// Reads the plan, runs it against the gateway `build` makes, and ends the process.
pub fn main(build: BuildGateway) -> ! {
    grader_harness::main(
        "lab5_harness",
        |plan| run::World::start(plan, build),
        |payload| payload.is::<fixture_script::ScriptedPanic>(),
    )
}
