//! Waiting for a scenario's process under a real-time limit that only counts the time the
//! process could have run.
//!
//! A plain wall clock would call a correct but stalled process a timeout: one stopped
//! (`SIGSTOP`, a debugger, a frozen container), or starved by a loaded machine. So the
//! process tree is looked at every few milliseconds (`/proc`), and a moment is charged to
//! the limit only when no process of the tree was stopped, and only for the part no
//! thread of it spent waiting for a CPU. A gap in the grader's own looks (the grader was
//! not running either) is charged one look's worth. A deadlock (every thread asleep) or a
//! busy loop given a core is charged in full, so a timeout is still told after the limit;
//! a process that is stalled without end is stopped after [`WALL_FACTOR`] times it.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::sandbox::process::kill_group;

/// How often the process tree is looked at.
const LOOK: Duration = Duration::from_millis(20);
/// A run shorter than this is never looked at: a correct scenario ends well within it.
const FIRST_LOOK: Duration = Duration::from_millis(60);
/// However stalled, a process is stopped after this many times its limit of real time.
pub const WALL_FACTOR: u32 = 10;

/// How a process ended under [`wait`].
#[derive(Clone, Copy, Debug)]
pub struct Waited {
    /// Its exit status.
    pub status: ExitStatus,
    /// Whether it was killed at the limit.
    pub timed_out: bool,
    /// Real time not charged to the limit: stopped, or waiting for a CPU.
    pub stalled: Duration,
    /// CPU time its process tree used, as far as it was seen (all threads together).
    pub cpu: Duration,
}

/// Waits for `child` for at most `limit` of charged time, then kills its process group
/// whether it ended or not (nothing it started may outlive it).
pub fn wait(child: Child, limit: Duration) -> std::io::Result<Waited> {
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    // Waits for the end without reaping, so that the pid stays the child's until the
    // group is killed.
    let waiter = std::thread::spawn(move || {
        let ended = wait_exited(pid);
        let _ = done_tx.send(());
        ended
    });
    // Wall time is the point here: this is the safety net against code that never ends.
    #[allow(clippy::disallowed_methods)]
    let started = Instant::now();
    let mut last = started;
    let mut charged = Duration::ZERO;
    let mut stalled = Duration::ZERO;
    let mut tree = Tree::default();
    let timed_out = loop {
        match done_rx.recv_timeout(LOOK) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break false,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        #[allow(clippy::disallowed_methods)]
        let now = Instant::now();
        let gap = now - last;
        last = now;
        let elapsed = now - started;
        let seen = if elapsed >= FIRST_LOOK {
            tree.look(pid)
        } else {
            Look::default()
        };
        let open = gap.min(LOOK * 3);
        let charge = if seen.stopped {
            Duration::ZERO
        } else {
            open.saturating_sub(seen.waiting)
        };
        stalled += gap - charge;
        charged += charge;
        if charged >= limit || elapsed >= limit * WALL_FACTOR {
            break true;
        }
    };
    kill_group(pid);
    waiter
        .join()
        .map_err(|_| std::io::Error::other("the thread waiting for the process failed"))??;
    let (status, reaped_cpu) = reap(pid)?;
    Ok(Waited {
        status,
        timed_out,
        stalled,
        cpu: reaped_cpu.max(tree.cpu()),
    })
}

