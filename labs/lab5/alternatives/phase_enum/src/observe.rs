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
    let failed = match outcome {
        Outcome::CircuitOpen | Outcome::NoCapacity => return None,
        Outcome::Timeout | Outcome::Refused => true,
        Outcome::Status(code) => code == 429 || code / 100 == 5,
    };
    Some(if failed {
        Observation::Failure
    } else {
        Observation::Success
    })
}
