//! Turning what a run observed into a verdict.
//!
//! The harness only reports what happened; every comparison with a scenario's
//! expectations happens here, in the grader's own process.

use std::collections::BTreeMap;

use grader_protocol::{Event, PanicRecord, StepRecord, StuckRecord};

use crate::report::{Failure, ScenarioResult, Status, TimelineEntry};
use crate::runner::{Ending, Run};
use crate::scenario::{Scenario, Step};

/// The hint for requests stuck inside the relay, whatever the scenario was about.
const STUCK_HINT: &str = "A request that is neither answered nor inside the target is still in your relay. The usual causes: the bulkhead waits for a slot instead of returning E905; a slot is never given back (a failure or B201 path that skips it: use a guard whose Drop gives it back); the breaker's lock is held while the target is called, so every other request to that target queues on the lock; or a loop that never ends.";

/// The hint for a scenario whose process stopped making progress.
const TIMEOUT_HINT: &str = "Look for a loop that never ends, or a lock taken twice on one thread (a std Mutex is not re-entrant: calling a method that locks from code that already holds the lock blocks forever).";

/// Fake-clock milliseconds as `HH:MM:SS.mmm`.
pub fn clock(ms: u64) -> String {
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    format!("{h:02}:{m:02}:{:02}.{:03}", rest / 1000, rest % 1000)
}

/// A step in words: `send 3 requests to core_banking, one after the other`.
pub fn describe(step: &Step) -> String {
    let plural = |n: u32| if n == 1 { "request" } else { "requests" };
    match step {
        Step::Script(x) => match x.answer.as_str() {
            "hold" => format!("script {} to hold calls until released", x.target),
            "panic" => format!("script {} to panic", x.target),
            code => format!("script {} to answer {code}", x.target),
        },
        Step::Send(x) => {
            let n = x.count.unwrap_or(1);
            if n == 1 {
                format!("send 1 request to {}", x.target)
            } else {
                format!(
                    "send {n} {} to {}, one after the other",
                    plural(n),
                    x.target
                )
            }
        }
        Step::SendConcurrent(x) => {
            format!(
                "send {} {} to {} at the same moment",
                x.count,
                plural(x.count),
                x.target
            )
        }
        Step::Release(x) => match x.count {
            Some(n) => format!(
                "release {n} held {} at {} with {}",
                if n == 1 { "call" } else { "calls" },
                x.target,
                x.answer
            ),
            None => format!("release every held call at {} with {}", x.target, x.answer),
        },
        Step::Advance(x) => format!("advance the clock by {}", duration(x.ms)),
        Step::Expect(x) => format!("check {}", x.target),
        Step::ExpectTransitions(_) => "check the transition records".to_owned(),
    }
}

