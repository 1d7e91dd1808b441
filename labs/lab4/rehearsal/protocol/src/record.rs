//! What the rehearsal program observed: every request, every call to a dependency, the
//! gauges sampled over time and the breaker's transitions, for each relay.
//!
//! Times are milliseconds since the rehearsal started, rounded to 0.01 ms except where a
//! field says otherwise.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The whole observation of one rehearsal.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The protocol version the program speaks.
    pub protocol: u32,
    /// Whether the relay under test could be rehearsed at all.
    pub readiness: Readiness,
    /// The relay under test (`protected`), then the blind one (`unprotected`).
    pub relays: Vec<RelayRecord>,
    /// Problems of the rehearsal's own machinery, such as a dependency that could not
    /// listen on its port again; they make figures less trustworthy.
    pub notes: Vec<String>,
}

/// Whether the relay under test survived a quiet check before the rehearsal.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case", deny_unknown_fields)]
pub enum Readiness {
    /// It answered one request per target and reported every breaker's state.
    #[default]
    Ready,
    /// It panicked, or did not return.
    NotReady {
        /// What the check was doing (`Relay::new`, `Relay::handle for core_banking`, ...).
        during: String,
        /// What happened: the panic message, or that the call did not return.
        message: String,
        /// Where it panicked, `file:line:column`, when known.
        location: Option<String>,
    },
}

/// Everything observed behind one relay.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelayRecord {
    /// `protected` (the relay under test) or `unprotected` (forwards blindly).
    pub name: String,
    /// Every request the load generator sent (or could not send), as the generator saw it.
    pub requests: Vec<RequestRecord>,
    /// Every call the relay made to a dependency, as the relay's target saw it.
    pub calls: Vec<CallRecord>,
    /// The gauges, sampled at regular intervals.
    pub samples: Vec<Sample>,
    /// The breaker transitions the relay recorded (`Relay::transitions`), on the
    /// rehearsal's clock.
    pub transitions: Vec<TransitionRecord>,
    /// Panics inside the relay, grouped by place.
    pub panics: Vec<PanicRecord>,
    /// Why the breaker states could not be read, if they could not.
    pub state_problem: Option<String>,
}

/// One request from the load generator to a relay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestRecord {
    /// Its target.
    pub target: String,
    /// When it was sent (when it was due, if it was not sent).
    pub sent_ms: f64,
    /// How long until the answer (or until the generator stopped waiting; 0 if not sent).
    pub ms: f64,
    /// How it ended.
    pub outcome: Outcome,
}

/// One call from a relay to a dependency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallRecord {
    /// The dependency.
    pub target: String,
    /// When the call started, unrounded (see [`TransitionRecord::at_ms`]).
    pub start_ms: f64,
    /// How long it took.
    pub ms: f64,
    /// How it ended: `OK`, `B201`, `E500`, `E901` or `E902`.
    pub outcome: Outcome,
}

/// How a request or a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// An answer.
    #[serde(rename = "OK")]
    Ok,
    /// A business refusal (insufficient funds): also an answer.
    B201,
    /// The dependency could not process the request.
    E500,
    /// No answer from the dependency in time.
    E901,
    /// The dependency refused the connection.
    E902,
    /// The relay rejected the request: circuit open.
    E904,
    /// The relay rejected the request: bulkhead full.
    E905,
    /// The relay panicked while handling the request.
    #[serde(rename = "PANIC")]
    Panic,
    /// No answer before the rehearsal ended.
    #[serde(rename = "NO_ANSWER")]
    NoAnswer,
    /// Not sent: when it was due, `concurrency` requests were already waiting for their
    /// answers, and it was too late once one came back.
    #[serde(rename = "NOT_SENT")]
    NotSent,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Outcome; 10] = [
        Outcome::Ok,
        Outcome::B201,
        Outcome::E500,
        Outcome::E901,
        Outcome::E902,
        Outcome::E904,
        Outcome::E905,
        Outcome::Panic,
        Outcome::NoAnswer,
        Outcome::NotSent,
    ];

    /// As written in records and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "OK",
            Outcome::B201 => "B201",
            Outcome::E500 => "E500",
            Outcome::E901 => "E901",
            Outcome::E902 => "E902",
            Outcome::E904 => "E904",
            Outcome::E905 => "E905",
            Outcome::Panic => "PANIC",
            Outcome::NoAnswer => "NO_ANSWER",
            Outcome::NotSent => "NOT_SENT",
        }
    }

    /// What it means, in a few words.
    pub fn cause(self) -> &'static str {
        match self {
            Outcome::Ok => "answer",
            Outcome::B201 => "business refusal",
            Outcome::E500 => "dependency error",
            Outcome::E901 => "timeout",
            Outcome::E902 => "refused connection",
            Outcome::E904 => "circuit open",
            Outcome::E905 => "bulkhead full",
            Outcome::Panic => "relay panicked",
            Outcome::NoAnswer => "no answer by the end",
            Outcome::NotSent => "not sent: the load generator was full",
        }
    }

    /// Whether the dependency answered (`OK` or `B201`).
    pub fn is_answer(self) -> bool {
        matches!(self, Outcome::Ok | Outcome::B201)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The gauges at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// When.
    pub t_ms: f64,
    /// Worker threads of the relay's front inside `Relay::handle`.
    pub busy: Level,
    /// Per target.
    pub targets: BTreeMap<String, TargetSample>,
}

/// A gauge: its value at the sample, and its highest value since the previous sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// At the sample.
    pub now: u32,
    /// Highest since the previous sample.
    pub peak: u32,
}

/// One target's gauges at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSample {
    /// Requests for this target sent to the relay and not yet answered (waiting for a
    /// worker, or being handled).
    pub in_relay: Level,
    /// Calls from the relay to the dependency in progress, as the relay's target counts.
    pub calls: Level,
    /// Calls the dependency server is working on, as it counts.
    pub at_dependency: Level,
    /// The breaker's state (`CLOSED`, `OPEN`, `HALF_OPEN`); none for a relay without
    /// breakers, or when it could not be read.
    pub state: Option<String>,
}

/// One breaker transition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransitionRecord {
    /// When, on the rehearsal's clock (the relay was given it), unrounded: a trial call
    /// that is refused takes well under a millisecond, and its call must fall between the
    /// two transitions around it.
    pub at_ms: f64,
    /// Whose breaker.
    pub target: String,
    /// The state before.
    pub from: String,
    /// The state after.
    pub to: String,
}

/// Panics at one place inside the relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanicRecord {
    /// What the relay was doing (`Relay::handle`, `Relay::breaker_state`).
    pub during: String,
    /// The first panic's message.
    pub message: String,
    /// Where, `file:line:column`.
    pub location: Option<String>,
    /// How many panics there were at this place.
    pub count: u64,
}
