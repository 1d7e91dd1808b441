//! What the grader and lab 5's harness say to each other, inside the common protocol
//! (`grader_protocol`): a flow's settings, the actions, and what is observed after each.
//! The grader's lab 5 plug-in uses the same types, so each is defined once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A flow's protection settings: as `lab.json` gives its defaults, as a scenario's
/// `targets` overrides them (any of them), and as the plan carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// How many of the latest outcomes the window keeps.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub window: u64,
    /// The fewest outcomes in the window before the circuit may open (at most `window`).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub minimum_calls: u64,
    /// The failure share, in percent, that opens the circuit.
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 100)))]
    pub failure_rate_percent: u64,
    /// Milliseconds after which an outcome no longer counts; none when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_age_ms: Option<u64>,
    /// Milliseconds the circuit stays open before the next message may be a probe.
    pub open_for_ms: u64,
    /// Probes a half-open round lets through; all must succeed to close.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub probes: u64,
    /// The bulkhead's limit: messages of the flow in progress at once.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_concurrent: u64,
}

/// One action of a scenario, after the grader has checked and normalised it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Tell a flow's endpoint how to answer from now on: an HTTP status, `timeout`,
    /// `refused`, `hold` or `panic`.
    Script {
        /// The flow, `partner/MESSAGE_TYPE`.
        flow: String,
        /// The answer.
        answer: String,
    },
    /// Send `count` messages one after the other, each once the one before has returned
    /// or is held by the endpoint.
    Send {
        /// The flow.
        flow: String,
        /// How many messages.
        count: u32,
    },
    /// Send `count` messages at the same moment from separate threads, then wait until
    /// every one of them returned or is held by the endpoint.
    SendConcurrent {
        /// The flow.
        flow: String,
        /// How many messages.
        count: u32,
    },
    /// Release the `count` oldest held calls of a flow (all of them when `None`), each
    /// answering `answer`, and wait until those messages return.
    Release {
        /// The flow.
        flow: String,
        /// How many held calls; `None` means all.
        count: Option<u32>,
        /// An HTTP status, `timeout` or `refused`.
        answer: String,
    },
    /// Move the fake clock forward.
    Advance {
        /// Milliseconds.
        ms: u64,
    },
    /// Do nothing; only record the state of things.
    Observe,
}

/// The state of things after an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observation {
    /// Each flow, in plan order.
    pub flows: Vec<FlowSnapshot>,
    /// Every transition record so far, as printed lines; `None` if reading them panicked.
    pub transitions: Option<Vec<String>>,
    /// Every alert the gateway sent so far, as printed lines.
    pub alerts: Vec<String>,
    /// Transition records and alerts together, in the order the harness first saw them:
    /// each step's new records, then its new alerts. Reports show it as a timeline.
    pub journal: Vec<String>,
}

/// One flow after an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSnapshot {
    /// The flow, `partner/MESSAGE_TYPE`.
    pub name: String,
    /// The circuit state the gateway reports; `None` if asking panicked or it said `None`.
    pub state: Option<String>,
    /// Calls that reached the flow's endpoint.
    pub calls: u64,
    /// Calls in progress at the endpoint.
    pub in_flight: u64,
    /// The most calls ever in progress at once.
    pub peak: u64,
    /// Finished calls per answer.
    pub answered: BTreeMap<String, u64>,
}

/// What lab 5's harness saw while messages were stuck (`StuckRecord::seen`): whether the
/// flow's circuit state could still be read, which tells whether they wait for the
/// breaker's lock or for another one.
pub mod seen {
    /// `Gateway::circuit_state` returned: the breaker's lock is free, so they wait for
    /// another one (the bulkhead's, most likely).
    pub const STATE_READABLE: &str = "state_readable";
    /// `Gateway::circuit_state` blocked too: the breaker's lock is held.
    pub const STATE_BLOCKED: &str = "state_blocked";
    /// `Gateway::circuit_state` panicked: nothing can be told.
    pub const STATE_PANICKED: &str = "state_panicked";
    /// A look at the state after a step that blocked for good: the protocol's key.
    pub const READ_BLOCKED: &str = grader_protocol::StuckRecord::READ_BLOCKED;
}