/// Milliseconds in words: `30 s`, `1500 ms`.
pub fn duration(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
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
        interleaving: None,
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
        if let Some((expected, observed)) = check_step(&placed.step, record) {
            let failure = Failure {
                step: i + 1,
                at: clock(record.at_ms),
                action: describe(&placed.step),
                expected,
                observed,
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
        let stuck_here = stuck.is_some()
            && status == Status::Failed
            && result
                .failure
                .as_ref()
                .is_some_and(|f| f.observed.contains("still inside the relay"));
        result.hint = match status {
            Status::Error => None,
            Status::Timeout => Some(TIMEOUT_HINT.to_owned()),
            Status::Failed if stuck_here => Some(STUCK_HINT.to_owned()),
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
    let step = &scenario.steps[i].step;
    let at = begun_at.map(clock).unwrap_or_else(|| "?".into());
    let action = describe(step);
    if let Some(s) = stuck.filter(|s| s.step == i) {
        let ids: Vec<String> = s.requests.iter().map(|id| format!("#{id}")).collect();
        // Of simultaneous requests, which ones got stuck depends on thread timing: name
        // how many instead, so the report is the same on every run.
        let who = match step {
            Step::SendConcurrent(x) => format!("{} of the {} requests", ids.len(), x.count),
            _ => format!(
                "request{} {}",
                if ids.len() == 1 { "" } else { "s" },
                ids.join(", ")
            ),
        };
        let observed = format!(
            "{who} still inside the relay after {} ms of real time: neither returned nor reached {}",
            s.waited_ms, s.target
        );
        let expected =
            "every request returns at once or waits inside the target (never inside the relay)"
                .to_owned();
        let message = format!(
            "step {} at {at} ({action}): {observed}; a caller is waiting (for a lock or a slot) or looping instead of being answered at once",
            i + 1
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
            "after step {} at {at} ({action}), in the grader's call to Relay::breaker_state or Relay::transitions, which never returned",
            i + 1
        )
    } else if begun_at.is_some() {
        format!("during step {} at {at} ({action})", i + 1)
    } else {
        "before the first step, while building the relay".to_owned()
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
    // Request threads are named `request-N`; the harness's own thread reads the relay's
    // state (breaker_state, transitions) after every step.
    let simultaneous = p.step.is_some_and(|i| {
        matches!(
            scenario.steps.get(i).map(|st| &st.step),
            Some(Step::SendConcurrent(_) | Step::Release(_))
        )
    });
    let who = match p.thread.strip_prefix("request-") {
        // Which of several simultaneous requests panicked first is down to timing.
        Some(_) if simultaneous => ", in one of the requests".to_owned(),
        Some(id) => format!(", in request #{id}"),
        None => {
            ", while the grader read the relay's state (Relay::breaker_state or Relay::transitions)"
                .to_owned()
        }
    };
    let place = match p.step {
        Some(s) => format!(
            "step {} at {} ({}){who}",
            s + 1,
            at_ms.map(clock).unwrap_or_else(|| "?".into()),
            describe(&scenario.steps[s].step)
        ),
        None => "while building the relay (Relay::new)".to_owned(),
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

/// Compares one step's expectations with its record: `Some((expected, observed))` on the
/// first difference.
fn check_step(step: &Step, r: &StepRecord) -> Option<(String, String)> {
    let outcomes: Vec<&str> = r.requests.iter().map(|q| q.outcome.as_str()).collect();
    match step {
        Step::Send(x) => {
            let want: Vec<String> = match (&x.expect, &x.expect_each) {
                (Some(code), _) => vec![code.clone(); x.count.unwrap_or(1) as usize],
                (None, Some(each)) => each.clone(),
                (None, None) => return None,
            };
            let got: Vec<String> = outcomes.iter().map(|s| s.to_string()).collect();
            (want != got).then(|| (list(&want), list(&got)))
        }
        Step::SendConcurrent(x) => {
            let want = x.expect.as_ref()?;
            let mut got: BTreeMap<String, u32> = BTreeMap::new();
            for o in &outcomes {
                *got.entry((*o).to_owned()).or_default() += 1;
            }
            let want: BTreeMap<String, u32> = want
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            (want != got).then(|| (counts(&want), counts(&got)))
        }
        Step::Release(x) => {
            if let Some(n) = x.count {
                if outcomes.len() != n as usize {
                    return Some((
                        format!("{n} held call{} to release", if n == 1 { "" } else { "s" }),
                        format!("{} held", outcomes.len()),
                    ));
                }
            }
            let code = x.expect.as_ref()?;
            let want = vec![code.clone(); outcomes.len()];
            let got: Vec<String> = outcomes.iter().map(|s| s.to_string()).collect();
            (want != got).then(|| (list(&want), list(&got)))
        }
        Step::Expect(x) => {
            let t = r.targets.iter().find(|t| t.name == x.target)?;
            if let Some(state) = &x.state {
                let got = t
                    .state
                    .clone()
                    .unwrap_or_else(|| "no state (breaker_state returned None)".into());
                if &got != state {
                    return Some((
                        format!("{} breaker {state}", x.target),
                        format!("{} breaker {got}", x.target),
                    ));
                }
            }
            let fields = [
                ("calls", x.calls, t.calls, "calls reached"),
                (
                    "in_flight",
                    x.in_flight,
                    t.in_flight,
                    "calls in progress at",
                ),
                ("peak", x.peak, t.peak, "calls at once at most at"),
            ];
            for (_, want, got, words) in fields {
                if let Some(want) = want {
                    if want != got {
                        return Some((format!("{want} {words} {}", x.target), format!("{got}")));
                    }
                }
            }
            if let Some(answered) = &x.answered {
                for (code, want) in answered {
                    let got = t.answered.get(code).copied().unwrap_or(0);
                    if *want != got {
                        return Some((
                            format!("{want} calls answered {code} by {}", x.target),
                            format!("{got}"),
                        ));
                    }
                }
            }
            None
        }
        Step::ExpectTransitions(want) => {
            let got = r.transitions.clone().unwrap_or_default();
            (want != &got).then(|| (records(want), records(&got)))
        }
        Step::Script(_) | Step::Advance(_) => None,
    }
}

fn list(codes: &[String]) -> String {
    if codes.is_empty() {
        "nothing".to_owned()
    } else {
        codes.join(", ")
    }
}

fn counts(map: &BTreeMap<String, u32>) -> String {
    if map.is_empty() {
        return "nothing".to_owned();
    }
    map.iter()
        .map(|(k, v)| format!("{v}x {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn records(lines: &[String]) -> String {
    if lines.is_empty() {
        "no transition records".to_owned()
    } else {
        format!("[{}]", lines.join("; "))
    }
}

/// The steps that ran, as a timeline.
pub(crate) fn timeline(
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
                    action: describe(&placed.step),
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
        } else if matches!(placed.step, Step::SendConcurrent(_) | Step::Release(_)) {
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
        let targets = r
            .targets
            .iter()
            .map(|t| {
                format!(
                    "{} {} calls={} in_flight={} peak={}",
                    t.name,
                    t.state.as_deref().unwrap_or("?"),
                    t.calls,
                    t.in_flight,
                    t.peak
                )
            })
            .collect();
        let all = r.transitions.clone().unwrap_or_default();
        let new = all
            .get(seen_transitions..)
            .map(<[String]>::to_vec)
            .unwrap_or_default();
        seen_transitions = all.len();
        out.push(TimelineEntry {
            step: i + 1,
            at: clock(r.at_ms),
            action: describe(&placed.step),
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
            "lab4_harness::events",
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
