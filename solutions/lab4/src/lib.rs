//! Lab 4 reference solution: a relay that protects each target with its own circuit
//! breaker and its own bulkhead.
//!
//! The public API is exactly the skeleton's (`crates/relay_base`), so the grader drives
//! this crate and a student's crate the same way.

pub mod breaker;
pub mod bulkhead;
pub mod relay;

pub use breaker::{Breaker, counts_as_failure};
pub use bulkhead::Bulkhead;
pub use relay::Relay;
