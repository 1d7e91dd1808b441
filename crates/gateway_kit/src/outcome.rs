//! How one message ends, as the caller of the gateway sees it.

use std::fmt;
use std::str::FromStr;

/// How one message ended.
///
/// Three groups matter to the gateway:
/// - the partner answered with an HTTP status: `Status(200)` (accepted), a business refusal
///   such as `Status(400)` or `Status(422)`, or a sign of trouble such as `Status(429)` or
///   `Status(503)`;
/// - the transport failed: `Timeout` (no answer in time) or `Refused` (no connection);
/// - the gateway said no itself, without contacting the partner: `CircuitOpen` and
///   `NoCapacity`.
///
/// Which of these a breaker should count as failures is part of the lab, not of this type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The partner answered with this HTTP status (100 to 599).
    Status(u16),
    /// The partner gave no answer in time.
    Timeout,
    /// The gateway could not connect to the partner.
    Refused,
    /// The gateway rejected the message at once: the flow's circuit is open.
    CircuitOpen,
    /// The gateway rejected the message at once: the flow's bulkhead is full.
    NoCapacity,
}

impl Outcome {
    /// The outcome as written in scenarios and reports: `200`, `503`, `timeout`, `refused`,
    /// `circuit_open`, `no_capacity`.
    pub fn as_text(self) -> String {
        match self {
            Outcome::Status(status) => status.to_string(),
            other => other.word().unwrap_or_default().to_owned(),
        }
    }

    /// The word for every outcome but `Status`.
    fn word(self) -> Option<&'static str> {
        match self {
            Outcome::Status(_) => None,
            Outcome::Timeout => Some("timeout"),
            Outcome::Refused => Some("refused"),
            Outcome::CircuitOpen => Some("circuit_open"),
            Outcome::NoCapacity => Some("no_capacity"),
        }
    }

    /// Every outcome written as a word, in a fixed order.
    pub const WORDS: [Outcome; 4] = [
        Outcome::Timeout,
        Outcome::Refused,
        Outcome::CircuitOpen,
        Outcome::NoCapacity,
    ];
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Status(status) => write!(f, "{status}"),
            other => f.write_str(other.word().unwrap_or_default()),
        }
    }
}

/// The text was neither an HTTP status from 100 to 599 nor one of the outcome words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOutcomeError(pub String);

impl fmt::Display for ParseOutcomeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not an outcome: write an HTTP status from 100 to 599, or one of \
             timeout, refused, circuit_open, no_capacity",
            self.0
        )
    }
}

impl std::error::Error for ParseOutcomeError {}

impl FromStr for Outcome {
    type Err = ParseOutcomeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(outcome) = Outcome::WORDS.into_iter().find(|o| o.word() == Some(s)) {
            return Ok(outcome);
        }
        let is_status = s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit());
        match s.parse::<u16>() {
            Ok(status) if is_status && (100..=599).contains(&status) => Ok(Outcome::Status(status)),
            _ => Err(ParseOutcomeError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_round_trip_through_text() {
        let samples = [
            Outcome::Status(200),
            Outcome::Status(422),
            Outcome::Status(503),
            Outcome::Timeout,
            Outcome::Refused,
            Outcome::CircuitOpen,
            Outcome::NoCapacity,
        ];
        for outcome in samples {
            assert_eq!(outcome.to_string(), outcome.as_text());
            assert_eq!(outcome.as_text().parse::<Outcome>(), Ok(outcome));
        }
    }

    #[test]
    fn only_real_statuses_and_known_words_parse() {
        for bad in ["99", "600", "0200", "+200", "20", "Timeout", "E904", ""] {
            assert!(bad.parse::<Outcome>().is_err(), "{bad} parsed");
        }
    }
}
