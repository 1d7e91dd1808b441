//! The failure rehearsal's file format and messages.
//!
//! A rehearsal runs a relay on real sockets against two dependency servers that follow a
//! [`Script`] over real time (healthy, slow, refusing connections, healthy again) under a
//! steady load, once behind the relay under test and once behind a relay that forwards
//! blindly. The script is a JSON file instructors edit (`labs/lab4/rehearsal.json`).
//!
//! The grader reads the script, checks it, fits it to the run's length and writes one
//! [`Plan`] as JSON on the rehearsal program's standard input. The program, built against
//! the crate under test, runs the rehearsal and writes one [`Record`] to the file its one
//! argument names. The grader draws the page from that record. Nothing the code under test prints
//! is read.
//!
//! This crate depends on nothing but serde.

mod record;
mod script;

pub use record::{
    CallRecord, Level, Outcome, PanicRecord, Readiness, Record, RelayRecord, RequestRecord, Sample,
    TargetSample, TransitionRecord,
};
pub use script::{
    Behaviour, Load, Phase, RelaySettings, SCRIPT_FORMAT_VERSION, Script, TargetScript,
};

use serde::{Deserialize, Serialize};

/// The version of the messages between grader and rehearsal program.
pub const PROTOCOL_VERSION: u32 = 2;

/// What the grader asks the rehearsal program to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Must equal [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The script, its times already fitted to this run's length.
    pub script: Script,
    /// Milliseconds to wait, after the last request is sent, for answers still on their way.
    pub drain_ms: f64,
}
