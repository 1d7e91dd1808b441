//! Lab 4: a relay that protects each of its targets with a circuit breaker and a bulkhead.
//!
//! The handout is `labs/lab4/README.md`. You write three files, each marked with
//! `TODO(lab4)` and a `todo!()`:
//!
//! - `src/breaker.rs`: the circuit breaker state machine;
//! - `src/bulkhead.rs`: the per-target concurrency limit;
//! - `src/relay.rs`: one breaker and one bulkhead per target, around every call.
//!
//! Keep the public items as they are (names, arguments, return types): the grader calls
//! `Relay::new`, `Relay::handle`, `Relay::breaker_state` and `Relay::transitions`, and the
//! handout describes the breaker and bulkhead by these names. Everything private is
//! yours to shape.

// No `unsafe` in the crate, and no `allow` in one of its files can lift this. The grader
// adds the same rule to every crate it builds from a student's files.
#![forbid(unsafe_code)]

pub mod breaker;
pub mod bulkhead;
pub mod relay;

pub use breaker::{Breaker, counts_as_failure};
pub use bulkhead::Bulkhead;
pub use relay::Relay;

// The grader sends requests from many threads at once: the relay must be shareable
// between threads. If this line fails to compile, a field of your relay, breaker or
// bulkhead is not thread-safe (use Mutex, not RefCell or Cell).
const _: () = {
    const fn shareable_between_threads<T: Send + Sync>() {}
    shareable_between_threads::<Relay>();
};
