//! How one attempt ends, and what each ending means to the breaker, to retries and to
//! the caller.

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

/// Why `attempt` brought no valid answer, or `None` when it did.
pub fn cause(attempt: Attempt) -> Option<Cause> {
    match attempt {
        Attempt::Answered(Answer::Unavailable) => Some(Cause::Unavailable),
        Attempt::Answered(Answer::Refused) => Some(Cause::Refused),
        Attempt::Answered(Answer::Ok(_) | Answer::NoTariff) => None,
        Attempt::Timeout => Some(Cause::Timeout),
        Attempt::NoCapacity => Some(Cause::NoCapacity),
        Attempt::QueueExpired => Some(Cause::QueueExpired),
        Attempt::CircuitOpen => Some(Cause::CircuitOpen),
    }
}

/// What `attempt` tells the breaker, or `None` when the dependency never saw it: derived
/// from its cause.
pub fn observe(attempt: Attempt) -> Option<Observation> {
    match cause(attempt) {
        None => Some(Observation::Success),
        Some(Cause::Unavailable | Cause::Refused | Cause::Timeout) => Some(Observation::Failure),
        Some(Cause::NoCapacity | Cause::QueueExpired | Cause::CircuitOpen) => None,
    }
}

/// Whether another attempt may follow this one.
pub fn retryable(attempt: Attempt) -> bool {
    matches!(cause(attempt), Some(Cause::Unavailable | Cause::Refused))
}