/// Blocks until `pid` has exited, leaving it to be reaped.
#[allow(unsafe_code)]
fn wait_exited(pid: u32) -> std::io::Result<()> {
    loop {
        // SAFETY: `info` is a plain struct the kernel fills; `pid` is our own child.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Reaps the exited `pid`: its status, and the CPU time it and the descendants it waited
/// for used.
#[allow(unsafe_code)]
fn reap(pid: u32) -> std::io::Result<(ExitStatus, Duration)> {
    loop {
        let mut status = 0;
        // SAFETY: `usage` is a plain struct the kernel fills; `pid` is our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if r == pid as libc::pid_t {
            let time = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec.max(0) as u64)
                    + Duration::from_micros(t.tv_usec.max(0) as u64)
            };
            let cpu = time(usage.ru_utime) + time(usage.ru_stime);
            return Ok((ExitStatus::from_raw(status), cpu));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// What one look at the process tree saw.
#[derive(Clone, Copy, Debug, Default)]
struct Look {
    /// Some process of the tree was stopped.
    stopped: bool,
    /// The most time one thread spent waiting for a CPU since the last look.
    waiting: Duration,
}

/// Every how many looks (after the first ones) the processes of the tree are found again
/// (a scan of all of `/proc`); the looks in between read only the processes found last.
const RESCAN: u32 = 10;

/// The process tree of one child, as seen so far.
#[derive(Default)]
struct Tree {
    /// Its processes, as found by the last scan.
    pids: Vec<u32>,
    /// Looks so far.
    looks: u32,
    /// Each thread's time waiting for a CPU at the last look, by (pid, tid).
    waited: HashMap<(u32, u32), u64>,
    /// Each process's CPU time at its last look, in clock ticks.
    ticks: HashMap<u32, u64>,
}

impl Tree {
    /// Looks at `root` and every process below it.
    fn look(&mut self, root: u32) -> Look {
        let mut look = Look::default();
        // The first looks scan every time: the sandbox starts the harness a moment
        // after its own process.
        if self.looks < RESCAN || self.looks % RESCAN == 0 {
            self.pids = descendants(root);
        }
        self.looks += 1;
        for &pid in &self.pids {
            let Some(stat) = read_stat(&format!("/proc/{pid}/stat")) else {
                continue;
            };
            look.stopped |= matches!(stat.state, 'T' | 't');
            self.ticks.insert(pid, stat.ticks);
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for task in tasks.flatten() {
                let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
                    continue;
                };
                let Some(wait_ns) = read_wait_ns(pid, tid) else {
                    continue;
                };
                let before = self.waited.insert((pid, tid), wait_ns);
                if let Some(before) = before {
                    let waited = Duration::from_nanos(wait_ns.saturating_sub(before));
                    look.waiting = look.waiting.max(waited);
                }
            }
        }
        look
    }

    /// The CPU time of every process seen, at its last look.
    #[allow(unsafe_code)]
    fn cpu(&self) -> Duration {
        let ticks: u64 = self.ticks.values().sum();
        // SAFETY: sysconf has no preconditions.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        Duration::from_millis(ticks.saturating_mul(1000) / per_second)
    }
}

/// The fields of `/proc/<pid>/stat` a look needs.
struct Stat {
    state: char,
    ppid: u32,
    /// User and system CPU time, in clock ticks.
    ticks: u64,
}

fn read_stat(path: &str) -> Option<Stat> {
    let text = std::fs::read_to_string(path).ok()?;
    // The command name is in parentheses and may hold anything: the fields start after
    // the last closing one.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    Some(Stat {
        state: fields.first()?.chars().next()?,
        ppid: u32::try_from(number(1)?).ok()?,
        ticks: number(11)?.saturating_add(number(12)?),
    })
}

/// Nanoseconds thread `tid` of `pid` has spent waiting for a CPU (`schedstat`).
fn read_wait_ns(pid: u32, tid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// `root` and every process below it, by their parents in `/proc`.
fn descendants(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
                continue;
            };
            if let Some(stat) = read_stat(&format!("/proc/{pid}/stat")) {
                parents.push((pid, stat.ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn spawn(script: &str) -> Child {
        use std::os::unix::process::CommandExt;
        Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("sh starts")
    }

    #[test]
    fn a_process_that_ends_in_time_is_not_timed_out() {
        let waited = wait(spawn("exit 3"), Duration::from_secs(5)).unwrap();
        assert!(!waited.timed_out);
        assert_eq!(waited.status.code(), Some(3));
    }

    #[test]
    fn a_sleeping_process_is_charged_in_full_and_a_spinning_one_uses_cpu() {
        let waited = wait(spawn("sleep 30"), Duration::from_millis(300)).unwrap();
        assert!(waited.timed_out);
        let waited = wait(spawn("while :; do :; done"), Duration::from_millis(300)).unwrap();
        assert!(waited.timed_out);
        assert!(waited.cpu > Duration::ZERO, "{waited:?}");
    }

    #[test]
    // The test stands for whatever stops a process for a while from outside.
    #[allow(clippy::disallowed_methods, unsafe_code)]
    fn time_stopped_is_not_charged() {
        // The process stops itself for a while, then ends: a stopped moment is not the
        // code's, so it ends in time though the wall clock ran past the limit.
        let child = spawn("sleep 0.1; kill -STOP $$; exit 0");
        let pid = child.id();
        let resume = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(900));
            // SAFETY: plain kill(2) on our own child's pid, which is not reaped yet.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGCONT) };
        });
        let waited = wait(child, Duration::from_millis(500)).unwrap();
        resume.join().unwrap();
        assert!(!waited.timed_out, "{waited:?}");
        assert_eq!(waited.status.code(), Some(0));
        assert!(waited.stalled >= Duration::from_millis(400), "{waited:?}");
    }
}
