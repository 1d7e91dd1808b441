//! Turning what a run observed into a verdict.
//!
//! The harness only reports what happened; every comparison with a scenario's
//! expectations happens here, in the grader's own process.

use std::collections::BTreeMap;

use grader_protocol::{Event, PanicRecord, StepRecord, StuckRecord};

use crate::report::{Failure, ScenarioResult, Status, TimelineEntry};
use crate::run::runner::{Ending, Run};
use crate::scenario::Scenario;

pub use grader_lab::{clock, duration};

/// The hint for a scenario whose process stopped making progress.
const TIMEOUT_HINT: &str = "Look for a loop that never ends, or a lock taken twice on one thread (a std Mutex is not re-entrant: calling a method that locks from code that already holds the lock blocks forever).";

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
    let mut result = ScenarioResult {
        name: scenario.name.clone(),
        title: scenario.title.clone(),
        category: scenario.category.clone(),
        status: Status::Passed,
        score: scenario.points,
        max_score: scenario.points,
        message: "passed".to_owned(),
        failure: None,
        hint: None,
        timeline: Vec::new(),
        backtrace: None,
        stopped_at: None,
    };

    // Walk the steps in order; the first problem decides the verdict.
    let mut verdict: Option<(Status, String, Option<Failure>)> = None;
    let mut failed_step = None;
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
        // about. Only a wrong answer gets the scenario's hint.
        let stuck_here = status == Status::Failed
            && stuck.is_some_and(|s| failed_step == Some(s.step))
            && !records.contains_key(&stuck.map_or(usize::MAX, |s| s.step));
        result.hint = match status {
            Status::Error => None,
            Status::Timeout => Some(TIMEOUT_HINT.to_owned()),
            Status::Failed if stuck_here => Some(scenario.plugin.words().stuck_hint.to_owned()),
            Status::Failed | Status::Passed => Some(scenario.hint.clone()),
        };
        result.timeline = timeline(scenario, &records, &begun, failed_step);
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

/// Why a step has no record: stuck requests, a timeout, or a crash.
fn missing_step(
    scenario: &Scenario,
    i: usize,
    begun_at: Option<u64>,
    stuck: Option<&StuckRecord>,
    run: &Run,
    timeout_ms: u64,
    observing: bool,
) -> (Status, String, Option<Failure>) {
    let words = scenario.plugin.words();
    let simultaneous = scenario
        .steps
        .get(i)
        .is_some_and(|p| scenario.plugin.simultaneous(&p.step));
    let at = begun_at.map(clock).unwrap_or_else(|| "?".into());
    let action = describe(scenario, i);
    if let Some(s) = stuck.filter(|s| s.step == i) {
        let ids: Vec<String> = s.requests.iter().map(|id| format!("#{id}")).collect();
        // Of simultaneous requests, which ones got stuck depends on thread timing: name
        // how many instead, so the report is the same on every run.
        let who = if simultaneous {
            format!("{} of the {} requests", ids.len(), s.sent)
        } else {
            format!(
                "request{} {}",
                if ids.len() == 1 { "" } else { "s" },
                ids.join(", ")
            )
        };
        let observed = format!(
            "{who} still inside {} after {} ms of real time: neither returned nor reached {}",
            words.subject, s.waited_ms, s.target
        );
        let expected = words.stuck_expected.to_owned();
        let message = format!(
            "step {} at {at} ({action}): {observed}; {}",
            i + 1,
            words.stuck_cause
        );
        let failure = Failure {
            step: i + 1,
            at,
            action,
            expected,
            observed,
        };
        return (Status::Failed, message, Some(failure));
    }
    let place = if observing {
        format!(
            "after step {} at {at} ({action}), in the grader's call to {}, which never returned",
            i + 1,
            words.observers
        )
    } else if begun_at.is_some() {
        format!("during step {} at {at} ({action})", i + 1)
    } else {
        format!("before the first step, while building {}", words.subject)
    };
    match run.ending {
        Ending::TimedOut => (
            Status::Timeout,
            format!(
                "still running after {} of real time {place}: an endless loop, or a deadlock",
                duration(timeout_ms)
            ),
            None,
        ),
        _ => (Status::Error, crash_message(run, &place, timeout_ms), None),
    }
}

fn crash_message(run: &Run, place: &str, timeout_ms: u64) -> String {
    let overflow = run.stderr.contains("overflowed its stack");
    match &run.ending {
        _ if overflow => {
            format!("stack overflow {place}: a function that calls itself without end?")
        }
        Ending::Signaled(sig) => {
            format!("the process was killed by signal {sig} {place} (an abort?)")
        }
        Ending::Exited(code) => format!("the process exited with status {code} {place}"),
        Ending::TimedOut => format!(
            "still running after {} of real time {place}",
            duration(timeout_ms)
        ),
    }
}

