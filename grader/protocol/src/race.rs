//! The race checks' part of the protocol: how to explore, what broke, and the story of the
//! schedule it broke on.

use serde::{Deserialize, Serialize};

/// How the race harness explores the schedules of one plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RacePlan {
    /// How many schedules to explore.
    pub schedules: u64,
    /// The explorer's bug depth: how many times it may take the processor from the thread
    /// that has it.
    pub depth: u32,
    /// The explorer's seed: the same seed explores the same schedules.
    pub seed: u64,
    /// Scheduling steps one schedule may take; more means a thread loops without waiting.
    pub max_steps: u64,
    /// Replay: run schedules 1 to `only` and report only that one, with its whole trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<u64>,
}

/// A property of the race checks that broke on a schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Violation {
    /// More than one call reached `target` while its breaker was HALF_OPEN.
    SingleTrial {
        /// The action during which it happened.
        step: usize,
        /// The target.
        target: String,
        /// The requests that reached it during that HALF_OPEN, in the order they did.
        requests: Vec<u64>,
    },
    /// More calls were in progress at `target` than its bulkhead allows.
    OverLimit {
        /// The action during which it happened.
        step: usize,
        /// The target.
        target: String,
        /// Its `max_concurrent`.
        limit: u64,
        /// The requests inside it at that moment, in the order they entered.
        requests: Vec<u64>,
    },
    /// A transition record of `target` does not start where the one before it ended.
    RecordsOutOfOrder {
        /// The action during which it was written.
        step: usize,
        /// The target.
        target: String,
        /// The record before, as printed (`CLOSED -> OPEN`); `None` if it is the first.
        before: Option<String>,
        /// The record that does not follow on.
        record: String,
    },
    /// A request called its target while holding locks of the code under test.
    LockHeldDuringCall {
        /// The action during which it happened.
        step: usize,
        /// The target.
        target: String,
        /// The request.
        request: u64,
        /// The locks it held, oldest first.
        locks: Vec<TraceObject>,
        /// Where it took each of them (`file:line:column`), in the same order.
        taken_at: Vec<String>,
    },
    /// Threads still waiting when nothing else could run: requests that never return.
    NeverReturns {
        /// The action during which it happened, if one was running.
        step: Option<usize>,
        /// What each waiting thread waits for.
        waiting: Vec<Waiting>,
    },
    /// A thread kept running without ever waiting: a busy loop the explorer cannot get past.
    BusyLoop {
        /// The action during which it happened, if one was running.
        step: Option<usize>,
        /// The scheduling steps it allowed.
        max_steps: u64,
        /// The thread that ran last, as the trace names threads.
        who: String,
    },
}

/// One thread that waits for ever.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waiting {
    /// The thread, as the trace names threads.
    pub who: String,
    /// `lock`, `condvar` or `held` (a call held inside a target, waiting for release).
    pub on: String,
    /// The lock or condition variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<TraceObject>,
    /// Where it started waiting (`file:line:column`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// For a lock: the threads holding it, and where each took it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holders: Vec<(String, String)>,
}

/// A lock, condition variable or atomic of the code under test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceObject {
    /// `Mutex`, `RwLock`, `Condvar`, `AtomicUsize`, ...
    pub kind: String,
    /// The type it protects or holds (`lab4_solution::breaker::Inner`).
    pub ty: String,
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
    /// `step` (an action begins; `text` says which), `sent`, `acquire`, `acquired`,
    /// `released`, `try_failed`, `waits`, `notifies`, `atomic`, `enter` (a call reaches a
    /// target), `leave`, `record` (a transition record is written), `returned`.
    pub what: String,
    /// The lock, condition variable or atomic it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<TraceObject>,
    /// Where in the source (`file:line:column`).
    pub at: String,
    /// The rest, in words: the step number, an atomic's `before -> after`, a record, a
    /// code, a target.
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
    /// The function (`lab4_solution::breaker::Breaker::admit`).
    pub function: String,
    /// Where (`file:line:column`), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}
