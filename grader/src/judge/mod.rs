//! Turning what a run observed into a verdict.
//!
//! The harness only reports what happened; every comparison with a scenario's
//! expectations happens here, in the grader's own process.

pub mod context;
pub mod lead;
pub mod limits;
mod messages;
pub mod race;
pub mod rules;
pub mod story;
mod timeline;

use std::collections::BTreeMap;

use grader_protocol::{Event, PanicRecord, StepRecord, StuckRecord};

use crate::report::{Failure, ScenarioResult, Status};
use crate::run::runner::Run;
use crate::scenario::Scenario;
use messages::{crash_message, missing_step, panic_message};
use timeline::{timeline, trim_backtrace};

pub use grader_lab::{clock, duration};

/// The hint for a scenario whose process stopped making progress.
const TIMEOUT_HINT: &str = "Look for a loop that never ends, or a lock taken twice on one thread (a std Mutex is not re-entrant: calling a method that locks from code that already holds the lock blocks forever).";

/// What made a verdict that a real-time limit decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The process never got past building the code under test.
    Constructor,
    /// A request (or the grader's look at the code under test) was still running, busy,
    /// at the stuck limit.
    Busy,
    /// The process ran out of time somewhere else.
    Other,
}

/// Why a real-time limit decided `result`, or `None` when none did (it passed, failed on
/// what was observed, crashed, or every thread blocked for good).
pub fn real_time_cause(result: &ScenarioResult) -> Option<Cause> {
    match result.status {
        Status::Timeout if result.message.contains(messages::BEFORE_FIRST_STEP) => {
            Some(Cause::Constructor)
        }
        Status::Timeout => Some(Cause::Other),
        Status::Failed if result.stuck && result.message.contains(messages::BUSY_REAL_TIME) => {
            Some(Cause::Busy)
        }
        _ => None,
    }
}

/// Whether `result` was stopped by the CPU time limit (`SIGXCPU`, or the `SIGKILL` a
/// second later): told as such, or, for a race check, as the signal that ended it.
pub fn used_up_cpu(result: &ScenarioResult) -> bool {
    result.message.contains("used up its CPU time")
        || [libc::SIGXCPU, libc::SIGKILL].iter().any(|sig| {
            result
                .message
                .contains(&format!("(killed by signal {sig})"))
        })
}

/// Step `i` of `scenario` in words, or `step N` for a step the scenario does not have.
pub fn describe(scenario: &Scenario, i: usize) -> String {
    match scenario.steps.get(i) {
        Some(placed) => scenario.plugin.describe(&placed.step),
        None => format!("step {}", i + 1),
    }
}

