//! How one attempt ends, and what that means for the breaker, for retries and for the
//! caller.
//!
//! | attempt                              | breaker  | retried? | cause          |
//! |--------------------------------------|----------|----------|----------------|
//! | `Answered(Ok)`                       | success  | no       | none: a result |
//! | `Answered(NoTariff)`                 | success  | no       | none: an answer |
//! | `Answered(Unavailable)`, `(Refused)` | failure  | **yes**  | `unavailable`, `refused` |
//! | `Timeout`                            | failure  | no       | `timeout`      |
//! | `NoCapacity`, `QueueExpired`, `CircuitOpen` | nothing | no | their own      |

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
///
/// "No tariff for this destination" is a working vendor's valid answer: a success. The
/// shop's own rejections (full queue, expired wait, open circuit) say nothing about the
/// vendor.
pub fn observe(attempt: Attempt) -> Option<Observation> {
    match attempt {
        Attempt::Answered(Answer::Ok(_) | Answer::NoTariff) => Some(Observation::Success),
        Attempt::Answered(Answer::Unavailable | Answer::Refused) | Attempt::Timeout => {
            Some(Observation::Failure)
        }
        Attempt::NoCapacity | Attempt::QueueExpired | Attempt::CircuitOpen => None,
    }
}

/// Whether another attempt may follow: only after a quick transient failure. A timeout
/// spent the budget; the shop's own rejections would only be rejected again; a result or
/// a business answer is final.
pub fn retryable(attempt: Attempt) -> bool {
    matches!(
        attempt,
        Attempt::Answered(Answer::Unavailable | Answer::Refused)
    )
}

/// Why `attempt` brought no valid answer, or `None` when it did.
pub fn cause(attempt: Attempt) -> Option<Cause> {
    match attempt {
        Attempt::Answered(Answer::Ok(_) | Answer::NoTariff) => None,
        Attempt::Answered(Answer::Unavailable) => Some(Cause::Unavailable),
        Attempt::Answered(Answer::Refused) => Some(Cause::Refused),
        Attempt::Timeout => Some(Cause::Timeout),
        Attempt::NoCapacity => Some(Cause::NoCapacity),
        Attempt::QueueExpired => Some(Cause::QueueExpired),
        Attempt::CircuitOpen => Some(Cause::CircuitOpen),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Attempt; 8] = [
        Attempt::Answered(Answer::Ok(1290)),
        Attempt::Answered(Answer::NoTariff),
        Attempt::Answered(Answer::Unavailable),
        Attempt::Answered(Answer::Refused),
        Attempt::Timeout,
        Attempt::NoCapacity,
        Attempt::QueueExpired,
        Attempt::CircuitOpen,
    ];

    #[test]
    fn only_quick_transient_failures_are_retried() {
        let retried: Vec<Attempt> = ALL.into_iter().filter(|a| retryable(*a)).collect();
        assert_eq!(
            retried,
            [
                Attempt::Answered(Answer::Unavailable),
                Attempt::Answered(Answer::Refused)
            ]
        );
    }

    #[test]
    fn the_shops_own_rejections_are_no_observation() {
        let seen: Vec<Option<Observation>> = ALL.into_iter().map(observe).collect();
        use Observation::{Failure, Success};
        assert_eq!(
            seen,
            [
                Some(Success),
                Some(Success),
                Some(Failure),
                Some(Failure),
                Some(Failure),
                None,
                None,
                None
            ]
        );
        assert_eq!(cause(ALL[0]), None);
        assert_eq!(cause(ALL[1]), None);
        assert_eq!(cause(Attempt::QueueExpired), Some(Cause::QueueExpired));
    }
}
