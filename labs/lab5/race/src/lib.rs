//! The lab 5 race harness: the child process that runs one scenario's plan on the
//! schedule-exploring runtime, schedule after schedule.
//!
//! It speaks the normal harness's protocol (a [`Plan`] on standard input, events in the
//! results file it names) and has the same entry point, so the grader links the same
//! program file with it. The differences:
//!
//! - the crate under test, `gateway_kit` and the scripted partners are their race builds,
//!   whose `std` is `race_std`: every lock, unlock, wait and atomic operation is a point
//!   where the explorer (shuttle's PCT scheduler, fixed seed) may switch threads;
//! - the plan's actions run once per schedule; a schedule whose steps come out as no
//!   earlier one did is written to the results file for the grader to judge;
//! - on every schedule, [`monitor`] checks the properties of lab 5's race checks (no more
//!   than `probes` probes in one HALF_OPEN round, the bulkhead's limit, one alert per
//!   opening and per closing, records that chain, no lock held while a partner is called,
//!   every message returns); the first schedule that breaks one is written with the
//!   property and the story of the schedule (who took which lock where), and the
//!   exploration stops (the explorer, its output and its stories are `race_explore`'s);
//! - nothing reads the real clock: a message that can never return leaves every thread
//!   waiting, which the runtime itself detects.

mod monitor;
mod world;

/// The harness program's adapter for the code under test, as the normal harness has it.
pub use lab5_harness::under_test;

use gateway_kit::{
    AlertSink, Clock, Flow, FlowSettings, Message, Outcome, Partner, State, Transition,
};
use lab5_harness::wire::{Action, Settings};
use race_explore::{Kit, Lab, Stops};
use race_std::sync::Arc;

/// What the harness needs from a gateway: the public API of the lab's `Gateway`.
pub trait GatewayUnderTest: Send + Sync {
    /// `Gateway::send`.
    fn send(&self, message: &Message) -> Outcome;
    /// `Gateway::circuit_state`.
    fn circuit_state(&self, flow: &Flow) -> Option<State>;
    /// `Gateway::transitions`.
    fn transitions(&self) -> Vec<Transition>;
}

/// The plan of one scenario, in lab 5's terms.
pub type Plan = grader_protocol::Plan<Settings, Action>;

/// Builds the gateway under test: `Gateway::new`.
pub type BuildGateway = fn(
    Arc<dyn Clock>,
    Arc<dyn AlertSink>,
    Vec<Arc<dyn Partner>>,
    Vec<(Flow, FlowSettings)>,
) -> Box<dyn GatewayUnderTest>;

/// Lab 5 to the explorer: its kit's files, its words, its monitor.
static LAB: Lab = Lab {
    name: "lab5_race",
    kit: Kit {
        harness: &[
            "/labs/lab5/race/src/",
            "/fixtures/partners/",
            "/fixtures/script/",
        ],
        noun: "message",
        crates: &["/crates/gateway_kit/", "/crates/relay_kit/"],
    },
    stops: Stops {
        held_inside: "is held inside a partner's endpoint, waiting to be let go",
        called: "a partner",
        never_hint: monitor::NEVER_HINT,
        busy_hint: monitor::BUSY_HINT,
    },
    scripted_panic: |payload| payload.is::<fixture_script::ScriptedPanic>(),
    reset: monitor::reset,
    take: monitor::take,
};

/// Reads the plan, explores its schedules against the gateway `build` makes, and ends the
/// process.
pub fn main(build: BuildGateway) -> ! {
    race_explore::main(&LAB, move |plan: &Plan| world::run(plan, build))
}
