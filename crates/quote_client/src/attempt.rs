//! How one attempt ends, and what that means for the breaker, for retries and for the
//! caller.
//!
//! An attempt is one try at one call: it can be turned away by the shop itself (the open
//! circuit, a full queue, a wait in the queue that lasted too long), or reach the
//! dependency and get an answer, or run out of budget while waiting for that answer.

use shipping_kit::{Answer, Cause};

/// How one attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// The dependency answered.
    Answered(Answer),
    /// The budget ran out while waiting for the dependency's answer (the call goes on).
    Timeout,
    /// The admission queue was full.
    NoCapacity,
    /// The attempt waited in the admission queue too long, or until the budget ran out.
    QueueExpired,
    /// The circuit is open.
    CircuitOpen,
}

/// What one attempt tells the breaker about the dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    /// The dependency answered: it works, whatever the answer said.
    Success,
    /// The dependency failed or did not answer in time.
    Failure,
}

/// What `attempt` tells the breaker, or `None` when the dependency never saw it.
pub fn observe(attempt: Attempt) -> Option<Observation> {
    // TODO(lab6): one `match` over the handout's table. Is "no tariff" a failure of the
    // vendor? And what do the shop's own rejections tell you about the vendor?
    todo!("lab 6: say what each attempt tells the breaker in observe (got {attempt:?})")
}

/// Whether another attempt may follow this one.
pub fn retryable(attempt: Attempt) -> bool {
    // TODO(lab6): only a quick transient failure is worth another try. Not a timeout (the
    // budget is spent), not the shop's own rejections, not a result or a business answer.
    todo!("lab 6: say which attempts may be retried in retryable (got {attempt:?})")
}

/// Why `attempt` brought no valid answer, or `None` when it did.
pub fn cause(attempt: Attempt) -> Option<Cause> {
    // TODO(lab6): a `Cause` for every ending that is not a result or a business answer.
    todo!("lab 6: name the cause of each failed attempt in cause (got {attempt:?})")
}
