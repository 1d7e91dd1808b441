//! Lab 5: an EDI gateway that protects each (partner, message type) flow with a windowed
//! circuit breaker and a bulkhead, and tells operators when a circuit opens and closes.
//!
//! The handout is `labs/lab5/README.md`. You write five files, each marked with
//! `TODO(lab5)` and a `todo!()`:
//!
//! - `src/observe.rs`: which outcomes are failures, which are answers, which are neither;
//! - `src/window.rs`: the window of recent outcomes (the latest `window`, younger than
//!   `max_age`);
//! - `src/breaker.rs`: the state machine, its probes, its records and its alerts;
//! - `src/bulkhead.rs`: the per-flow limit on messages in progress;
//! - `src/gateway.rs`: one breaker and one bulkhead per flow, around every delivery.
//!
//! Keep the public items as they are (names, arguments, return types): the grader calls
//! `Gateway::new`, `Gateway::send`, `Gateway::circuit_state` and `Gateway::transitions`,
//! and the handout describes the other items by these names. Everything private is yours
//! to shape.

pub mod breaker;
pub mod bulkhead;
pub mod gateway;
pub mod observe;
pub mod window;

pub use breaker::Breaker;
pub use bulkhead::Bulkhead;
pub use gateway::Gateway;
pub use observe::{Observation, observe};
pub use window::{Tally, Window};

// The grader sends messages from many threads at once: the gateway must be shareable
// between threads. If this line fails to compile, a field of your gateway, breaker,
// window or bulkhead is not thread-safe (use Mutex, not RefCell or Cell).
const _: () = {
    const fn shareable_between_threads<T: Send + Sync>() {}
    shareable_between_threads::<Gateway>();
};
