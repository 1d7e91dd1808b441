//! Running one scenario: the plan the lab's harness gets ([`plan`]), and the child
//! process that carries it out ([`runner`]).

pub mod results;
pub mod runner;

use grader_protocol::{PROTOCOL_VERSION, Plan};

use crate::scenario::Scenario;

/// The plan the harness runs for `scenario`: the lab's actions for its steps, a request
/// stuck inside the code under test for `stuck_after_ms` of wall time counting as stuck.
pub fn plan(scenario: &Scenario, stuck_after_ms: u64) -> Plan {
    Plan {
        protocol: PROTOCOL_VERSION,
        results_path: String::new(),
        stuck_after_ms,
        targets: scenario.targets.clone(),
        actions: scenario
            .steps
            .iter()
            .map(|p| scenario.plugin.action(&p.step))
            .collect(),
        race: None,
    }
}
