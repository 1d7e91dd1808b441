//! Flows, the messages on them, and the partners the gateway delivers to.

use std::fmt;
use std::str::FromStr;

use crate::Outcome;

/// One flow: a trading partner and one message type it receives, such as `acme/ORDERS`.
///
/// A partner often has a separate endpoint per message type, and one of them can fail
/// while the others work, so the gateway protects each flow on its own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Flow {
    /// The partner's name, such as `acme`.
    pub partner: String,
    /// The message type, such as `ORDERS` (purchase orders) or `INVOIC` (invoices).
    pub message_type: String,
}

impl Flow {
    /// The flow of `message_type` messages to `partner`.
    pub fn new(partner: impl Into<String>, message_type: impl Into<String>) -> Self {
        Self {
            partner: partner.into(),
            message_type: message_type.into(),
        }
    }
}

impl fmt::Display for Flow {
    /// `partner/MESSAGE_TYPE`, such as `acme/ORDERS`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.partner, self.message_type)
    }
}

/// The text was not `partner/MESSAGE_TYPE` with two non-empty names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseFlowError(pub String);

impl fmt::Display for ParseFlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a flow: write partner/MESSAGE_TYPE, such as acme/ORDERS",
            self.0
        )
    }
}

impl std::error::Error for ParseFlowError {}

impl FromStr for Flow {
    type Err = ParseFlowError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let valid = |part: &str| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        match s.split_once('/') {
            Some((partner, message_type)) if valid(partner) && valid(message_type) => {
                Ok(Flow::new(partner, message_type))
            }
            _ => Err(ParseFlowError(s.to_owned())),
        }
    }
}

/// One message to deliver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// A number that identifies the message in reports.
    pub id: u64,
    /// Where it goes: the partner and its message type.
    pub flow: Flow,
}

impl Message {
    /// Message number `id` on `flow`.
    pub fn new(id: u64, flow: Flow) -> Self {
        Self { id, flow }
    }
}

/// A trading partner the gateway delivers messages to.
///
/// `send` blocks until the partner answers or the transport gives up. It may be called from
/// many threads at once. It only ever returns `Status`, `Timeout` or `Refused`: the other
/// outcomes are the gateway's own.
pub trait Partner: Send + Sync {
    /// The partner's name, such as `acme`: the `partner` of its flows.
    fn name(&self) -> &str;

    /// Delivers one message to the partner's endpoint for its message type and waits for
    /// the answer.
    fn send(&self, message: &Message) -> Outcome;
}

/// Sends `message` to `partner` and returns the outcome, containing a panicking client.
///
/// A partner client that panics has not delivered the message: its panic is caught here
/// and turned into `Refused`, so a crash inside one delivery can never take a gateway
/// thread, a held lock or a bulkhead slot down with it.
pub fn deliver(partner: &dyn Partner, message: &Message) -> Outcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| partner.send(message)))
        .unwrap_or(Outcome::Refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Crashing;

    impl Partner for Crashing {
        fn name(&self) -> &str {
            "acme"
        }
        fn send(&self, _: &Message) -> Outcome {
            panic!("client library bug")
        }
    }

    #[test]
    fn flows_print_and_parse_as_partner_slash_type() {
        let flow = Flow::new("acme", "ORDERS");
        assert_eq!(flow.to_string(), "acme/ORDERS");
        assert_eq!("acme/ORDERS".parse::<Flow>(), Ok(flow));
        for bad in ["acme", "acme/", "/ORDERS", "acme/ORD ERS", "a/b/c"] {
            assert!(bad.parse::<Flow>().is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn a_panicking_partner_client_is_a_refused_delivery() {
        let message = Message::new(1, Flow::new("acme", "ORDERS"));
        assert_eq!(deliver(&Crashing, &message), Outcome::Refused);
    }
}
