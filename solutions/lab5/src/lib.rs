//! Lab 5 reference solution: an EDI gateway that protects each (partner, message type)
//! flow with its own windowed circuit breaker and its own bulkhead, and tells operators
//! when a circuit opens and when it closes.
//!
//! The public API is exactly the skeleton's (`crates/edi_gateway`), so the grader drives
//! this crate and a student's crate the same way.

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
