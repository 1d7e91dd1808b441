//! The codes a request can end with.

use std::fmt;
use std::str::FromStr;

/// How a request ended, as the caller (the channel) sees it.
///
/// Three groups matter to the relay:
/// - answers from the target: `Ok` and the business answer `B201` (insufficient funds);
/// - system errors from the target: `E500`, `E901`, `E902`;
/// - the relay's own fast rejections: `E904` (circuit open) and `E905` (bulkhead full).
///
/// Which of these a breaker should count as failures is part of the lab, not of this type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// The target processed the request.
    Ok,
    /// Insufficient funds: the target answered, healthily, that the business rule said no.
    B201,
    /// The target said it could not process the request.
    E500,
    /// The target gave no answer in time.
    E901,
    /// The relay could not even connect to the target.
    E902,
    /// The relay rejected the request at once because the target's circuit is open.
    E904,
    /// The relay rejected the request at once because the target's bulkhead is full.
    E905,
}

impl Code {
    /// Every code, in a fixed order.
    pub const ALL: [Code; 7] = [
        Code::Ok,
        Code::B201,
        Code::E500,
        Code::E901,
        Code::E902,
        Code::E904,
        Code::E905,
    ];

    /// The code as written in scenarios and reports: `OK`, `B201`, `E500`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::B201 => "B201",
            Code::E500 => "E500",
            Code::E901 => "E901",
            Code::E902 => "E902",
            Code::E904 => "E904",
            Code::E905 => "E905",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text was not one of the codes in [`Code::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCodeError(pub String);

impl fmt::Display for ParseCodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a known code", self.0)
    }
}

impl std::error::Error for ParseCodeError {}

impl FromStr for Code {
    type Err = ParseCodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Code::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| ParseCodeError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_text() {
        for code in Code::ALL {
            assert_eq!(code.as_str().parse::<Code>(), Ok(code));
        }
        assert!("E903".parse::<Code>().is_err());
    }
}
