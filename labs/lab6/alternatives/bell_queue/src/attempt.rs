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

/// Whether the dependency itself answered with a quick failure.
fn quick_failure(answer: Answer) -> bool {
    matches!(answer, Answer::Unavailable | Answer::Refused)
}

/// What `attempt` tells the breaker, or `None` when the dependency never saw it.
pub fn observe(attempt: Attempt) -> Option<Observation> {
    let failed = match attempt {
        Attempt::Answered(answer) => quick_failure(answer),
        Attempt::Timeout => true,
        // Turned away by the shop: the vendor was never asked.
        Attempt::NoCapacity | Attempt::QueueExpired | Attempt::CircuitOpen => return None,
    };
    Some(if failed {
        Observation::Failure
    } else {
        Observation::Success
    })
}

/// Whether another attempt may follow this one: a quick failure of the dependency only.
pub fn retryable(attempt: Attempt) -> bool {
    if let Attempt::Answered(answer) = attempt {
        quick_failure(answer)
    } else {
        false
    }
}

/// Why `attempt` brought no valid answer, or `None` when it did.
pub fn cause(attempt: Attempt) -> Option<Cause> {
    Some(match attempt {
        Attempt::Answered(Answer::Unavailable) => Cause::Unavailable,
        Attempt::Answered(Answer::Refused) => Cause::Refused,
        Attempt::Answered(_) => return None,
        Attempt::Timeout => Cause::Timeout,
        Attempt::NoCapacity => Cause::NoCapacity,
        Attempt::QueueExpired => Cause::QueueExpired,
        Attempt::CircuitOpen => Cause::CircuitOpen,
    })
}
