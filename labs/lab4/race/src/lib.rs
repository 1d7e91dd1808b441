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
//!   exploration stops;
//! - nothing reads the real clock: a request that can never return leaves every thread
//!   waiting, which the runtime itself detects.

mod explore;
mod monitor;
mod output;
mod story;
mod world;

use lab4_harness::wire::{Action, Settings};
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

/// Reads the plan, explores its schedules against the relay `build` makes, and ends the
/// process.
pub fn main(build: BuildRelay) -> ! {
    let status = match read_plan() {
        Ok(plan) => {
            output::install_panic_hook();
            explore::run(plan, build)
        }
        Err(why) => {
            eprintln!("lab4_race: {why}");
            2
        }
    };
    #[allow(clippy::disallowed_methods)]
    std::process::exit(status)
}

fn read_plan() -> Result<Plan, String> {
    let plan: Plan = grader_protocol::read_plan()?;
    if plan.race.is_none() {
        return Err("the plan has no race settings: it is for the normal harness".into());
    }
    output::open(&plan.results_path)
        .map_err(|e| format!("cannot open {}: {e}", plan.results_path))?;
    Ok(plan)
}
