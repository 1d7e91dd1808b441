//! What the shop is asked, what it answers, and what it counts.

use std::fmt;

/// The name of the shipping vendor's dependency: checkout asks it for a quote.
pub const SHIPPING: &str = "shipping";
/// The name of the catalog's dependency: browsing asks it for a page.
pub const CATALOG: &str = "catalog";

/// An order at checkout: its shipping must be quoted before the purchase is confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// A number that identifies the order (and its quote operation).
    pub id: u64,
}

/// A product page someone browses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// A number that identifies the request.
    pub id: u64,
}

/// Why no valid answer could be had from a dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// The operation's budget ran out while an attempt waited for the dependency's answer.
    Timeout,
    /// The admission queue was full: turned away at once.
    NoCapacity,
    /// Waited in the admission queue too long (or until the budget ran out).
    QueueExpired,
    /// The dependency's circuit is open: turned away at once.
    CircuitOpen,
    /// The dependency answered that it cannot serve now, on the last attempt.
    Unavailable,
    /// The dependency refused the connection, on the last attempt.
    Refused,
}

impl Cause {
    /// The cause as scenarios and reports write it: `timeout`, `no_capacity`,
    /// `queue_expired`, `circuit_open`, `unavailable`, `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Timeout => "timeout",
            Cause::NoCapacity => "no_capacity",
            Cause::QueueExpired => "queue_expired",
            Cause::CircuitOpen => "circuit_open",
            Cause::Unavailable => "unavailable",
            Cause::Refused => "refused",
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a checkout ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkout {
    /// The purchase is confirmed with the shipping price the vendor quoted, in cents.
    Confirmed {
        /// The quoted shipping price, in cents.
        shipping: u64,
    },
    /// The vendor has no tariff for the destination: the order cannot ship there, and is
    /// not confirmed.
    NoTariff,
    /// No valid quote could be had: the shop says shipping is unavailable and does **not**
    /// confirm the purchase.
    Unavailable(Cause),
}

/// How browsing a page ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Browse {
    /// The page was shown.
    Shown,
    /// The catalog could not be reached.
    Unavailable(Cause),
}

/// What the shop counts for one dependency, each cause apart: attempts that ran out of
/// budget waiting for an answer, turned away because the queue was full, removed from the
/// queue, turned away by the open circuit, and valid "no tariff" answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Metrics {
    /// `Cause::Timeout`.
    pub timeout: u64,
    /// `Cause::NoCapacity`.
    pub no_capacity: u64,
    /// `Cause::QueueExpired`.
    pub queue_expired: u64,
    /// `Cause::CircuitOpen`.
    pub circuit_open: u64,
    /// `Answer::NoTariff`: a working vendor's valid answer, not an error.
    pub no_tariff: u64,
}
