//! A process stopped by its CPU time or memory limit, said so: the judge only sees a
//! signal.

use crate::report::{ScenarioResult, Status};
use crate::run::runner::{Ending, Limits, Run};

/// The start of a race check's message when its process ended before it had explored
/// every schedule (`crate::judge::race`).
pub const RACE_STOPPED: &str = "the race harness stopped before it finished exploring";

/// Says so when a process was stopped by the CPU time or memory limit, which the judge
/// only sees as a signal.
pub fn explain_limits(mut result: ScenarioResult, run: &Run, limits: &Limits) -> ScenarioResult {
    const KILLED: &str = "the process was killed by signal ";
    if result.status != Status::Passed && result.message.starts_with(RACE_STOPPED) {
        return explain_race_limits(result, run, limits);
    }
    if result.status == Status::Passed || !result.message.contains(KILLED) {
        return result;
    }
    let Ending::Signaled(signal) = run.ending else {
        return result;
    };
    let out_of_memory = run.stderr.contains("memory allocation of");
    let why = match (limits.memory_bytes, limits.cpu_seconds) {
        (Some(bytes), _) if out_of_memory => format!(
            "the process ran out of memory (the limit is {} MB per scenario): it allocates without bound?",
            bytes / (1024 * 1024)
        ),
        (_, Some(seconds)) if signal == libc::SIGXCPU || signal == libc::SIGKILL => {
            result.status = Status::Timeout;
            format!(
                "the process used up its CPU time (the limit is {seconds} s per scenario, all threads together): an endless loop, or busy waiting?"
            )
        }
        _ => return result,
    };
    // The judge's text is "...killed by signal N <place> (an abort?)": keep the place.
    let Some(start) = result.message.find(KILLED) else {
        return result;
    };
    let rest = &result.message[start + KILLED.len()..];
    let place = rest
        .split_once(' ')
        .map_or("", |(_, p)| p)
        .trim_end_matches(" (an abort?)");
    let (why, question) = why.split_once(": ").unwrap_or((&why, ""));
    result.message = format!("{}{why} {place}: {question}", &result.message[..start]);
    result
}

/// A race check whose explorer was stopped by the CPU time limit: all its schedules share
/// one limit, and the explorer cannot stop a schedule whose code loops without taking a
/// lock (it never gets a word in), so the limit is what ends it.
fn explain_race_limits(mut result: ScenarioResult, run: &Run, limits: &Limits) -> ScenarioResult {
    let (&Ending::Signaled(signal), Some(seconds)) = (&run.ending, limits.cpu_seconds) else {
        return result;
    };
    if signal != libc::SIGXCPU && signal != libc::SIGKILL {
        return result;
    }
    result.status = Status::Timeout;
    result.message = format!(
        "exploring the schedules used up its CPU time (the limit is {seconds} s per race check, every schedule together) before the last schedule ended: on some schedule the code under test never stops (an endless loop that takes no lock, so the explorer cannot switch threads), or each schedule takes far too long (printing a lot, say)"
    );
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ScenarioResult, Status};
    use crate::run::runner::{Ending, Limits, Run};

    fn crashed(message: &str) -> ScenarioResult {
        ScenarioResult {
            name: "x".into(),
            title: "x".into(),
            category: "x".into(),
            status: Status::Error,
            score: 0,
            max_score: 1,
            message: message.into(),
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

    fn run(ending: Ending, stderr: &str) -> Run {
        Run {
            events: Vec::new(),
            unreadable: None,
            ending,
            stderr: stderr.into(),
        }
    }

    const LIMITS: Limits = Limits {
        cpu_seconds: Some(10),
        memory_bytes: Some(512 * 1024 * 1024),
    };

    #[test]
    fn the_cpu_limit_is_named_and_counts_as_a_timeout() {
        let judged = crashed("the process was killed by signal 24 during step 2 (an abort?)");
        let r = explain_limits(judged, &run(Ending::Signaled(libc::SIGXCPU), ""), &LIMITS);
        assert_eq!(r.status, Status::Timeout);
        assert_eq!(
            r.message,
            "the process used up its CPU time (the limit is 10 s per scenario, all threads together) during step 2: an endless loop, or busy waiting?"
        );
    }

    #[test]
    fn a_race_check_out_of_cpu_time_is_a_timeout_that_says_why() {
        let judged = crashed(&format!("{RACE_STOPPED} (killed by signal 24)"));
        let r = explain_limits(judged, &run(Ending::Signaled(libc::SIGXCPU), ""), &LIMITS);
        assert_eq!(r.status, Status::Timeout);
        assert!(
            r.message.starts_with(
                "exploring the schedules used up its CPU time (the limit is 10 s per race check"
            ),
            "{}",
            r.message
        );
        // Another ending of the race harness is left as the judge told it.
        let judged = crashed(&format!("{RACE_STOPPED} (exit status 3)"));
        let r = explain_limits(judged.clone(), &run(Ending::Exited(3), ""), &LIMITS);
        assert_eq!(r.message, judged.message);
    }

    #[test]
    fn the_memory_limit_is_named() {
        let judged = crashed("the process was killed by signal 6 during step 1 (an abort?)");
        let stderr = "memory allocation of 67108864 bytes failed\n";
        let r = explain_limits(
            judged,
            &run(Ending::Signaled(libc::SIGABRT), stderr),
            &LIMITS,
        );
        assert_eq!(r.status, Status::Error);
        assert!(
            r.message.starts_with(
                "the process ran out of memory (the limit is 512 MB per scenario) during step 1"
            ),
            "{}",
            r.message
        );
    }

    #[test]
    fn other_crashes_are_left_alone() {
        let judged = crashed("the process was killed by signal 11 during step 1 (an abort?)");
        let r = explain_limits(judged.clone(), &run(Ending::Signaled(11), ""), &LIMITS);
        assert_eq!(r.message, judged.message);
        let r = explain_limits(
            judged.clone(),
            &run(Ending::Signaled(libc::SIGXCPU), ""),
            &Limits::default(),
        );
        assert_eq!(r.message, judged.message);
    }
}
