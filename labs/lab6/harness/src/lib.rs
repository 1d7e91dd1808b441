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
mod shop;
mod stuck;
pub mod wire;

/// The harness program's adapter for the code under test (`grader_harness::under_test`).
pub use grader_harness::under_test;

pub use shop::{BuildShop, ShopUnderTest};

/// Reads the plan, runs it against the shops `build` makes, and ends the process.
pub fn main(build: BuildShop) -> ! {
    grader_harness::main(
        "lab6_harness",
        |plan| run::World::start(plan, build),
        |payload| payload.is::<fixture_script::ScriptedPanic>(),
    )
}
