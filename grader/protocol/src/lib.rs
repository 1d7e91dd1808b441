//! The messages between the grader and the harness, the child process that runs the code
//! under test.
//!
//! The grader writes one [`Plan`] as JSON on the harness's standard input. The harness
//! reads it all before any student code runs, then appends one [`Event`] per line to the
//! results file the plan names. Standard output and standard error belong to the student's
//! code and are never parsed, so nothing it prints can change a result.
//!
//! Codes and states travel as their report spelling (`"E904"`, `"HALF_OPEN"`), so this crate
//! depends on nothing but serde.

mod race;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use race::{Frame, RacePlan, TraceEvent, TraceObject, Violation, Waiting};

/// The version of this protocol; the harness refuses a plan from another version.
pub const PROTOCOL_VERSION: u32 = 2;

/// Everything the harness needs to run one scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Must equal [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// Where to append events, one JSON object per line.
    pub results_path: String,
    /// Real milliseconds a request may stay inside the relay, neither returned nor held by a
    /// target, before the harness reports it stuck.
    pub stuck_after_ms: u64,
    /// The relay's targets, in order.
    pub targets: Vec<TargetPlan>,
    /// What to do, in order.
    pub actions: Vec<Action>,
    /// Set for the race checks' harness only: how to explore the schedules of the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RacePlan>,
}

/// One target and its protection settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetPlan {
    /// The target's name, such as `core_banking`.
    pub name: String,
    /// Counted failures in a row that open the breaker.
    pub failure_threshold: u32,
    /// Fake-clock milliseconds the breaker stays open before a trial.
    pub retry_after_ms: u64,
    /// The bulkhead's limit.
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
    /// Send `count` requests at the same moment from separate threads, then wait until
    /// every one of them returned or is held by the target.
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

/// One line of the results file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// The harness read the plan and is about to build the relay.
    Ready,
    /// Action `step` (0-based) is starting at fake-clock time `at_ms`.
    Begin {
        /// Index into the plan's actions.
        step: usize,
        /// Fake-clock milliseconds.
        at_ms: u64,
    },
    /// Action `step` is done; the harness is about to read the relay's state
    /// (`breaker_state`, `transitions`) for its record.
    Observing {
        /// Index into the plan's actions.
        step: usize,
    },
    /// Action `step` finished; what came of it.
    Step(StepRecord),
    /// Code under test panicked.
    Panic(PanicRecord),
    /// Some requests neither returned nor reached a target in the allowed real time.
    Stuck(StuckRecord),
    /// Every action ran.
    Finished,
    /// Race checks: the events up to the next `Schedule` belong to schedule `index`
    /// (1-based, in the order explored). Only schedules whose steps came out differently
    /// from every earlier one are written, and the one that broke a property.
    Schedule {
        /// The schedule's number.
        index: u64,
    },
    /// Race checks: a property broke on the current schedule.
    Violation(Violation),
    /// Race checks: what each thread did on the current schedule, in the order the explorer
    /// ran it.
    Trace(Vec<TraceEvent>),
    /// Race checks: the exploration ended after `schedules` schedules.
    Explored {
        /// How many schedules ran.
        schedules: u64,
    },
}

/// What one action produced, and the state of things right after it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRecord {
    /// Index into the plan's actions.
    pub step: usize,
    /// Fake-clock milliseconds when the action started.
    pub at_ms: u64,
    /// The requests this action sent or released, in request-id order.
    pub requests: Vec<RequestOutcome>,
    /// Each target after the action, in plan order.
    pub targets: Vec<TargetSnapshot>,
    /// Every transition record so far, as printed lines; `None` if reading them panicked.
    pub transitions: Option<Vec<String>>,
}

/// How one request ended, as far as this action is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestOutcome {
    /// The request's id (1-based, unique within the run).
    pub id: u64,
    /// The code `Relay::handle` returned, `"held"` if the request is waiting inside a
    /// target, or `"panicked"` if the relay panicked on it.
    pub outcome: String,
}

/// One target after an action.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// A panic in the code under test.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanicRecord {
    /// The action during which it happened, if one had started.
    pub step: Option<usize>,
    /// The panic message.
    pub message: String,
    /// `file:line:column` of the panic, if known.
    pub location: Option<String>,
    /// The thread's name (`request-7`, `main`).
    pub thread: String,
    /// A captured backtrace, if one was asked for.
    pub backtrace: Option<String>,
}

/// Requests found stuck inside the relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StuckRecord {
    /// The action during which they got stuck.
    pub step: usize,
    /// Fake-clock milliseconds of that action.
    pub at_ms: u64,
    /// Ids of the stuck requests.
    pub requests: Vec<u64>,
    /// The target they were sent to.
    pub target: String,
    /// Real milliseconds waited.
    pub waited_ms: u64,
}
