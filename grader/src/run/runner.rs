//! Running one scenario in a child process, with a wall-clock limit and, set by the
//! kernel in the child, limits on CPU time and memory.
//!
//! The child gets its plan on standard input and writes events to a results file in a
//! private temporary folder; its standard output and error are only kept (up to a cap) to
//! explain a crash. It runs in its own process group, and the whole group is killed when
//! the child ends or runs out of time, so nothing it started outlives it.
//!
//! This is the one module that reads the real clock, and only as a safety net: a correct
//! solution never comes near the limit, so no verdict of correct code depends on it. A
//! machine that stalls does not move it nearer either: the limit counts only the time the
//! child could run ([`watch`]), and a request the harness calls stuck while busy, in a run
//! that stalled, is run again before it becomes a verdict ([`run`]).
//!
//! Standard output goes nowhere: nothing reads it, and code that floods it (gigabytes of
//! debug printing) costs nothing to discard that way.

mod watch;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use grader_protocol::{Event, Plan, StuckRecord};

use crate::error::Error;
use crate::sandbox::Sandbox;
use crate::sandbox::process::{self, Rlimits};

/// Bytes of the child's output kept for the report.
const OUTPUT_CAP: usize = 16 * 1024;
/// The largest file a scenario's process may write: its results file, or anything in
/// its scratch folder. A correct run writes kilobytes.
pub const FILE_BYTES: u64 = 16 * 1024 * 1024;

/// How the child process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this status.
    Exited(i32),
    /// A signal killed it (an abort, a stack overflow, a segfault).
    Signaled(i32),
    /// It ran past the limit and was killed.
    TimedOut,
}

/// The least memory limit a scenario's process may be given, in megabytes: below it the
/// harness itself cannot start its request threads, and correct code fails.
pub const MIN_MEMORY_MB: u64 = 64;

/// Kernel limits on the child process (`setrlimit(2)`), inherited by anything it starts.
/// `None` leaves the limit as the grader's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// CPU seconds, all threads together. At the limit the kernel sends `SIGXCPU`, one
    /// second later `SIGKILL`.
    pub cpu_seconds: Option<u64>,
    /// Bytes of address space. At the limit allocations fail, which aborts a Rust program.
    pub memory_bytes: Option<u64>,
}

/// What came back from one run.
#[derive(Clone, Debug)]
pub struct Run {
    /// Every event the harness wrote, in order.
    pub events: Vec<Event>,
    /// Why the results file could not be read, if it could not; then `events` is empty.
    pub unreadable: Option<String>,
    /// How the process ended.
    pub ending: Ending,
    /// The start of what the code under test printed on standard error.
    pub stderr: String,
}

/// How many times a run is repeated at most because the machine stalled while the harness
/// timed a busy request.
const STALL_RERUNS: usize = 2;

/// Runs `harness` on `plan` under `limits`, killing it after `limit` of real time in which
/// it could run; in `sandbox` when given.
///
/// The harness tells a request stuck while busy by real time. If the machine stalled the
/// run for a good part of that time (stopped, or starved of CPU), the verdict would be the
/// machine's rather than the code's, unless the child used the CPU time a busy loop would:
/// the run is repeated (at most [`STALL_RERUNS`] times), and the last run counts.
pub fn run(
    harness: &Path,
    plan: Plan,
    limit: Duration,
    limits: Limits,
    backtrace: bool,
    sandbox: Option<&Sandbox>,
) -> Result<Run, Error> {
    let stuck_after = Duration::from_millis(plan.stuck_after_ms);
    let mut attempt = 0;
    loop {
        let (run, waited) = run_once(harness, plan.clone(), limit, limits, backtrace, sandbox)?;
        let busy = run
            .events
            .iter()
            .any(|e| matches!(e, Event::Stuck(s) if busy(s)));
        // A loop that burnt its CPU through the stall is the code's all the same.
        let doubtful = waited.stalled >= stuck_after / 4 && waited.cpu < stuck_after / 2;
        if !(busy && doubtful && attempt < STALL_RERUNS) {
            return Ok(run);
        }
        attempt += 1;
    }
}

/// Whether the harness told a request stuck because it ran past the real-time limit, not
/// because every thread was blocked for good.
fn busy(stuck: &StuckRecord) -> bool {
    !stuck.blocked
}

