//! The race checks' part of the protocol: how to explore, what broke, and the story of the
//! schedule it broke on. Lab-neutral: a lab's race harness says what broke in its own words.

use serde::{Deserialize, Serialize};

/// How a race harness explores the schedules of one plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RacePlan {
    /// How many schedules to explore.
    pub schedules: u64,
    /// The explorer's bug depth: how many times per schedule it may take the processor from
    /// the thread that has it.
    pub depth: u32,
    /// The explorer's seed: the same seed explores the same schedules.
    pub seed: u64,
    /// Scheduling steps one schedule may take; more means a thread loops without waiting.
    pub max_steps: u64,
    /// Replay: run schedules 1 to `only` and report only that one, with its whole trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<u64>,
}

/// A property of the race checks that broke on a schedule, in the lab's words. Places in
/// the words are `file:line:column`, with files as the compiler named them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Violation {
    /// A short name of the property (`single_trial`).
    pub property: String,
    /// The action during which it broke; `None` before the first, and the number of
    /// actions for the end of the plan (when every held call is let go).
    pub step: Option<usize>,
    /// What the property asks, in words.
    pub expected: String,
    /// What happened instead, in words.
    pub observed: String,
    /// What usually causes it.
    pub hint: String,
    /// The code cannot be explored (a thread that never waits): an error, not a failure.
    pub unexplorable: bool,
    /// The threads the story is about, as the trace names them.
    pub about: Vec<String>,
    /// Where the story ends: the number of trace events up to the breaking one; `None`
    /// for the whole trace.
    pub until: Option<usize>,
    /// What the story's last line shows, in words.
    pub mark: String,
}

/// A lock, condition variable or atomic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceObject {
    /// What it is, for people: `Mutex<Inner>`, `AtomicUsize`.
    pub name: String,
    /// Where it was made (`file:line:column`).
    pub made: String,
    /// Tells objects apart within the trace.
    pub id: u64,
}

/// One thing one thread did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceEvent {
    /// The thread: `request #4`, or `the grader` for the thread that runs the steps.
    pub who: String,
    /// `step` (an action begins; `text` is its index), `request` (a request thread
    /// starts), `acquire`, `acquired`, `released`, `try_failed`, `waits`, `notifies`,
    /// `atomic`, `does` (something the story tells as `text`: `reaches core_banking`), or
    /// `note` (kept for the count, never told).
    pub what: String,
    /// The lock, condition variable or atomic it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<TraceObject>,
    /// Where in the source (`file:line:column`).
    pub at: String,
    /// The rest, in words: a step's index, an atomic's `op: before -> after`, what it does.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The call stack, innermost first, when the schedule was replayed to be explained.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<Frame>,
}

/// One frame of a call stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// The function.
    pub function: String,
    /// Where (`file:line:column`), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}
