//! What the grader and lab 4's harness say to each other, inside the common protocol
//! (`grader_protocol`): a target's settings, the actions, and what is observed after each.
//! The grader's lab 4 plug-in uses the same types, so each is defined once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A target's protection settings: as `lab.json` gives its defaults, as a scenario's
/// `targets` overrides them (any of them), and as the plan carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Counted failures in a row that open the circuit.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub failure_threshold: u32,
    /// Milliseconds the circuit stays open before a trial.
    pub retry_after_ms: u64,
    /// The bulkhead's limit.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_concurrent: u64,
}

/// One action of a scenario, after the grader has checked and normalised it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Tell a target how to answer from now on: a code, `"hold"` or `"panic"`.
    Script {
        /// The target.
        target: String,
        /// `OK`, `B201`, `E500`, `E901`, `E902`, `hold` or `panic`.
        answer: String,
    },
    /// Send `count` requests one after the other, each waiting until it returned or is
    /// held by the target.
    Send {
        /// The target.
        target: String,
        /// How many requests.
        count: u32,
    },
    /// Send `count` requests at the same fake-clock moment from separate threads, each
    /// entering once the one before has returned, is held by the target or is blocked
    /// for good; then wait until every one of them returned or is held.
    SendConcurrent {
        /// The target.
        target: String,
        /// How many requests.
        count: u32,
    },
    /// Release the `count` oldest held calls of a target (all of them when `None`), each
    /// answering `answer`, and wait until those requests return.
    Release {
        /// The target.
        target: String,
        /// How many held calls; `None` means all.
        count: Option<u32>,
        /// `OK`, `B201`, `E500`, `E901` or `E902`.
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
    /// Each target, in plan order.
    pub targets: Vec<TargetSnapshot>,
    /// Every transition record so far, as printed lines; `None` if reading them panicked.
    pub transitions: Option<Vec<String>>,
}

/// One target after an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSnapshot {
    /// The target's name.
    pub name: String,
    /// The breaker state the relay reports; `None` if asking panicked or it said `None`.
    pub state: Option<String>,
    /// Calls that reached the target.
    pub calls: u64,
    /// Calls in progress at the target.
    pub in_flight: u64,
    /// The most calls ever in progress at once.
    pub peak: u64,
    /// Finished calls per answer code.
    pub answered: BTreeMap<String, u64>,
}

/// What lab 4's harness saw while requests were stuck (`StuckRecord::seen`): whether the
/// breaker's state could still be read, which tells whose lock the requests wait for.
pub mod seen {
    /// `Relay::breaker_state` returned: the breaker's lock is free, so they wait for
    /// another one (the bulkhead's).
    pub const BREAKER_READABLE: &str = "breaker_readable";
    /// `Relay::breaker_state` blocked too: the breaker's lock is held.
    pub const BREAKER_BLOCKED: &str = "breaker_blocked";
    /// A look at the state after a step that blocked for good: the protocol's key.
    pub const READ_BLOCKED: &str = grader_protocol::StuckRecord::READ_BLOCKED;
    /// `Relay::breaker_state` panicked: nothing can be told.
    pub const BREAKER_PANICKED: &str = "breaker_panicked";
}
