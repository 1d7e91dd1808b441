//! Lab 6 reference solution: a shop whose checkout asks a shipping vendor for a quote
//! through a bounded admission queue, retries quick failures inside one deadline budget,
//! puts lab 5's windowed breaker in front of the vendor, and never confirms a purchase
//! without a real quote; browsing the catalog has capacity of its own.
//!
//! The public API is exactly the skeleton's (`crates/quote_client`), so the grader drives
//! this crate and a student's crate the same way.

pub mod attempt;
pub mod breaker;
pub mod bulkhead;
pub mod client;
pub mod retry;
pub mod shop;

pub use attempt::{Attempt, Observation, cause, observe, retryable};
pub use breaker::Breaker;
pub use bulkhead::{Bulkhead, Refusal, Slot};
pub use client::Client;
pub use retry::pause;
pub use shop::Shop;

// The grader calls the shop from many threads at once: it must be shareable between
// threads. If this line fails to compile, a field of your shop, client, breaker or
// bulkhead is not thread-safe (use Mutex or atomics, not RefCell or Cell).
const _: () = {
    const fn shareable_between_threads<T: Send + Sync>() {}
    shareable_between_threads::<Shop>();
};
