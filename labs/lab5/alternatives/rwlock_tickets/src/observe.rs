//! What an outcome says about the partner's health.

use gateway_kit::Outcome;

/// What one outcome tells the breaker about the partner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    /// The partner answered: it is working, whatever it thought of the message.
    Success,
    /// The partner is in trouble: no answer, no connection, overloaded or broken.
    Failure,
}

/// What `outcome` tells the breaker, or `None` when it tells nothing.
pub fn observe(outcome: Outcome) -> Option<Observation> {
    match outcome {
        Outcome::Status(s) if s == 429 || (500..600).contains(&s) => Some(Observation::Failure),
        Outcome::Status(_) => Some(Observation::Success),
        Outcome::Timeout | Outcome::Refused => Some(Observation::Failure),
        _ => None,
    }
}
