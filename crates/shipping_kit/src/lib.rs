//! The contract every lab 6 crate shares.
//!
//! The student's shop, the reference solution, the scripted dependencies and the grader's
//! harness all speak these types:
//!
//! - [`Clock`]: where the shop reads time **and waits**. Lab 6's code waits in an admission
//!   queue, between attempts and for answers, always until a deadline on this clock. The
//!   grader injects a [`FakeClock`] whose time moves only when a scenario says so, and
//!   wakes every waiter whose deadline has come; production code uses [`MonotonicClock`].
//! - [`Wake`], [`Monitor`]: the two ways to wait: for a bell to be rung, or for another
//!   thread to change shared state, each until a deadline.
//!
//!   These come from `waiting_clock`, the clock every lab whose code waits shares; this
//!   crate passes them on, so the shop names them all from here.
//! - [`Dependency`], [`Call`] and [`Answer`]: a remote service (the shipping vendor, the
//!   catalog), one call to it that answers later, and what it answered.
//! - [`DependencySettings`]: how the shop protects each dependency, with the lab's
//!   defaults; [`jitter`], the seeded source of the random part of a pause.
//! - [`Order`], [`Checkout`], [`Page`], [`Browse`], [`Cause`], [`Metrics`]: what the shop
//!   is asked and answers, and what it counts.
//! - [`State`], [`Transition`], [`TransitionLog`]: the breaker's states and records, lab
//!   4's (a record names the dependency).

mod call;
mod jitter;
mod settings;
mod shop;

pub use call::{Answer, Call, Completion, Dependency, ParseAnswerError, start_call};
pub use jitter::jitter;
pub use relay_kit::{State, Transition, TransitionLog, format_clock_time};
pub use settings::{BreakerSettings, BulkheadSettings, DependencySettings, RetrySettings};
pub use shop::{Browse, CATALOG, Cause, Checkout, Metrics, Order, Page, SHIPPING};
pub use waiting_clock::{
    Clock, FakeClock, Monitor, MonitorGuard, MonotonicClock, Waiter, Waiting, Wake, just_after,
};
