//! What an outcome says about the partner's health.
//!
//! | outcome                                   | observation |
//! |-------------------------------------------|-------------|
//! | `Timeout`, `Refused`                      | failure     |
//! | `Status(429)`, `Status(500..=599)`        | failure     |
//! | any other status (200, 400, 422, 404, ...) | success     |
//! | `CircuitOpen`, `NoCapacity`               | none at all |

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
///
/// A business refusal (400 bad request, 422 unprocessable, and every other status that is
/// neither 429 nor 5xx) is a healthy partner judging a bad message: a success. Rate
/// limiting (429), server errors (5xx), timeouts and refused connections are failures.
/// `CircuitOpen` and `NoCapacity` come from the gateway itself: the partner never saw the
/// message, so they are no observation at all.
pub fn observe(outcome: Outcome) -> Option<Observation> {
    match outcome {
        Outcome::Timeout | Outcome::Refused => Some(Observation::Failure),
        Outcome::Status(429 | 500..=599) => Some(Observation::Failure),
        Outcome::Status(_) => Some(Observation::Success),
        Outcome::CircuitOpen | Outcome::NoCapacity => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_trouble_fails_and_business_refusals_succeed() {
        for failing in [429, 500, 502, 503, 504, 599] {
            assert_eq!(
                observe(Outcome::Status(failing)),
                Some(Observation::Failure),
                "{failing}"
            );
        }
        for fine in [200, 202, 204, 400, 404, 409, 422, 428, 430] {
            assert_eq!(
                observe(Outcome::Status(fine)),
                Some(Observation::Success),
                "{fine}"
            );
        }
        assert_eq!(observe(Outcome::Timeout), Some(Observation::Failure));
        assert_eq!(observe(Outcome::Refused), Some(Observation::Failure));
        assert_eq!(observe(Outcome::CircuitOpen), None);
        assert_eq!(observe(Outcome::NoCapacity), None);
    }
}
