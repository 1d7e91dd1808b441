//! Running one scenario in a child process, with a wall-clock limit and, set by the
//! kernel in the child, limits on CPU time and memory.
//!
//! The child gets its plan on standard input and writes events to a results file in a
//! private temporary folder; its standard output and error are only kept (up to a cap) to
//! explain a crash. It runs in its own process group, and the whole group is killed when
//! the child ends or runs out of time, so nothing it started outlives it.
//!
//! This is the one module that reads the real clock, and only as a safety net: a correct
//! solution never comes near the limit, so no verdict of correct code depends on it.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

use grader_protocol::{Event, Plan};
use std::sync::mpsc;

use crate::error::Error;

/// Bytes of the child's output kept for the report.
const OUTPUT_CAP: usize = 16 * 1024;

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

/// Runs `harness` on `plan` under `limits`, killing it after `limit` of real time.
pub fn run(
    harness: &Path,
    mut plan: Plan,
    limit: Duration,
    limits: Limits,
    backtrace: bool,
) -> Result<Run, Error> {
    let dir = tempfile::Builder::new()
        .prefix("grader-run-")
        .tempdir()
        .map_err(|e| Error::io("create a temporary folder in", &std::env::temp_dir(), e))?;
    let results = dir.path().join("events.jsonl");
    plan.results_path = results.display().to_string();
    let input = serde_json::to_vec(&plan).unwrap_or_default();

    let mut command = Command::new(harness);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .current_dir(dir.path())
        .env("RUST_BACKTRACE", "0")
        // Few malloc arenas, so that the address-space limit measures what the code
        // allocates rather than how many threads it started.
        .env("MALLOC_ARENA_MAX", "2")
        .process_group(0);
    // The race explorer reads its seed from SHUTTLE_RANDOM_SEED when it is set: a stray
    // variable must not change which schedules a number names, nor a verdict.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SHUTTLE_") {
            command.env_remove(key);
        }
    }
    set_limits(&mut command, limits);
    if backtrace {
        command.env("GRADER_BACKTRACE", "1");
    }
    let mut child = command
        .spawn()
        .map_err(|e| Error::io("start the harness", harness, e))?;
    let stdout = child.stdout.take().map(capped_reader);
    let stderr = child.stderr.take().map(capped_reader);
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        // A child that dies before reading its plan shows up below as a crash.
        let _ = stdin.write_all(&input);
    }
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let timed_out = done_rx.recv_timeout(limit).is_err();
    // Whether it finished or not, nothing it started may outlive it. The child is not
    // reaped until the waiter thread returns, so its pid cannot have been reused yet.
    kill_group(pid);
    let status = waiter
        .join()
        .map_err(|_| {
            Error::io(
                "wait for the harness",
                harness,
                std::io::Error::other("waiter thread failed"),
            )
        })?
        .map_err(|e| Error::io("wait for the harness", harness, e))?;
    let ending = if timed_out {
        Ending::TimedOut
    } else {
        match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(sig)) => Ending::Signaled(sig),
            (None, None) => Ending::Exited(-1),
        }
    };
    let _ = stdout.map(JoinHandle::join);
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let (events, unreadable) = match super::results::read(&results) {
        Ok(events) => (events, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    Ok(Run {
        events,
        unreadable,
        ending,
        stderr,
    })
}

/// Reads a stream to its end on a thread, keeping only the first [`OUTPUT_CAP`] bytes, so
/// that a chatty child can never fill its pipe and block.
fn capped_reader(mut stream: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = OUTPUT_CAP.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Makes the child set `limits` on itself between `fork` and `exec`, and turn off core
/// dumps (an abort at the memory limit must not write hundreds of megabytes). A limit is
/// never raised above the grader's own hard limit, which only a privileged process could do.
#[allow(unsafe_code)]
fn set_limits(command: &mut Command, limits: Limits) {
    let cpu = limits.cpu_seconds.map(|s| s.max(1) as libc::rlim_t);
    let memory = limits.memory_bytes.map(|b| b as libc::rlim_t);
    let wanted = [
        (libc::RLIMIT_CORE, Some((0, 0))),
        // The soft limit sends SIGXCPU; the hard limit, a second later, SIGKILL.
        (libc::RLIMIT_CPU, cpu.map(|s| (s, s.saturating_add(1)))),
        (libc::RLIMIT_AS, memory.map(|b| (b, b))),
    ];
    let settings = wanted.map(|(resource, want)| {
        let mut current = libc::rlimit {
            rlim_cur: libc::RLIM_INFINITY,
            rlim_max: libc::RLIM_INFINITY,
        };
        // SAFETY: getrlimit(2) writes one `rlimit` into the struct we lend it.
        let known = unsafe { libc::getrlimit(resource, &mut current) } == 0;
        let ceiling = if known {
            current.rlim_max
        } else {
            libc::RLIM_INFINITY
        };
        let limit = want.map(|(soft, hard): (libc::rlim_t, libc::rlim_t)| libc::rlimit {
            rlim_cur: soft.min(ceiling),
            rlim_max: hard.min(ceiling),
        });
        (resource, limit)
    });
    // SAFETY: the closure runs in the forked child before exec. It only calls
    // setrlimit(2), which is async-signal-safe, on values computed above; it neither
    // allocates nor takes locks (`last_os_error` only reads errno).
    unsafe {
        command.pre_exec(move || {
            for (resource, limit) in &settings {
                if let Some(limit) = limit {
                    if libc::setrlimit(*resource, limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
            }
            Ok(())
        });
    }
}

/// Kills every process in the group the harness leads: the harness itself and anything
/// the code under test forked.
#[allow(unsafe_code)]
fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours. A negative pid
    // names the process group the child was put in by `process_group(0)`.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

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
        let run = run(&script, plan(), Duration::from_secs(60), limits, false).unwrap();
        assert_eq!(run.ending, Ending::Signaled(libc::SIGXCPU), "{run:?}");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let pid = pid.trim();
        assert!(!pid.is_empty());
        // The group was killed; the sleep is gone, or at most a zombie about to be reaped.
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let state = status
            .lines()
            .find(|l| l.starts_with("State:"))
            .unwrap_or("State: gone");
        assert!(
            status.is_empty() || state.contains('Z') || !status.contains("Name:\tsleep"),
            "the background sleep survived: {state}"
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
        )
        .unwrap();
        assert_eq!(run.ending, Ending::TimedOut);
    }
}
