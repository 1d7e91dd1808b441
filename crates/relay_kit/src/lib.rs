//! The contract every lab 4 crate shares.
//!
//! The student's relay, the reference solution, the scripted fixture targets and the
//! grader's harness all speak these types, and nothing else:
//!
//! - [`Clock`]: where the relay reads time. The grader injects a [`FakeClock`] that only
//!   moves when a scenario says so; production code uses [`MonotonicClock`].
//! - [`Code`]: what a request ends with (`OK`, the business answer `B201`, the system
//!   errors `E500`/`E901`/`E902`, and the relay's own rejections `E904`/`E905`).
//! - [`Target`] and [`Request`]: a system the relay forwards to, and what it forwards.
//! - [`State`], [`Transition`] and [`TransitionLog`]: the breaker's states and the record
//!   of every change between them.
//!
//! This crate depends on nothing else in the workspace.

mod clock;
mod code;
mod config;
mod target;
mod transition;

pub use clock::{Clock, FakeClock, MonotonicClock, format_clock_time};
pub use code::{Code, ParseCodeError};
pub use config::{BreakerConfig, TargetConfig};
pub use target::{Request, Target, forward};
pub use transition::{State, Transition, TransitionLog};
