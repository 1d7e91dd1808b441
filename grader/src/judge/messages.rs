//! Why a scenario stopped: requests stuck inside the code under test, a panic, a crash
//! or a time limit, in words that name the step and the fake-clock time.

use grader_lab::{clock, duration};
use grader_protocol::{PanicRecord, StuckRecord};

use super::describe;
use crate::report::{Failure, Status};
use crate::run::runner::{Ending, Run};
use crate::scenario::Scenario;

/// Where a process stopped that never got past building the code under test.
pub(super) const BEFORE_FIRST_STEP: &str = "before the first step";
/// What the message of a request stuck while busy (not blocked) says of the time.
pub(super) const BUSY_REAL_TIME: &str = "ms of real time";

/// Why a step has no record: stuck requests, a timeout, or a crash.
pub(super) fn missing_step(
    scenario: &Scenario,
    i: usize,
    begun_at: Option<u64>,
    stuck: Option<&StuckRecord>,
    run: &Run,
    timeout_ms: u64,
    observing: bool,
) -> (Status, String, Option<Failure>) {
    let words = scenario.plugin.words();
    let at = begun_at.map(clock).unwrap_or_else(|| "?".into());
    let action = describe(scenario, i);
    if let Some(s) = stuck.filter(|s| s.step == i) {
        let (expected, observed) = stuck_words(scenario, s);
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
        format!("{BEFORE_FIRST_STEP}, while building {}", words.subject)
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

/// What was expected and observed of requests stuck inside the code under test. Requests
/// sent at the same moment enter the code under test one after another, so which of them
/// got stuck is the same on every run: they are named.
fn stuck_words(scenario: &Scenario, s: &StuckRecord) -> (String, String) {
    let words = scenario.plugin.words();
    if s.reading {
        let how = if s.blocked {
            "blocked for good (every thread of the scenario was waiting)".to_owned()
        } else {
            format!("did not return in {} ms of real time, busy", s.waited_ms)
        };
        return (
            format!("{} returns at once", words.observers),
            format!("the grader's call to {} {how}", words.observers),
        );
    }
    let who = requests(&s.requests);
    let parked = words.parked.replace("{target}", &s.target);
    let observed = if s.blocked {
        format!(
            "{who} blocked for good inside {}, neither returned nor {parked}, and every thread of the scenario was waiting",
            words.subject
        )
    } else {
        // Not blocked: busy (a loop), until the real-time limit.
        format!(
            "{who} still running inside {} after {} ms of real time, neither returned nor {parked}",
            words.subject, s.waited_ms
        )
    };
    (words.stuck_expected.to_owned(), observed)
}

/// Request ids in words, runs of consecutive ones shortened: `request #2`, `requests #2,
/// #5`, `requests #2 to #19`.
fn requests(ids: &[u64]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for id in sorted {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == id => *last = id,
            _ => runs.push((id, id)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(a, b)| match b - a {
            0 => format!("#{a}"),
            1 => format!("#{a}, #{b}"),
            _ => format!("#{a} to #{b}"),
        })
        .collect();
    let one = runs.len() == 1 && runs[0].0 == runs[0].1;
    format!("request{} {}", if one { "" } else { "s" }, parts.join(", "))
}

pub(super) fn crash_message(run: &Run, place: &str, timeout_ms: u64) -> String {
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

pub(super) fn panic_message(
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

#[cfg(test)]
mod tests {
    use super::requests;

    #[test]
    fn request_ids_agree_in_number_and_runs_are_shortened() {
        assert_eq!(requests(&[2]), "request #2");
        assert_eq!(requests(&[5, 2]), "requests #2, #5");
        assert_eq!(requests(&[2, 3]), "requests #2, #3");
        assert_eq!(
            requests(&(2..=19).chain([25]).collect::<Vec<_>>()),
            "requests #2 to #19, #25"
        );
    }
}
