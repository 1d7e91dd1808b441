//! A clock that code reads **and waits on**, for every lab whose code waits.
//!
//! Code that waits with `thread::sleep` or `Condvar::wait_timeout` waits in real time,
//! which a grader cannot control. Code written against this crate waits through an
//! injected [`Clock`] instead, always until a deadline: the grader injects a [`FakeClock`]
//! whose time moves only when a scenario says so and which wakes each waiter whose
//! deadline has come; production code uses [`MonotonicClock`].
//!
//! - [`Clock`]: `now()` and `wait(bell, deadline, why)`; [`Clock::sleep_until`] for a pause;
//!   [`just_after`], the deadline for a rule that says "longer than".
//! - [`Wake`]: a bell rung once, the building block of every wait.
//! - [`Monitor`], [`MonitorGuard`]: a mutex whose guard waits, on the clock, for another
//!   thread's change (a mutex and a condition variable in one).
//! - [`Waiting`]: what a waiting thread waits for, as reports name it.
//! - [`FakeClock`], [`Waiter`]: the grader's clock and what it knows of each waiter, from
//!   which a harness settles a step (every request returned or waiting on the clock).
//! - [`Quiet`]: the kit's bookkeeping lock, for the contract crates built on this one.
//!
//! A lab's contract crate (`shipping_kit` for lab 6) re-exports what its students use.
//! Built with the feature `race` and the race checks' own `std` (its twin,
//! `grader/race/twins/waiting_clock`), [`Monitor::notify_one`]'s choice is the explorer's
//! and [`Quiet`] is a lock the explorer does not see.

mod fake;
mod monitor;
mod quiet;
mod real;
mod wait;

pub use fake::{FakeClock, Waiter};
pub use monitor::{Monitor, MonitorGuard};
pub use quiet::Quiet;
pub use real::MonotonicClock;
pub use wait::{Clock, Waiting, Wake, just_after};