fn panic_message(
    p: &PanicRecord,
    shown: &dyn Fn(&str) -> String,
    at_ms: Option<u64>,
    scenario: &Scenario,
) -> String {
    let location = p
        .location
        .as_deref()
        .map(shown)
        .unwrap_or_else(|| "an unknown place".to_owned());
    // Request threads are named `request-N`; the harness's own thread observes the code
    // under test after every step.
    let words = scenario.plugin.words();
    let simultaneous = p.step.is_some_and(|i| {
        scenario
            .steps
            .get(i)
            .is_some_and(|st| scenario.plugin.simultaneous(&st.step))
    });
    let who = match p.thread.strip_prefix("request-") {
        // Which of several simultaneous requests panicked first is down to timing.
        Some(_) if simultaneous => ", in one of the requests".to_owned(),
        Some(id) => format!(", in request #{id}"),
        None => format!(
            ", while the grader read {}'s state ({})",
            words.subject, words.observers
        ),
    };
    let place = match p.step {
        Some(s) => format!(
            "step {} at {} ({}){who}",
            s + 1,
            at_ms.map(clock).unwrap_or_else(|| "?".into()),
            describe(scenario, s)
        ),
        None => format!("while building {} ({})", words.subject, words.constructor),
    };
    if let Some(todo) = p.message.strip_prefix("not yet implemented") {
        let todo = todo.trim_start_matches(':').trim();
        let what = if todo.is_empty() {
            String::new()
        } else {
            format!(": {todo}")
        };
        format!("{place}: hit todo!() at {location}{what}")
    } else {
        format!("{place}: panicked at {location}: {}", p.message)
    }
}

/// Outcomes counted per word: `2x E905, 3x held`.
fn counts(map: &BTreeMap<String, u32>) -> String {
    if map.is_empty() {
        return "nothing".to_owned();
    }
    map.iter()
        .map(|(k, v)| format!("{v}x {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The steps that ran, as a timeline.
fn timeline(
    scenario: &Scenario,
    records: &BTreeMap<usize, &StepRecord>,
    begun: &BTreeMap<usize, u64>,
    failed: Option<usize>,
) -> Vec<TimelineEntry> {
    let mut seen_transitions = 0;
    let mut out = Vec::new();
    for (i, placed) in scenario.steps.iter().enumerate() {
        let Some(r) = records.get(&i) else {
            if failed == Some(i) {
                out.push(TimelineEntry {
                    step: i + 1,
                    at: begun.get(&i).map_or_else(|| "?".into(), |ms| clock(*ms)),
                    action: describe(scenario, i),
                    result: "did not finish".into(),
                    targets: Vec::new(),
                    transitions: Vec::new(),
                    failed_here: true,
                });
            }
            break;
        };
        let result = if r.requests.is_empty() {
            String::new()
        } else if scenario.plugin.simultaneous(&placed.step) {
            // Which of several simultaneous requests got which answer depends on thread
            // timing; how many got each does not. Counts keep reports identical run to run.
            let mut tally: BTreeMap<String, u32> = BTreeMap::new();
            for q in &r.requests {
                *tally.entry(q.outcome.clone()).or_default() += 1;
            }
            counts(&tally)
        } else {
            r.requests
                .iter()
                .map(|q| format!("#{} {}", q.id, q.outcome))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let snapshot = scenario.plugin.snapshot(&r.observation).unwrap_or_default();
        let all = snapshot.records;
        let new = all
            .get(seen_transitions..)
            .map(<[String]>::to_vec)
            .unwrap_or_default();
        seen_transitions = all.len();
        let targets = snapshot.targets;
        out.push(TimelineEntry {
            step: i + 1,
            at: clock(r.at_ms),
            action: scenario.plugin.describe(&placed.step),
            result,
            targets,
            transitions: new,
            failed_here: failed == Some(i),
        });
        if failed == Some(i) {
            break;
        }
    }
    out
}

/// A panic backtrace from the first frame of the code under test on, with the frames of
/// the panic machinery and the harness left out and paths shown the way people know them.
fn trim_backtrace(bt: &str, shown: &dyn Fn(&str) -> String) -> String {
    let lines: Vec<&str> = bt.lines().collect();
    let is_frame = |l: &str| {
        let t = l.trim_start();
        t.split_once(':')
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let machinery = |l: &str| {
        [
            "std::",
            "core::",
            "__rust",
            "grader_harness::events",
            "rust_begin_unwind",
            "<alloc::",
            "alloc::",
        ]
        .iter()
        .any(|m| l.contains(m))
    };
    let start = lines
        .iter()
        .position(|l| is_frame(l) && !machinery(l))
        .unwrap_or(0);
    lines[start..]
        .iter()
        .map(|l| match l.trim_start().strip_prefix("at ") {
            Some(path) => {
                let indent = &l[..l.len() - l.trim_start().len()];
                let (file, rest) = path.split_once(':').unwrap_or((path, ""));
                if rest.is_empty() {
                    format!("{indent}at {}", shown(file))
                } else {
                    format!("{indent}at {}:{rest}", shown(file))
                }
            }
            None => (*l).to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
