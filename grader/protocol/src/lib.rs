//! The messages between the grader and the harness, the child process that runs the code
//! under test.
//!
//! The grader writes one [`Plan`] as JSON on the harness's standard input. The harness
//! reads it all before any student code runs, then appends one [`Event`] per line to the
//! results file the plan names. Standard output and standard error belong to the student's
//! code and are never parsed, so nothing it prints can change a result.
//!
//! The skeleton is common to every lab: the plan, step begin and end, request outcomes,
//! panics, stuck requests, the end of the run. What fills it is the lab's own: the
//! targets' settings, the actions and the observations, which the types here take as type
//! parameters. A lab's harness names its own types; the grader, which serves every lab,
//! reads and writes them as JSON values (the defaults of the parameters) and hands them
//! to the lab's plug-in.

mod race;
mod start;

use serde::{Deserialize, Serialize};
pub use serde_json::Value;

pub use race::{Frame, RacePlan, TraceEvent, TraceObject, Violation};
pub use start::{PARENT_VAR, read_plan};

/// The version of this protocol; the harness refuses a plan from another version. It
/// changes when a plan or an event changes meaning; an addition that leaves every earlier
/// message as it was (an optional field, an event that judging may ignore, such as
/// [`Event::Requests`]) keeps it, so a grader still reads the events of a harness that
/// writes none of it.
pub const PROTOCOL_VERSION: u32 = 2;

/// Everything the harness needs to run one scenario. `S` is the lab's target settings
/// and `A` its actions; the grader, which serves every lab, reads and writes them as JSON
/// values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan<S = Value, A = Value> {
    /// Must equal [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// Where to append events, one JSON object per line.
    pub results_path: String,
    /// Real milliseconds a request may stay inside the code under test, neither returned
    /// nor parked (held by a target, or waiting on the fake clock), before the harness
    /// reports it stuck.
    pub stuck_after_ms: u64,
    /// The lab's targets with their settings, in the lab's order.
    pub targets: Vec<TargetPlan<S>>,
    /// What to do, in order.
    pub actions: Vec<A>,
    /// Set for a lab's race harness only: how to explore the schedules of the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RacePlan>,
}

/// One target and its settings (the lab's own type).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetPlan<S = Value> {
    /// The target's name, such as `core_banking`.
    pub name: String,
    /// Its settings for this scenario: the lab's defaults with the scenario's overrides.
    pub settings: S,
}

/// One line of the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Event<O = Value> {
    /// The harness read the plan and is about to build the code under test.
    Ready,
    /// Action `step` (0-based) is starting at fake-clock time `at_ms`.
    Begin {
        /// Index into the plan's actions.
        step: usize,
        /// Fake-clock milliseconds.
        at_ms: u64,
    },
    /// Action `step` is done; the harness is about to observe the code under test for its
    /// record.
    Observing {
        /// Index into the plan's actions.
        step: usize,
    },
    /// Action `step` finished; what came of it.
    Step(StepRecord<O>),
    /// Code under test panicked.
    Panic(PanicRecord),
    /// Some requests neither returned nor parked in the allowed real time.
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
    /// When the requests of action `step` were sent and returned on the fake clock, and
    /// how those still out wait: written just before the step's record, by harnesses whose
    /// requests know the fake clock. A reader that draws no timeline ignores it.
    Requests(StepRequests),
}

/// What one action produced, and what the harness observed right after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRecord<O = Value> {
    /// Index into the plan's actions.
    pub step: usize,
    /// Fake-clock milliseconds when the action started.
    pub at_ms: u64,
    /// The requests this action sent or released, in request-id order.
    pub requests: Vec<RequestOutcome>,
    /// What the lab's harness observed after the action (its own type).
    pub observation: O,
}

/// How one request ended, as far as this action is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestOutcome {
    /// The request's id (1-based, unique within the run).
    pub id: u64,
    /// How it ended, in the lab's words (a code such as `"E904"`), `"held"` if it is
    /// waiting inside a target, or `"panicked"` if the code under test panicked on it.
    pub outcome: String,
}

/// The requests an action sent or saw return, and those still out after it, on the fake
/// clock.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRequests {
    /// Index into the plan's actions.
    pub step: usize,
    /// In request-id order.
    pub requests: Vec<RequestTimes>,
}

/// One request during one action.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestTimes {
    /// The request's id, as in [`RequestOutcome`].
    pub id: u64,
    /// Fake-clock milliseconds when it was sent, if it was sent during this action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_ms: Option<u64>,
    /// Fake-clock milliseconds when it returned, if it returned during this action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned_ms: Option<u64>,
    /// How it waits after the action, in the lab's words (`held`, `queued`), if it has not
    /// returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
}

/// Bytes of a panic message a harness records: the grader reads results files of bounded
/// size, and a report shows a message, not a flood.
pub const PANIC_MESSAGE_CAP: usize = 8 * 1024;

/// A panic's message as a harness records it: `text`, cut to [`PANIC_MESSAGE_CAP`] bytes
/// (at a character boundary) with a note saying how much was left out.
pub fn panic_message(text: &str) -> String {
    if text.len() <= PANIC_MESSAGE_CAP {
        return text.to_owned();
    }
    let mut end = PANIC_MESSAGE_CAP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} [... {} more bytes cut]", &text[..end], text.len() - end)
}

/// A panic in the code under test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Requests found stuck inside the code under test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StuckRecord {
    /// The action during which they got stuck.
    pub step: usize,
    /// Fake-clock milliseconds of that action.
    pub at_ms: u64,
    /// Ids of the stuck requests.
    pub requests: Vec<u64>,
    /// How many requests the action was waiting for, stuck or not.
    pub sent: u64,
    /// The target they were sent to.
    pub target: String,
    /// Real milliseconds of the safety-net limit: how long the harness would have
    /// waited had it not seen them blocked first.
    pub waited_ms: u64,
    /// Whether every thread of the process was seen blocked for good, so nothing could
    /// move them; false when the real-time limit ran out first (a loop, say).
    #[serde(default)]
    pub blocked: bool,
    /// Whether it was the harness's look at the code under test's state after the
    /// action that blocked, rather than requests.
    #[serde(default)]
    pub reading: bool,
    /// What the harness saw while they were blocked, as a key of the lab's (lab 4:
    /// whether the breaker's state could still be read), for the report's hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
}

impl StuckRecord {
    /// The key of [`StuckRecord::seen`] that every lab gives a look at the code under
    /// test's state after a step (its observers) that blocked for good.
    pub const READ_BLOCKED: &'static str = "read_blocked";

    /// The harness's own look after a step did not return: no request is stuck, the
    /// observers are. `blocked` says whether every thread was seen blocked for good (then
    /// `seen` is [`StuckRecord::READ_BLOCKED`]), `waited_ms` the real-time limit that ran
    /// out otherwise. The runner fills in the step and its time.
    pub fn reading(blocked: bool, waited_ms: u64) -> Self {
        Self {
            step: 0,
            at_ms: 0,
            requests: Vec::new(),
            sent: 0,
            target: String::new(),
            waited_ms,
            blocked,
            reading: true,
            seen: blocked.then(|| Self::READ_BLOCKED.to_owned()),
        }
    }
}
