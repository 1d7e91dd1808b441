//! Running one scenario: the plan the lab's harness gets ([`plan`]), and the child
//! process that carries it out ([`runner`]).

pub mod results;
pub mod runner;

use grader_protocol::{PROTOCOL_VERSION, Plan};

use crate::scenario::Scenario;

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
    pub race: Option<crate::grade::race::Settings>,
    /// For submissions: how their code is confined (`None` for the kit's own crates and
    /// a student's own crate), set on each submission's subject
    /// ([`crate::sandbox::confine`]).
    pub confinement: Option<std::sync::Arc<crate::sandbox::Confinement>>,
    /// Where each scenario's picture is kept, when the run's page or a platform's output
    /// will show them ([`crate::picture`]); `None` keeps none.
    pub album: Option<std::sync::Arc<crate::picture::Album>>,
}

/// The plan the harness runs for `scenario`: the lab's actions for its steps.
pub fn plan(scenario: &Scenario, opts: &RunOptions) -> Plan {
    Plan {
        protocol: PROTOCOL_VERSION,
        results_path: String::new(),
        stuck_after_ms: opts.stuck_after_ms,
        targets: scenario.targets.clone(),
        actions: scenario
            .steps
            .iter()
            .map(|p| scenario.plugin.action(&p.step))
            .collect(),
        race: None,
    }
}
