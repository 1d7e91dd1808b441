//! What one scenario of a submission taught about its code that never ends, shared with
//! the scenarios of the same submission that start after it.
//!
//! Without it, every scenario of a submission whose constructor never returns waits out
//! the full real-time limit, and every scenario whose requests loop waits out the full
//! stuck limit, though the first one already showed it. Once a scenario's verdict shows
//! one of those (under the full limits, and confirmed by the runner: the limit counts only
//! time the process could run, and a busy request in a stalled run is run again), the
//! scenarios that start later run with a far shorter limit for that cause:
//! - [`Cause::Constructor`]: a scenario that never got past building the code under test;
//!   the later ones get [`CUT_TIMEOUT_MS`] of real time;
//! - [`Cause::Busy`]: a request still running, busy, at the stuck limit; the later ones'
//!   requests get [`CUT_STUCK_MS`] before they are told stuck;
//! - a race check stopped by the CPU limit (a loop, or a flood of output, that never
//!   touches a lock).
//!
//! After any of them, the race checks that start later get [`CUT_RACE_CPU_SECONDS`].
//!
//! Each scenario still runs and gets its own verdict. A verdict under a cut limit is kept
//! only when it has the same cause as the lesson (its message then says the limit was
//! cut, and why); any other verdict that a limit decided (a timeout elsewhere, a request
//! stuck for another reason) is run again under the full limits. A correct submission
//! never teaches a lesson, so its scenarios always run under the full limits.

use std::sync::{Mutex, PoisonError};

use crate::grade::RunOptions;
use crate::judge::{Cause, duration, real_time_cause, used_up_cpu};
use crate::report::{ScenarioResult, Status};
use crate::run::runner::Limits;
use crate::scenario::Scenario;

/// Real-time limit of a scenario once another never got past the constructor. A correct
/// constructor returns in microseconds, and starting the harness takes milliseconds.
pub const CUT_TIMEOUT_MS: u64 = 200;
/// Real-time limit of a busy request once another's request ran busy for the whole
/// stuck limit.
pub const CUT_STUCK_MS: u64 = 100;
/// CPU seconds of a race check once another scenario showed code that never ends. The
/// explorer needs a tenth of a second for a lab's schedules; a loop that never touches a
/// lock is stopped only by the CPU limit.
pub const CUT_RACE_CPU_SECONDS: u64 = 1;

/// The lessons of one submission's grading so far.
#[derive(Default)]
pub struct Lessons(Mutex<Learnt>);

#[derive(Default, Clone)]
struct Learnt {
    /// A scenario that never got past the constructor.
    constructor: Option<String>,
    /// A scenario whose request ran busy for the whole stuck limit.
    busy: Option<String>,
    /// A race check stopped by the CPU limit.
    cpu: Option<String>,
}

impl Learnt {
    /// A scenario that showed code that never ends, if one did.
    fn any(&self) -> Option<&String> {
        self.constructor
            .as_ref()
            .or(self.busy.as_ref())
            .or(self.cpu.as_ref())
    }
}

/// How a scenario is run: its options and limits, and the lessons that cut them.
pub struct Plan {
    /// The options it runs with.
    pub opts: RunOptions,
    /// The kernel limits it runs under.
    pub limits: Limits,
    /// The lessons that cut its limits; nothing when it runs under the full ones.
    cut: Learnt,
}

impl Lessons {
    fn learnt(&self) -> Learnt {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How to run `scenario`, after what was learnt so far. A race check keeps its
    /// real-time limit (the explorer tells deadlocks and loops through locks itself) but
    /// gets [`CUT_RACE_CPU_SECONDS`] once a lesson was learnt.
    pub fn plan(&self, scenario: &Scenario, opts: &RunOptions, limits: &Limits) -> Plan {
        let mut plan = Plan {
            opts: opts.clone(),
            limits: *limits,
            cut: Learnt::default(),
        };
        let learnt = self.learnt();
        if scenario.race {
            let full = limits.cpu_seconds.unwrap_or(u64::MAX);
            if learnt.any().is_some() && full > CUT_RACE_CPU_SECONDS {
                plan.limits.cpu_seconds = Some(CUT_RACE_CPU_SECONDS);
                plan.cut = learnt;
            }
            return plan;
        }
        if learnt.constructor.is_some() && opts.timeout_ms > CUT_TIMEOUT_MS {
            plan.opts.timeout_ms = CUT_TIMEOUT_MS;
            plan.opts.stuck_after_ms = plan.opts.stuck_after_ms.min(CUT_TIMEOUT_MS / 2);
            plan.cut.constructor = learnt.constructor;
        } else if learnt.busy.is_some() && opts.stuck_after_ms > CUT_STUCK_MS {
            plan.opts.stuck_after_ms = CUT_STUCK_MS;
            plan.cut.busy = learnt.busy;
        }
        plan
    }

    /// What `result` of `scenario`, run as `plan` says, teaches; and whether it stands.
    /// `None`: it was decided by a cut limit for a cause other than the lesson's, and
    /// must be run again under the full options and limits (`opts`, `limits`).
    pub fn learn(
        &self,
        scenario: &Scenario,
        plan: &Plan,
        (opts, limits): (&RunOptions, &Limits),
        mut result: ScenarioResult,
    ) -> Option<ScenarioResult> {
        let cause = real_time_cause(&result);
        let cut = &plan.cut;
        if scenario.race {
            let stopped = result.status == Status::Timeout || used_up_cpu(&result);
            // Stopped by the cut CPU limit: code that never ends, as the lesson says.
            if let (true, Some(other)) = (stopped, cut.any()) {
                result.message = format!(
                    "{} (the CPU limit was cut from {} s to {} s: scenario `{other}` already showed code that never ends)",
                    result.message,
                    limits.cpu_seconds.unwrap_or(0),
                    plan.limits.cpu_seconds.unwrap_or(0),
                );
            }
            if stopped && cut.any().is_none() && limits.cpu_seconds.is_some() {
                let mut learnt = self.0.lock().unwrap_or_else(PoisonError::into_inner);
                learnt.cpu.get_or_insert_with(|| scenario.name.clone());
            }
            return Some(result);
        }
        match (cause, &cut.constructor, &cut.busy) {
            (None, _, _) => {}
            (Some(Cause::Constructor), Some(other), _) => {
                result.message = format!(
                    "{} (stopped after {} rather than {}: scenario `{other}` already ran for {} without getting past it)",
                    result.message,
                    duration(plan.opts.timeout_ms),
                    duration(opts.timeout_ms),
                    duration(opts.timeout_ms),
                );
            }
            (Some(Cause::Busy), _, Some(other)) => {
                result.message = format!(
                    "{} (told after {} ms rather than {} ms: a request of scenario `{other}` already ran busy for {} ms)",
                    result.message,
                    plan.opts.stuck_after_ms,
                    opts.stuck_after_ms,
                    opts.stuck_after_ms,
                );
            }
            // Decided by a cut limit, but not for the lesson's cause.
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => return None,
            (Some(cause), None, None) => {
                let mut learnt = self.0.lock().unwrap_or_else(PoisonError::into_inner);
                let slot = match cause {
                    Cause::Constructor => &mut learnt.constructor,
                    Cause::Busy => &mut learnt.busy,
                    Cause::Other => return Some(result),
                };
                slot.get_or_insert_with(|| scenario.name.clone());
            }
        }
        Some(result)
    }
}
