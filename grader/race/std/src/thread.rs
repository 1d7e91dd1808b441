//! `std::thread` on the runtime: threads are its tasks, run one at a time in the order the
//! explorer chooses. `sleep` and `park_timeout` do not wait: they let other tasks run.

pub use ::std::thread::available_parallelism;
pub use shuttle::thread::{
    AccessError, Builder, JoinHandle, LocalKey, Result, Scope, ScopedJoinHandle, Thread, ThreadId,
    current, panicking, park, park_timeout, scope, sleep, spawn, yield_now,
};