/// Judges one run of `scenario`. `shown` maps harness paths to the paths people know.
pub fn judge(
    scenario: &Scenario,
    run: &Run,
    shown: &dyn Fn(&str) -> String,
    timeout_ms: u64,
) -> ScenarioResult {
    if let Some(why) = unreadable(scenario, run) {
        return ScenarioResult {
            status: Status::Error,
            score: 0,
            message: format!(
                "the results of this scenario's process cannot be read: {why}; the grader read nothing else from it"
            ),
            ..passed(scenario)
        };
    }
    let mut records: BTreeMap<usize, &StepRecord> = BTreeMap::new();
    let mut begun: BTreeMap<usize, u64> = BTreeMap::new();
    let mut observing: Option<usize> = None;
    let mut panic: Option<&PanicRecord> = None;
    let mut stuck: Option<&StuckRecord> = None;
    let mut finished = false;
    for event in &run.events {
        match event {
            Event::Step(r) => {
                records.insert(r.step, r);
            }
            Event::Begin { step, at_ms } => {
                begun.insert(*step, *at_ms);
            }
            Event::Observing { step } => observing = Some(*step),
            Event::Panic(p) if panic.is_none() => panic = Some(p),
            Event::Stuck(s) => stuck = Some(s),
            Event::Finished => finished = true,
            _ => {}
        }
    }
    let mut result = passed(scenario);

    // Walk the steps in order; the first problem decides the verdict.
    let mut verdict: Option<(Status, String, Option<Failure>)> = None;
    let mut failed_step = None;
    // A generated scenario checks many rules: the hint is the failed step's rule.
    let mut rule_hint = None;
    for (i, placed) in scenario.steps.iter().enumerate() {
        if let Some(p) = panic.filter(|p| p.step.is_none_or(|s| s <= i)) {
            let at = p.step.and_then(|s| begun.get(&s)).copied();
            verdict = Some((Status::Error, panic_message(p, shown, at, scenario), None));
            failed_step = p.step;
            break;
        }
        let Some(record) = records.get(&i) else {
            verdict = Some(missing_step(
                scenario,
                i,
                begun.get(&i).copied(),
                stuck,
                run,
                timeout_ms,
                observing == Some(i),
            ));
            failed_step = Some(i);
            break;
        };
        let judged = scenario.plugin.judge(&placed.step, record);
        let difference = match judged {
            Ok(difference) => difference,
            Err(why) => {
                verdict = Some((
                    Status::Error,
                    format!("the harness's record cannot be read: {why}"),
                    None,
                ));
                failed_step = Some(i);
                break;
            }
        };
        if let Some(difference) = difference {
            if scenario.generated {
                rule_hint = scenario.plugin.rule_hint(&placed.step, &difference);
            }
            let failure = Failure {
                step: i + 1,
                at: clock(record.at_ms),
                action: scenario.plugin.describe(&placed.step),
                expected: difference.expected,
                observed: difference.observed,
            };
            let message = format!(
                "step {} at {} ({}): expected {}, observed {}",
                failure.step, failure.at, failure.action, failure.expected, failure.observed
            );
            verdict = Some((Status::Failed, message, Some(failure)));
            failed_step = Some(i);
            break;
        }
    }
    if verdict.is_none() && !finished {
        let at = begun.values().last().copied();
        verdict = Some(match panic {
            Some(p) => (Status::Error, panic_message(p, shown, at, scenario), None),
            None => (
                Status::Error,
                crash_message(run, "after the last step", timeout_ms),
                None,
            ),
        });
    }
    if let Some((status, message, failure)) = verdict {
        result.status = status;
        result.score = 0;
        result.message = message;
        result.failure = failure;
        // The hint must fit how the scenario failed: a todo!() or a panic names its own
        // place, and stuck or endless code has causes of its own whatever the scenario is
        // about. A wrong answer at a step gets the hint of the rule that step checks, by
        // what was seen there (`rules`); in a lab without rules, the scenario's own hint
        // where it applies, and none outside the steps it is about (setting the scene, or
        // checking something after it): the report then says what was observed there.
        let stuck_here = status == Status::Failed
            && stuck.is_some_and(|s| failed_step == Some(s.step))
            && !records.contains_key(&stuck.map_or(usize::MAX, |s| s.step));
        result.stuck = stuck_here;
        if let (Status::Failed, Some(f)) = (status, &result.failure) {
            result.pointers = if stuck_here {
                rules::stuck_pointers(scenario)
            } else {
                rules::pointers(scenario, f)
            };
            result.rule = rules::own_rule(scenario, &result.pointers);
            result.other_rule = result
                .rule
                .as_ref()
                .is_some_and(|r| scenario.rule.as_deref() != Some(r.id.as_str()));
        }
        result.hint = match status {
            Status::Error => None,
            Status::Timeout => Some(TIMEOUT_HINT.to_owned()),
            Status::Failed if stuck_here => Some(
                scenario
                    .plugin
                    .stuck_hint(stuck.and_then(|s| s.seen.as_deref())),
            ),
            Status::Failed => match &result.rule {
                Some(rule) => scenario.rules.get(&rule.id).map(|r| r.hint.clone()),
                // A generated scenario checks many rules: its hint is the failed step's.
                None if rule_hint.is_some() => rule_hint,
                None if scenario.rule.is_none()
                    && failed_step.is_some_and(|i| rules::own_steps(scenario, i + 1)) =>
                {
                    Some(scenario.hint.clone())
                }
                None => None,
            },
            Status::Passed => None,
        };
        result.timeline = timeline(scenario, &records, &begun, failed_step);
        result.settings = scenario.changed_settings.clone();
        if let Some(p) = panic.filter(|_| status == Status::Error) {
            result.backtrace = p.backtrace.as_deref().map(|bt| trim_backtrace(bt, shown));
            result.stopped_at = Some(format!(
                "{}: {}",
                p.location
                    .as_deref()
                    .map(shown)
                    .unwrap_or_else(|| "an unknown place".into()),
                p.message
            ));
        }
    }
    result
}

/// A passing result of `scenario`, before anything is judged.
fn passed(scenario: &Scenario) -> ScenarioResult {
    ScenarioResult {
        name: scenario.name.clone(),
        title: scenario.title.clone(),
        category: scenario.category.clone(),
        status: Status::Passed,
        score: scenario.points,
        max_score: scenario.points,
        message: "passed".to_owned(),
        failure: None,
        settings: Vec::new(),
        hint: None,
        timeline: Vec::new(),
        backtrace: None,
        stopped_at: None,
        interleaving: None,
        stuck: false,
        rule: None,
        likely_cause: None,
        pointers: Vec::new(),
        other_rule: false,
    }
}

/// Why the events of a run cannot be judged: the results file could not be read, or an
/// event names a step the scenario does not have. The child process runs code under
/// test, so nothing it wrote is trusted.
fn unreadable(scenario: &Scenario, run: &Run) -> Option<String> {
    if let Some(why) = &run.unreadable {
        return Some(why.clone());
    }
    let steps = scenario.steps.len();
    run.events.iter().find_map(|event| {
        let step = match event {
            Event::Begin { step, .. } | Event::Observing { step } => Some(*step),
            Event::Step(r) => Some(r.step),
            Event::Stuck(s) => Some(s.step),
            Event::Requests(r) => Some(r.step),
            Event::Panic(p) => p.step,
            Event::Ready
            | Event::Finished
            | Event::Schedule { .. }
            | Event::Violation(_)
            | Event::Trace(_)
            | Event::Explored { .. } => None,
        }?;
        (step >= steps).then(|| {
            format!(
                "it reports step {}, but the scenario has {steps} step{}",
                step.saturating_add(1),
                if steps == 1 { "" } else { "s" }
            )
        })
    })
}
