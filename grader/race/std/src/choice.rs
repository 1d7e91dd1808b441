//! Choices the explorer makes, like the order it runs threads in.
//!
//! Not part of `std`. Kit code whose behaviour is left open on purpose (which of several
//! sleepers a `notify_one` wakes) asks here when it runs on the explorer: each schedule
//! makes its own choice, from the schedule's seed, and makes the same one when it is
//! replayed, so the race checks try every answer the code under test must cope with.

use shuttle::rand::{RngCore, thread_rng};

/// A number from 0 to `n - 1`, chosen by the running schedule; 0 when `n` is 0 or 1.
pub fn pick(n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let n = n as u64;
    usize::try_from(thread_rng().next_u64() % n).unwrap_or(0)
}
