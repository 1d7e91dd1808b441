//! Starting a process under kernel limits, keeping a bounded part of what it prints, and
//! stopping it, with everything it started, when it runs out of time.
//!
//! Used for every process whose work a submission influences: its builds and its
//! scenario runs. What a process prints is read on threads so that it never blocks on a
//! full pipe; only the first bytes up to a cap are kept, the rest is counted and thrown
//! away, so no amount of output costs the grader more than the cap.

use std::io::{BufRead, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc;
use std::time::Duration;

/// Kernel limits (`setrlimit(2)`) a process sets on itself before it runs its program;
/// everything it starts inherits them. `None` leaves a limit as the grader's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rlimits {
    /// CPU seconds of each process. At the limit the kernel sends `SIGXCPU`, a second
    /// later `SIGKILL`.
    pub cpu_seconds: Option<u64>,
    /// Bytes of address space of each process.
    pub address_space: Option<u64>,
    /// The largest file a process may write, in bytes (`SIGXFSZ` beyond it).
    pub file_size: Option<u64>,
}

/// The kernel's form of `limits`, with core dumps off: one entry per resource, `None`
/// where the grader's own limit stays. Limits are never raised above the grader's own
/// hard limits, which only a privileged process could do.
#[allow(unsafe_code)]
fn settings(limits: Rlimits) -> [(Resource, Option<libc::rlimit>); 4] {
    let as_rlim = |v: Option<u64>| v.map(|v| v as libc::rlim_t);
    let cpu = as_rlim(limits.cpu_seconds.map(|s| s.max(1)));
    let wanted = [
        (libc::RLIMIT_CORE, Some((0, 0))),
        // The soft limit sends SIGXCPU; the hard limit, a second later, SIGKILL.
        (libc::RLIMIT_CPU, cpu.map(|s| (s, s.saturating_add(1)))),
        (
            libc::RLIMIT_AS,
            as_rlim(limits.address_space).map(|b| (b, b)),
        ),
        (
            libc::RLIMIT_FSIZE,
            as_rlim(limits.file_size).map(|b| (b, b)),
        ),
    ];
    wanted.map(|(resource, want)| {
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
    })
}

/// A resource as `getrlimit(2)` and friends name it.
#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

/// Makes the child set `limits` on itself between `fork` and `exec`, turn core dumps off,
/// and die with the thread that starts it (`PR_SET_PDEATHSIG`), so that a grader that is
/// killed leaves nothing running. For a process that starts others at once (the
/// sandbox), whose children must inherit the limits from their first instruction.
#[allow(unsafe_code)]
pub fn set_rlimits(command: &mut Command, limits: Rlimits) {
    let settings = settings(limits);
    // SAFETY: the closure runs in the forked child before exec. It only calls prctl(2)
    // and setrlimit(2), which are async-signal-safe, on values computed above; it
    // neither allocates nor takes locks (`last_os_error` only reads errno).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
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

/// Sets `limits` (and no core dumps) on the running process `pid` (`prlimit(2)`). For a
/// harness started directly: it waits for its plan on standard input before any code
/// under test runs, so limits set before the plan is written hold for all of it, and it
/// ties itself to the grader ([`grader_protocol::read_plan`]). Starting it needs no
/// `pre_exec` then, so the grader is not copied with `fork` for every scenario: spawning
/// without one costs about a quarter less CPU over an audit. A process already gone is
/// not an error (its end is read as usual).
#[allow(unsafe_code)]
pub fn limit_running(pid: u32, limits: Rlimits) -> std::io::Result<()> {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return Err(std::io::Error::other("process id out of range"));
    };
    for (resource, limit) in settings(limits) {
        let Some(limit) = limit else { continue };
        // SAFETY: prlimit(2) reads the `rlimit` we lend it and writes nothing (the old
        // value is not asked for); the pid is a child of ours.
        let done = unsafe { libc::prlimit(pid, resource, &limit, std::ptr::null_mut()) };
        if done != 0 {
            let error = std::io::Error::last_os_error();
            if error.raw_os_error() == Some(libc::ESRCH) {
                return Ok(());
            }
            return Err(error);
        }
    }
    Ok(())
}

/// Kills every process in the process group `pid` leads. For a sandboxed process that is
/// bubblewrap, whose death takes its whole PID namespace with it.
#[allow(unsafe_code)]
pub fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours. A negative pid
    // names the process group the child was put in by `process_group(0)`.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// An exclusive lock on a file, held until dropped: graders running at once (a batch and
/// a single check, or tests side by side) take turns on a generated workspace, whose
/// `Cargo.lock` cargo rewrites in place.
pub struct FileLock {
    _held: std::fs::File,
}

