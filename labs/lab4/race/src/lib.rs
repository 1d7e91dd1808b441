//! The lab 4 race harness: the child process that runs one scenario's plan on the
//! schedule-exploring runtime, schedule after schedule.
//!
//! It speaks the normal harness's protocol (a [`Plan`] on standard input, events in the
//! results file it names) and has the same entry point, so the grader links the same
//! program file with it. The differences:
//!
//! - the crate under test, `relay_kit` and the fixture targets are their race builds,
//!   whose `std` is `race_std`: every lock, unlock, wait and atomic operation is a point
//!   where the explorer (shuttle's PCT scheduler, fixed seed) may switch threads;
//! - the plan's actions run once per schedule; a schedule whose steps come out as no
//!   earlier one did is written to the results file for the grader to judge;
//! - on every schedule, [`monitor`] checks the properties of the race checks (one trial
//!   in HALF_OPEN, the bulkhead's limit, records that chain, no lock held while a target
//!   is called, every request returns); the first schedule that breaks one is written
//!   with the property and the story of the schedule (who took which lock where), and the
//!   exploration stops (the explorer, its output and its stories are `race_explore`'s);
//! - nothing reads the real clock: a request that can never return leaves every thread
//!   waiting, which the runtime itself detects.

mod monitor;
mod world;

/// The harness program's adapter for the code under test, as the normal harness has it.
pub use lab4_harness::under_test;

use lab4_harness::wire::{Action, Settings};
use race_explore::{Kit, Lab, Stops};
use race_std::sync::Arc;
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

/// The plan of one scenario, in lab 4's terms.
pub type Plan = grader_protocol::Plan<Settings, Action>;

/// Builds the relay under test: `Relay::new`.
pub type BuildRelay =
    fn(Arc<dyn Clock>, Vec<(Arc<dyn Target>, TargetConfig)>) -> Box<dyn RelayUnderTest>;

/// Lab 4 to the explorer: its kit's files, its words, its monitor.
static LAB: Lab = Lab {
    name: "lab4_race",
    kit: Kit {
        harness: &["/labs/lab4/race/src/", "/fixtures/targets/"],
        noun: "request",
        crates: &["/crates/relay_kit/"],
    },
    stops: Stops {
        held_inside: "is held inside a target, waiting to be let go",
        called: "a target",
        never_hint: monitor::NEVER_HINT,
        busy_hint: monitor::BUSY_HINT,
    },
    scripted_panic: |payload| payload.is::<fixture_targets::ScriptedPanic>(),
    reset: monitor::reset,
    take: monitor::take,
};

/// Reads the plan, explores its schedules against the relay `build` makes, and ends the
/// process.
pub fn main(build: BuildRelay) -> ! {
    race_explore::main(&LAB, move |plan: &Plan| world::run(plan, build))
}
