//! How scenarios are run: the limits, how many at once, backtraces, race exploration,
//! confinement and pictures, as every command that grades sets them.

use std::sync::Arc;

use crate::build::confinement::Confinement;
use crate::picture::Album;

/// How to run the scenarios.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Wall-clock limit per scenario, in milliseconds.
    pub timeout_ms: u64,
    /// Wall-clock limit for a request stuck inside the code under test, in milliseconds.
    pub stuck_after_ms: u64,
    /// Scenarios run at once.
    pub jobs: usize,
    /// Capture backtraces of panics.
    pub backtrace: bool,
    /// Race scenarios run only this schedule (`--schedule`), and tell it in full.
    pub schedule: Option<u64>,
    /// How race scenarios explore schedules: the lab's race settings, if it has any.
    pub race: Option<super::race::Settings>,
    /// For submissions: how their code is confined (`None` for the kit's own crates and
    /// a student's own crate), set on each submission's subject
    /// ([`crate::grade::submit::Ready::confine`]).
    pub confinement: Option<Arc<Confinement>>,
    /// Where each scenario's picture is kept, when the run's page or a platform's output
    /// will show them ([`crate::picture`]); `None` keeps none.
    pub album: Option<Arc<Album>>,
}
