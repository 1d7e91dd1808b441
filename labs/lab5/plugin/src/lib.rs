//! Lab 5's plug-in for the grader: everything the grader knows about lab 5 that no other
//! lab shares. Its scenario steps ([`steps`]), what they must mean ([`validate`]), what
//! the harness does for each ([`Plugin::action`]), how its observations are judged
//! ([`judge`]), and its words ([`words`]). The settings, actions and observations are the
//! ones lab 5's harness speaks (`lab5_harness::wire`).

pub mod generate;
pub mod judge;
pub mod picture;
pub mod steps;
pub mod validate;
pub mod words;

use grader_lab::{Harness, Plugin, Words};
use lab5_harness::wire::{Action, Observation, Settings};

use steps::Step;

/// Lab 5: an EDI gateway with a windowed breaker, probes, alerts and a bulkhead per flow.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lab5;

/// The hint for messages stuck inside the gateway when the harness could not tell whose
/// lock they wait for (see [`words::stuck_hint`]).
const STUCK_HINT: &str = words::STUCK_HINT;

static WORDS: Words = Words {
    subject: "the gateway",
    constructor: "Gateway::new",
    observers: "Gateway::circuit_state or Gateway::transitions",
    stuck_expected: "every message returns at once or waits inside the partner (never inside the gateway)",
    parked: "held inside {target}",
    stuck_cause: "a caller is waiting (for a lock or a slot) or looping instead of being answered at once",
    stuck_hint: STUCK_HINT,
    initially: "every flow's endpoint answers 200 until scripted otherwise",
    real_time_fix: grader_lab::READ_TIME_ONLY,
};

impl Plugin for Lab5 {
    type Settings = Settings;
    type Step = Step;
    type Action = Action;
    type Observation = Observation;

    fn name(&self) -> &'static str {
        "lab5"
    }

    fn harness(&self) -> Harness {
        Harness {
            program: "main/src/main.rs",
            code_under_test: "edi_gateway",
            dependencies: &[
                ("gateway_kit", "crates/gateway_kit"),
                ("lab5_harness", "labs/lab5/harness"),
            ],
            subject_dependencies: &[("gateway_kit", "crates/gateway_kit")],
        }
    }

    /// Lab 5's race checks: the same program file, linked with lab 5's race harness
    /// (`labs/lab5/race`), and the crate under test built on the kit's std for the
    /// explorer (`grader/race/std`), with the race builds of `gateway_kit` (which notes
    /// each transition record) and of lab 4's `relay_kit` under their usual names. The
    /// scripted partners and the scripted engine they share with lab 4 are the race
    /// harness's own dependencies (`labs/lab5/race/twins/fixture_partners`,
    /// `grader/race/twins/fixture_script`).
    fn race_harness(&self) -> Option<Harness> {
        Some(Harness {
            program: "main/src/main.rs",
            code_under_test: "edi_gateway",
            dependencies: &[
                ("gateway_kit", "labs/lab5/race/twins/gateway_kit"),
                ("lab5_harness", "labs/lab5/race"),
            ],
            subject_dependencies: &[
                ("std", "grader/race/std"),
                ("core", "grader/race/core"),
                ("gateway_kit", "labs/lab5/race/twins/gateway_kit"),
            ],
        })
    }

    fn words(&self) -> &Words {
        &WORDS
    }

    fn target_noun(&self) -> &'static str {
        "flow"
    }

    fn action(&self, step: &Step) -> Action {
        match step {
            Step::Script(x) => Action::Script {
                flow: x.flow.clone(),
                answer: x.answer.clone(),
            },
            Step::Send(x) => Action::Send {
                flow: x.flow.clone(),
                count: x.count.unwrap_or(1),
            },
            Step::SendConcurrent(x) => Action::SendConcurrent {
                flow: x.flow.clone(),
                count: x.count,
            },
            Step::Release(x) => Action::Release {
                flow: x.flow.clone(),
                count: x.count,
                answer: x.answer.clone(),
            },
            Step::Advance(x) => Action::Advance { ms: x.ms },
            Step::Expect(_) | Step::ExpectTransitions(_) | Step::ExpectAlerts(_) => Action::Observe,
        }
    }

    fn advances_clock(&self, step: &Step) -> u64 {
        match step {
            Step::Advance(x) => x.ms,
            _ => 0,
        }
    }

    fn simultaneous(&self, step: &Step) -> bool {
        // Held calls released together return together too.
        matches!(step, Step::SendConcurrent(_) | Step::Release(_))
    }

    grader_lab::lab_modules!();
}