impl FileLock {
    /// Waits for, then takes, the lock on `path` (created if missing).
    #[allow(unsafe_code)]
    pub fn take(path: &std::path::Path) -> std::io::Result<FileLock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        // SAFETY: flock(2) takes a descriptor we own, open for as long as the lock lives,
        // and plain flags; it touches no memory of ours.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(FileLock { _held: file })
    }
}

/// What was kept of one output stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Captured {
    /// The first bytes, up to the cap.
    pub bytes: Vec<u8>,
    /// How many bytes came after the cap and were thrown away.
    pub dropped: u64,
}

impl Captured {
    /// The kept bytes as text, with a note at the end when some were thrown away.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.dropped > 0 {
            text.push_str(&crate::report::clip::cut_note(self.dropped));
        }
        text
    }
}

/// Reads `stream` to its end on a thread, keeping the first `cap` bytes. The result
/// arrives on the returned channel when the stream closes.
pub fn capture(mut stream: impl Read + Send + 'static, cap: usize) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Captured::default();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.bytes.len());
                    let take = n.min(room);
                    kept.bytes.extend_from_slice(&buf[..take]);
                    kept.dropped += (n - take) as u64;
                }
            }
        }
        let _ = tx.send(kept);
    });
    rx
}

/// Waits at most `patience` for a stream read by [`capture`] to close. A stream that a
/// process outside our reach still holds open (possible only without the sandbox) is
/// given up on rather than waited for.
pub fn collect(rx: mpsc::Receiver<Captured>, patience: Duration) -> Captured {
    rx.recv_timeout(patience).unwrap_or_else(|_| Captured {
        bytes:
            b"(the output stayed open after the process ended: a process it started still held it)"
                .to_vec(),
        dropped: 0,
    })
}

/// Waits for `child` for at most `limit` (forever when `None`), then kills its process
/// group whether it finished or not, so nothing it started outlives it. Returns its exit
/// status and whether it ran out of time.
pub fn wait_and_kill(child: Child, limit: Option<Duration>) -> std::io::Result<(ExitStatus, bool)> {
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    let mut child = child;
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let timed_out = match limit {
        Some(limit) => done_rx.recv_timeout(limit).is_err(),
        None => done_rx.recv().is_err(),
    };
    // The child is not reaped until the waiter thread returns, so its pid cannot have
    // been reused yet.
    kill_group(pid);
    let status = waiter
        .join()
        .map_err(|_| std::io::Error::other("the thread waiting for the process failed"))??;
    Ok((status, timed_out))
}

/// One line read by [`next_line`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, now in the buffer; its length in bytes.
    Whole(usize),
    /// A line longer than the cap, read to its end and thrown away; its length.
    TooLong(u64),
}

/// Reads the next line of `reader` into `line` (emptied first), keeping at most `cap`
/// bytes of it: a longer line is skipped to its end instead. `None` at the end.
pub fn next_line(reader: &mut impl BufRead, cap: usize, line: &mut Vec<u8>) -> Option<Line> {
    line.clear();
    let n = match reader.take(cap as u64).read_until(b'\n', line) {
        Ok(0) | Err(_) => return None,
        Ok(n) => n,
    };
    if n == cap && !line.ends_with(b"\n") {
        let rest = reader.skip_until(b'\n').unwrap_or(0);
        line.clear();
        return Some(Line::TooLong((n + rest) as u64));
    }
    Some(Line::Whole(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_the_start_and_counts_the_rest() {
        let data = vec![b'x'; 100_000];
        let got = collect(
            capture(std::io::Cursor::new(data), 1000),
            Duration::from_secs(5),
        );
        assert_eq!(got.bytes.len(), 1000);
        assert_eq!(got.dropped, 99_000);
        assert!(
            got.text().ends_with("[... 99000 more bytes cut]"),
            "{}",
            got.text()
        );
    }

    #[test]
    fn a_line_longer_than_the_cap_is_skipped_whole() {
        let text = format!("short\n{}\nafter", "x".repeat(100));
        let mut reader = std::io::BufReader::new(text.as_bytes());
        let mut line = Vec::new();
        assert_eq!(next_line(&mut reader, 10, &mut line), Some(Line::Whole(6)));
        assert_eq!(line, b"short\n");
        assert_eq!(
            next_line(&mut reader, 10, &mut line),
            Some(Line::TooLong(101))
        );
        assert_eq!(next_line(&mut reader, 10, &mut line), Some(Line::Whole(5)));
        assert_eq!(line, b"after");
        assert_eq!(next_line(&mut reader, 10, &mut line), None);
    }
}
