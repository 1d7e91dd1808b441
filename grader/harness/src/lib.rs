//! The lab 4 harness: the child process in which code under test runs.
//!
//! The grader builds a tiny program (`main/src/main.rs`) that links this library with the
//! crate it grades (the skeleton, the reference, a student's submission), starts one
//! process per scenario, writes the scenario's [`Plan`] on standard input and reads
//! [`Event`](grader_protocol::Event)s back from the results file the plan names. A panic,
//! a deadlock, an endless loop or an abort here costs one scenario, never the grader.
//!
//! Everything lives in this library, which does not depend on the code under test, so an
//! edit of a student's file recompiles only their crate and the few lines of `main`.
//!
//! Time is a `FakeClock` that moves only on `advance` actions. Slow targets hold calls on
//! a condition variable until a `release` action, so no action sleeps. The only real time
//! read here is the watchdog that names requests stuck inside the relay.

mod events;
mod run;

use std::io::Read;
use std::sync::Arc;

use grader_protocol::{PROTOCOL_VERSION, Plan};
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
    let status = match read_plan() {
        Ok(plan) => {
            events::install_panic_hook();
            run::run(&plan, build)
        }
        Err(why) => {
            eprintln!("lab4_harness: {why}");
            2
        }
    };
    // Leave at once, without unwinding or joining: requests still held inside a target,
    // or stuck inside the relay, must not keep the process alive.
    #[allow(clippy::disallowed_methods)]
    std::process::exit(status)
}

fn read_plan() -> Result<Plan, String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read the plan from standard input: {e}"))?;
    let plan: Plan = serde_json::from_str(&input)
        .map_err(|e| format!("the plan on standard input is not valid: {e}"))?;
    if plan.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "plan protocol {} but this harness speaks {PROTOCOL_VERSION}; rebuild it",
            plan.protocol
        ));
    }
    events::open(&plan.results_path)
        .map_err(|e| format!("cannot open {}: {e}", plan.results_path))?;
    Ok(plan)
}
