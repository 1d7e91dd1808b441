//! The lab 6 race harness: the child process that runs one scenario's plan on the
//! schedule-exploring runtime, schedule after schedule.
//!
//! It speaks the normal harness's protocol (a [`Plan`] on standard input, events in the
//! results file it names) and has the same entry point, so the grader links the same
//! program file with it. The differences:
//!
//! - the crate under test, `shipping_kit` (its clock, bells, monitor and calls) and the
//!   scripted dependencies are their race builds, whose `std` is `race_std`: every lock,
//!   unlock, wait and atomic operation is a point where the explorer (shuttle's PCT
//!   scheduler, fixed seed) may switch threads, and `Monitor::notify_one` wakes whichever
//!   sleeper the schedule chooses;
//! - the fake clock is not serial: requests a change wakes together run together, in
//!   whatever interleaving the explorer picks, and an advance wakes every waiter whose
//!   deadline falls at the same instant together;
//! - the plan's actions run once per schedule; a schedule whose steps come out as no
//!   earlier one did is written to the results file for the grader to judge;
//! - on every schedule, [`monitor`] checks the properties of lab 6's race checks (slots,
//!   the queue's length and order, no lost wake-up, probes per half-open round, no lock
//!   held while the vendor is called or a request waits on the clock, records that chain,
//!   every request returns); the first schedule that breaks one is written with the
//!   property and the story of the schedule, and the exploration stops (the explorer, its
//!   output and its stories are `race_explore`'s);
//! - nothing reads the real clock: a request that can never return leaves every thread
//!   waiting, which the runtime itself detects.

mod monitor;
mod observe;
// The normal harness's file, compiled against this crate's `shipping_kit` (the twin).
#[path = "../../harness/src/shop.rs"]
mod shop;
mod watched;
mod world;

/// The harness program's adapter for the code under test, as the normal harness has it.
pub use lab6_harness::under_test;

pub use shop::{BuildShop, ShopUnderTest};

use lab6_harness::wire::{Action, Settings};
use race_explore::{Kit, Lab, Stops};

/// The plan of one scenario, in lab 6's terms.
pub type Plan = grader_protocol::Plan<Settings, Action>;

/// Lab 6 to the explorer: its kit's files, its words, its monitor.
static LAB: Lab = Lab {
    name: "lab6_race",
    kit: Kit {
        harness: &[
            "/labs/lab6/race/src/",
            "/labs/lab6/harness/src/observing.rs",
            "/fixtures/dependencies/",
            "/fixtures/script/",
        ],
        noun: "request",
        crates: &["/crates/shipping_kit/", "/crates/relay_kit/"],
    },
    stops: Stops {
        held_inside: "is inside a call to a dependency",
        called: "the fake clock",
        never_hint: monitor::NEVER_HINT,
        busy_hint: monitor::BUSY_HINT,
    },
    scripted_panic: |payload| payload.is::<fixture_script::ScriptedPanic>(),
    reset: monitor::reset,
    take: monitor::take,
};

/// Reads the plan, explores its schedules against the shops `build` makes, and ends the
/// process.
pub fn main(build: BuildShop) -> ! {
    race_explore::main(&LAB, move |plan: &Plan| world::run(plan, build))
}
