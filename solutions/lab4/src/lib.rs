//! Lab 4 reference solution: a relay that protects each target with its own circuit
//! breaker and its own bulkhead.
//!
//! The public API is exactly the skeleton's (`crates/relay_base`), so the grader drives
//! this crate and a student's crate the same way.

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
