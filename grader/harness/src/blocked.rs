//! Whether every other thread of this process is blocked for good: each one asleep in a
//! wait that has no time limit (a lock, a condition variable), and none of them moved
//! between two looks.
//!
//! This is how a harness tells "requests stuck in the code under test" from "requests
//! still working" without waiting out a fixed time: when the thread that settles a step
//! is the only one that could still wake anybody, and it is waiting too, nothing will
//! ever change. The answer reads no clock, so a verdict built on it does not depend on
//! the machine's speed.
//!
//! Linux tells it in `/proc/self/task/<tid>/`: `stat` (the state letter), `syscall` (the
//! system call a sleeping thread is in, with its arguments) and `status` (how many times
//! it was switched out). Elsewhere, or when those files cannot be read, the answer is
//! "not known", and the caller falls back on its real-time limit.

use std::fs;

/// The `futex` system call's number, where this module knows it.
#[cfg(target_arch = "x86_64")]
const FUTEX: Option<u64> = Some(202);
#[cfg(target_arch = "aarch64")]
const FUTEX: Option<u64> = Some(98);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const FUTEX: Option<u64> = None;

/// One thread as one look saw it.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    tid: u64,
    /// Asleep in a futex wait without a time limit.
    waiting_for_good: bool,
    /// Voluntary and involuntary context switches so far.
    switches: u64,
}

/// Whether every thread of this process but those in `except` is blocked for good:
/// `Some(true)` when two looks in a row saw each of them asleep without a time limit and
/// not switched in between, `Some(false)` when one is not, `None` when it cannot be told.
///
/// Sound: a thread woken between its two looks is either runnable at the second (not
/// asleep) or ran and slept again (one more switch). So at the moment between the two
/// looks every one of them was asleep, and only a thread in `except` can wake them.
pub fn all_blocked(except: &[u64]) -> Option<bool> {
    FUTEX?;
    let first = look(except)?;
    if !first.iter().all(|s| s.waiting_for_good) {
        return Some(false);
    }
    let second = look(except)?;
    Some(first == second)
}

/// This thread's id, as `/proc/self/task` names it.
pub fn current_tid() -> Option<u64> {
    let link = fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

fn look(except: &[u64]) -> Option<Vec<Seen>> {
    let mut seen = Vec::new();
    for entry in fs::read_dir("/proc/self/task").ok()? {
        let entry = entry.ok()?;
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<u64>().ok())
        else {
            continue;
        };
        if except.contains(&tid) {
            continue;
        }
        match thread(tid) {
            Some(s) => seen.push(s),
            // A thread that ended between listing and reading is not waiting on anyone.
            None if !entry.path().exists() => continue,
            None => return None,
        }
    }
    seen.sort_by_key(|s| s.tid);
    Some(seen)
}

fn thread(tid: u64) -> Option<Seen> {
    let dir = format!("/proc/self/task/{tid}");
    let stat = fs::read_to_string(format!("{dir}/stat")).ok()?;
    // `pid (name) S ...`: the name may hold spaces and parentheses, the state follows
    // the last `)`.
    let state = stat.rsplit_once(')')?.1.split_whitespace().next()?;
    let status = fs::read_to_string(format!("{dir}/status")).ok()?;
    let switches = status
        .lines()
        .filter(|l| l.contains("ctxt_switches:"))
        .filter_map(|l| l.split_whitespace().last()?.parse::<u64>().ok())
        .sum();
    let waiting_for_good = state == "S" && {
        let call = fs::read_to_string(format!("{dir}/syscall")).ok()?;
        untimed_futex_wait(&call)
    };
    Some(Seen {
        tid,
        waiting_for_good,
        switches,
    })
}

/// Whether a `syscall` line (`202 0xaddr 0x89 0x2 0x0 ...`: number, then arguments) is a
/// futex wait with no time limit (the fourth field, the timeout, is null).
fn untimed_futex_wait(line: &str) -> bool {
    let mut fields = line.split_whitespace();
    let Some(number) = fields.next().and_then(|n| n.parse::<u64>().ok()) else {
        return false;
    };
    if Some(number) != FUTEX {
        return false;
    }
    let args: Vec<u64> = fields
        .take(4)
        .filter_map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok())
        .collect();
    let [_, op, _, timeout] = args[..] else {
        return false;
    };
    // FUTEX_WAIT (0) or FUTEX_WAIT_BITSET (9), private or not.
    let wait = matches!(op & 0x7f, 0 | 9);
    wait && timeout == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_futex_wait_without_timeout_is_for_good() {
        let futex = FUTEX.unwrap_or(202);
        assert!(untimed_futex_wait(&format!(
            "{futex} 0x7f00 0x89 0x2 0x0 0x0 0xffffffff 0x7ffc 0x7f01"
        )));
        assert!(!untimed_futex_wait(&format!(
            "{futex} 0x7f00 0x89 0x2 0x7ffd1000 0x0 0xffffffff 0x7ffc 0x7f01"
        )));
        // A wake is not a wait; a sleep is not a futex.
        assert!(!untimed_futex_wait(&format!("{futex} 0x7f00 0x81 0x1 0x0")));
        assert!(!untimed_futex_wait("230 0x1 0x0 0x7ffc 0x0"));
        assert!(!untimed_futex_wait("running"));
    }

    #[test]
    fn a_thread_waiting_on_a_held_lock_is_blocked_and_a_sleeping_one_is_not() {
        let Some(me) = current_tid() else { return };
        if all_blocked(&[me]).is_none() {
            return; // No /proc here: nothing to test.
        }
        let lock = Arc::new(Mutex::new(()));
        let held = lock.lock().unwrap();
        let waiter = {
            let lock = lock.clone();
            std::thread::spawn(move || drop(lock.lock()))
        };
        // The test runner's main thread waits with a time limit: leave it out too.
        let runner = u64::from(std::process::id());
        let mut blocked = false;
        for _ in 0..10_000 {
            if all_blocked(&[me, runner]) == Some(true) {
                blocked = true;
                break;
            }
            std::thread::yield_now();
        }
        assert!(
            blocked,
            "a thread waiting for a held lock is never seen blocked"
        );
        drop(held);
        waiter.join().unwrap();
        // A thread in a wait with a time limit will wake up by itself.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let timed = std::thread::spawn(move || {
            let _ = rx.recv_timeout(std::time::Duration::from_secs(30));
        });
        for _ in 0..1000 {
            assert_ne!(all_blocked(&[me, runner]), Some(true));
            std::thread::yield_now();
        }
        drop(tx);
        timed.join().unwrap();
    }
}
