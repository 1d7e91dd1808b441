//! The contract every lab 5 crate shares.
//!
//! The student's gateway, the reference solution, the scripted partners and the grader's
//! harness all speak these types:
//!
//! - [`Clock`]: where the gateway reads time, the same trait as lab 4's (re-exported from
//!   `relay_kit`). The grader injects a [`FakeClock`]; production code uses
//!   [`MonotonicClock`].
//! - [`Outcome`]: how one message ended: an HTTP status from the partner, a timeout, a
//!   refused connection, or one of the gateway's own rejections.
//! - [`Flow`], [`Message`] and [`Partner`]: a (partner, message type) pair, one message
//!   on it, and the trading partner the gateway delivers to.
//! - [`FlowSettings`] and [`BreakerSettings`]: how each flow is protected, with the lab's
//!   defaults.
//! - [`Alert`] and [`AlertSink`]: what operators are told when a circuit opens and closes.
//! - [`State`], [`Transition`] and [`TransitionLog`]: the breaker's states (lab 4's) and the
//!   record of every change, keyed by flow.

mod alert;
mod flow;
mod journal;
mod outcome;
mod settings;
mod transition;

pub use alert::{Alert, AlertLog, AlertSink};
pub use flow::{Flow, Message, ParseFlowError, Partner, deliver};
pub use outcome::{Outcome, ParseOutcomeError};
pub use relay_kit::{Clock, FakeClock, MonotonicClock, State, format_clock_time};
pub use settings::{BreakerSettings, FlowSettings};
pub use transition::{Transition, TransitionLog};
