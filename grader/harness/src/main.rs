//! The lab 4 harness: the child process in which code under test runs.
//!
//! The grader builds this binary against the crate it grades (the skeleton, the reference,
//! a student's submission), starts one process per scenario, writes the scenario's
//! [`Plan`] on standard input and reads [`Event`]s back from the results file the plan
//! names. A panic, a deadlock, an endless loop or an abort here costs one scenario, never
//! the grader.
//!
//! Time is a [`FakeClock`] that moves only on `advance` actions. Slow targets hold calls
//! on a condition variable until a `release` action, so no action sleeps. The only real
//! time read here is the watchdog that names requests stuck inside the relay.

mod events;
mod run;

use std::io::Read;
use std::process::ExitCode;

use grader_protocol::{PROTOCOL_VERSION, Plan};

fn main() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("lab4_harness: cannot read the plan from standard input: {e}");
        return ExitCode::from(2);
    }
    let plan: Plan = match serde_json::from_str(&input) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("lab4_harness: the plan on standard input is not valid: {e}");
            return ExitCode::from(2);
        }
    };
    if plan.protocol != PROTOCOL_VERSION {
        eprintln!(
            "lab4_harness: plan protocol {} but this harness speaks {PROTOCOL_VERSION}; rebuild it",
            plan.protocol
        );
        return ExitCode::from(2);
    }
    if let Err(e) = events::open(&plan.results_path) {
        eprintln!("lab4_harness: cannot open {}: {e}", plan.results_path);
        return ExitCode::from(2);
    }
    events::install_panic_hook();
    // Leave at once, without unwinding or joining: requests still held inside a target,
    // or stuck inside the relay, must not keep the process alive.
    #[allow(clippy::disallowed_methods)]
    std::process::exit(run::run(&plan))
}
