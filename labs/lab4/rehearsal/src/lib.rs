//! The lab 4 failure rehearsal: the child process that runs a relay on real sockets.
//!
//! The grader builds a tiny program (`main/src/main.rs`) that links this library with the
//! crate it rehearses, starts it once with a file path as its one argument, writes a
//! [`Plan`] on its standard input and reads the
//! [`Record`](lab4_rehearsal_protocol::Record) back from that file. Code under
//! test never runs in the grader's own process.
//!
//! On 127.0.0.1 only, the program starts two of each: dependency servers that follow the
//! script ([`dependency`]), HTTP fronts with a fixed pool of worker threads ([`front`]), one
//! around the relay under test and one around a relay that forwards blindly, and load
//! generators sending both the same requests at the same times ([`load`]). Gauges are
//! sampled on the way ([`sampler`]). Everything stops by itself: the program writes its
//! record and exits when the script's time (and a short drain) is over.

pub mod dependency;
pub mod front;
pub mod gauge;
pub mod load;
pub mod panics;
mod ports;
pub mod ready;
mod run;
pub mod sampler;
pub mod target;
pub mod time;

/// The harness program's adapter for the code under test (`grader_harness::under_test`).
pub use grader_harness::under_test;

use std::io::Read;
use std::sync::Arc;

use lab4_rehearsal_protocol::{PROTOCOL_VERSION, Plan};
use relay_kit::{Clock, Code, Request, State, Target, TargetConfig, Transition};

/// What the rehearsal needs from a relay: the public API of the lab's `Relay`.
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

/// Reads the plan, rehearses, writes the record, and ends the process.
pub fn main(build: BuildRelay) -> ! {
    let status = match read_plan() {
        Ok((plan, output)) => {
            panics::install_hook();
            let record = run::run(&plan, build);
            match serde_json::to_vec(&record) {
                Ok(bytes) => match std::fs::write(&output, bytes) {
                    Ok(()) => 0,
                    Err(e) => {
                        eprintln!("lab4_rehearsal: cannot write {output}: {e}");
                        3
                    }
                },
                Err(e) => {
                    eprintln!("lab4_rehearsal: cannot encode the record: {e}");
                    3
                }
            }
        }
        Err(why) => {
            eprintln!("lab4_rehearsal: {why}");
            2
        }
    };
    // Leave at once: worker threads stuck inside the relay must not keep the process alive.
    #[allow(clippy::disallowed_methods)]
    std::process::exit(status)
}

/// The plan on standard input, and the path of the record from the one argument.
fn read_plan() -> Result<(Plan, String), String> {
    let mut args = std::env::args().skip(1);
    let (Some(output), None) = (args.next(), args.next()) else {
        return Err("usage: give the path of the record to write as the one argument".into());
    };
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read the plan from standard input: {e}"))?;
    let plan: Plan = serde_json::from_str(&input)
        .map_err(|e| format!("the plan on standard input is not valid: {e}"))?;
    if plan.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "plan protocol {} but this program speaks {PROTOCOL_VERSION}; rebuild it",
            plan.protocol
        ));
    }
    Ok((plan, output))
}
