//! `std::hint`, where a spin loop lets the other tasks run.

pub use ::std::hint::*;

/// Lets the explorer run another task: a busy wait only ends when someone else acts.
pub use shuttle::hint::spin_loop;
