//! The standard library as the race checks see it.
//!
//! The race checks build the code under test a second time with this crate in place of
//! `std`: its manifest names this package as a dependency called `std`, so every path
//! that starts with `std::` or `::std::` resolves here, while the source files stay exactly
//! as written (line and column numbers included). Everything is the real standard library,
//! except:
//!
//! - [`sync`]: `Mutex`, `RwLock`, `Condvar`, the atomics, `Barrier`, `Once`, `mpsc`, and
//!   `OnceLock`/`LazyLock` (built here on the runtime's primitives) come from the
//!   schedule-exploring runtime, `shuttle`. Every lock, unlock, atomic operation and wait
//!   is a point where the explorer may switch to another thread.
//! - [`thread`]: threads are the runtime's tasks; `sleep` and `yield_now` only let others run.
//! - [`hint::spin_loop`] lets others run.
//!
//! The race driver's own bookkeeping uses [`quiet`] locks, which the explorer does not see;
//! kit code whose behaviour is left open on purpose asks the explorer to choose
//! ([`choice`]).
//!
//! Locks and atomics also write to a [`trace`] of the running schedule: who took which lock
//! where, what an atomic held before and after, and which locks each thread holds now.
//! The race driver reads it to check its properties and to tell the story of a failing
//! schedule.
//!
//! `sync` re-exports only what this crate models: an item of `std::sync` it lacks is a
//! compile error in the race build, which the grader reports as code the race checks
//! cannot model, rather than a real `std` lock that would stall the single thread the
//! runtime runs on.

pub use ::std::*;

pub mod choice;
pub mod hint;
pub mod quiet;
pub mod sync;
pub mod thread;
pub mod trace;

/// `thread_local!` values belong to one of the runtime's tasks, as they would to one thread.
pub use shuttle::thread_local;