/// One run of [`run`], and how its process was waited for.
fn run_once(
    harness: &Path,
    mut plan: Plan,
    limit: Duration,
    limits: Limits,
    backtrace: bool,
    sandbox: Option<&Sandbox>,
) -> Result<(Run, watch::Waited), Error> {
    let dir = tempfile::Builder::new()
        .prefix("grader-run-")
        .tempdir()
        .map_err(|e| Error::io("create a temporary folder in", &std::env::temp_dir(), e))?;
    let results = dir.path().join("events.jsonl");
    std::fs::File::create(&results).map_err(|e| Error::io("create", &results, e))?;
    let mut env = vec![
        ("RUST_BACKTRACE", "0"),
        // Few malloc arenas, so that the address-space limit measures what the code
        // allocates rather than how many threads it started.
        ("MALLOC_ARENA_MAX", "2"),
    ];
    if backtrace {
        env.push(("GRADER_BACKTRACE", "1"));
    }
    let (mut command, lease) = match sandbox {
        Some(sandbox) => {
            // The sandbox starts from an empty environment, so no SHUTTLE_ variable of
            // the grader's reaches the race explorer.
            plan.results_path = sandbox.results_path(&results);
            let (command, lease) = sandbox.scenario(harness, dir.path(), &results, &env)?;
            (command, Some(lease))
        }
        None => {
            plan.results_path = results.display().to_string();
            let mut command = Command::new(harness);
            command
                .current_dir(dir.path())
                .envs(env.iter().copied())
                .env(grader_protocol::PARENT_VAR, std::process::id().to_string());
            // The race explorer reads its seed from SHUTTLE_RANDOM_SEED when it is set: a
            // stray variable must not change which schedules a number names, nor a verdict.
            for (key, _) in std::env::vars_os() {
                if key.to_string_lossy().starts_with("SHUTTLE_") {
                    command.env_remove(key);
                }
            }
            (command, None)
        }
    };
    let input = serde_json::to_vec(&plan).unwrap_or_default();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    // The sandbox starts the harness itself: the limits must be its from the start.
    // A harness started directly gets them before it is handed its plan.
    if sandbox.is_some() {
        process::set_rlimits(&mut command, rlimits(limits));
    }
    let mut child = command
        .spawn()
        .map_err(|e| Error::io("start the harness", harness, e))?;
    if sandbox.is_none() {
        if let Err(e) = process::limit_running(child.id(), rlimits(limits)) {
            let _ = process::wait_and_kill(child, Some(Duration::ZERO));
            return Err(Error::io("set the limits of", harness, e));
        }
    }
    let stderr = child.stderr.take().map(|s| process::capture(s, OUTPUT_CAP));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        // A child that dies before reading its plan shows up below as a crash.
        let _ = stdin.write_all(&input);
    }
    // Whether it finished or not, nothing it started may outlive it.
    let waited =
        watch::wait(child, limit).map_err(|e| Error::io("wait for the harness", harness, e))?;
    let (status, timed_out) = (waited.status, waited.timed_out);
    // What left the process group goes now too (the sandbox's own way).
    drop(lease);
    let ending = if timed_out {
        Ending::TimedOut
    } else {
        match (status.code(), status.signal()) {
            (Some(code), _) => match sandbox.and_then(|s| s.signal_of(code)) {
                Some(signal) => Ending::Signaled(signal),
                None => Ending::Exited(code),
            },
            (None, Some(sig)) => Ending::Signaled(sig),
            (None, None) => Ending::Exited(-1),
        }
    };
    // Without a sandbox, a process the code started in a session of its own may still
    // hold the pipe; it is not waited for.
    let patience = Duration::from_secs(1);
    let stderr = stderr
        .map(|r| String::from_utf8_lossy(&process::collect(r, patience).bytes).into_owned())
        .unwrap_or_default();
    let (events, unreadable) = match super::results::read(&results) {
        Ok(events) => (events, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    let run = Run {
        events,
        unreadable,
        ending,
        stderr,
    };
    Ok((run, waited))
}

/// The kernel limits of a scenario's process: `limits`, with core dumps off (an abort
/// at the memory limit must not write hundreds of megabytes) and at most [`FILE_BYTES`]
/// per file it writes.
fn rlimits(limits: Limits) -> Rlimits {
    Rlimits {
        cpu_seconds: limits.cpu_seconds,
        address_space: limits.memory_bytes,
        file_size: Some(FILE_BYTES),
    }
}

/// Kills every process in the group `pid` leads.
pub(crate) use crate::sandbox::process::kill_group;

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for a harness: a shell script that reads its plan, starts `sleep` in
    /// the background (writing its pid to `pid_file`), then spins.
    fn spinner(dir: &Path, pid_file: &Path) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("spin.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ncat >/dev/null\nsleep 1000 &\necho $! > '{}'\nwhile :; do :; done\n",
                pid_file.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    fn plan() -> Plan {
        serde_json::from_value(serde_json::json!({
            "protocol": grader_protocol::PROTOCOL_VERSION,
            "results_path": "",
            "stuck_after_ms": 1,
            "targets": [],
            "actions": [],
        }))
        .expect("a minimal plan")
    }

    #[test]
    fn the_cpu_limit_stops_a_spinning_child_and_nothing_it_started_survives() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("sleep.pid");
        let script = spinner(dir.path(), &pid_file);
        let limits = Limits {
            cpu_seconds: Some(1),
            memory_bytes: Some(512 * 1024 * 1024),
        };
        let run = run(
            &script,
            plan(),
            Duration::from_secs(60),
            limits,
            false,
            None,
        )
        .unwrap();
        assert_eq!(run.ending, Ending::Signaled(libc::SIGXCPU), "{run:?}");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let pid = pid.trim();
        assert!(!pid.is_empty());
        // The group was killed; the sleep is gone, or at most a zombie about to be reaped.
        // A process sent SIGKILL can still show as running until the kernel has scheduled
        // its exit (on a loaded machine, a moment after the run returns), so it is given
        // up to five seconds to go; one that survives the kill never goes.
        let alive = || {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let state = status
                .lines()
                .find(|l| l.starts_with("State:"))
                .unwrap_or("State: gone")
                .to_owned();
            let alive = !status.is_empty()
                && !state.contains('Z')
                && !state.contains('X')
                && status.contains("Name:\tsleep");
            alive.then_some(state)
        };
        let mut survived = alive();
        for _ in 0..50 {
            if survived.is_none() {
                break;
            }
            std::thread::park_timeout(Duration::from_millis(100));
            survived = alive();
        }
        assert!(
            survived.is_none(),
            "the background sleep survived the kill by five seconds: {survived:?}"
        );
    }

    #[test]
    fn the_wall_clock_limit_stops_a_child_without_limits() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("sleep.pid");
        let script = spinner(dir.path(), &pid_file);
        let run = run(
            &script,
            plan(),
            Duration::from_millis(300),
            Limits::default(),
            false,
            None,
        )
        .unwrap();
        assert_eq!(run.ending, Ending::TimedOut);
    }
}
