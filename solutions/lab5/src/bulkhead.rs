//! A bulkhead: a hard limit on how many messages of one flow are in progress at once.
//!
//! A message over the limit is turned away at once with `NoCapacity`. It never waits for a
//! slot: waiting callers are the pile-up of threads the bulkhead exists to prevent.

use std::sync::atomic::{AtomicUsize, Ordering};

use gateway_kit::Outcome;

/// One flow's concurrency limit. Share it between threads with `&Bulkhead` or `Arc`.
///
/// Slots are counted with one atomic: taking a slot is a compare-and-swap that succeeds
/// only while the count is under the limit, so two threads can never both take the last
/// slot.
pub struct Bulkhead {
    limit: usize,
    in_use: AtomicUsize,
}

/// A taken slot. Dropping it gives the slot back, on every path out of the call.
struct Slot<'a> {
    in_use: &'a AtomicUsize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.in_use.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Bulkhead {
    /// A bulkhead that lets at most `limit` calls in at once.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            in_use: AtomicUsize::new(0),
        }
    }

    /// Runs `call` if a slot is free, holding the slot until `call` returns (or unwinds).
    /// Returns `NoCapacity` at once, without running `call`, when every slot is taken.
    pub fn call(&self, call: impl FnOnce() -> Outcome) -> Outcome {
        let Some(_slot) = self.try_take_slot() else {
            return Outcome::NoCapacity;
        };
        call()
    }

    fn try_take_slot(&self) -> Option<Slot<'_>> {
        self.in_use
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot {
                in_use: &self.in_use,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_away_over_the_limit_and_gives_slots_back() {
        let b = Bulkhead::new(1);
        assert_eq!(
            b.call(|| b.call(|| Outcome::Status(200))),
            Outcome::NoCapacity
        );
        assert_eq!(b.call(|| Outcome::Status(503)), Outcome::Status(503));
        assert_eq!(b.call(|| Outcome::Status(200)), Outcome::Status(200));
    }

    #[test]
    fn a_slot_comes_back_after_a_panic() {
        let b = Bulkhead::new(1);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            b.call(|| panic!("partner client blew up"))
        }));
        assert!(result.is_err());
        assert_eq!(b.call(|| Outcome::Status(200)), Outcome::Status(200));
    }
}
