//! How much one step of a scenario may ask of a harness, in every lab: a scenario is a
//! short story told to a child process, and each request sent costs it real time (each
//! request sent at once, a thread). A plug-in's step types state these in their schema,
//! and its checks refuse more with [`Checker::at_most`](crate::Checker::at_most) and
//! [`Checker::advance`](crate::Checker::advance).

/// The most requests one step may send one after the other, or release.
pub const MAX_REQUESTS: u32 = 1000;
/// The most requests one step may start at once: each is a thread of the scenario's
/// process.
pub const MAX_CONCURRENT_REQUESTS: u32 = 100;
/// The most one `advance` step may move the fake clock: one day.
pub const MAX_ADVANCE_MS: u64 = 86_400_000;
/// The furthest the fake clock may get in one scenario: a year, well within what the
/// harness's clock holds.
pub const MAX_CLOCK_MS: u64 = 365 * MAX_ADVANCE_MS;
