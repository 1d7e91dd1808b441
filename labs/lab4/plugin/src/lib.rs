//! Lab 4's plug-in for the grader: everything the grader knows about lab 4 that no other
//! lab shares. Its scenario steps ([`steps`]), what they must mean ([`validate`]), what
//! the harness does for each ([`Plugin::action`]), how its observations are judged
//! ([`judge`]), its words ([`words`]), and its failure rehearsal on real sockets
//! ([`rehearsal`]). The settings, actions and observations are the
//! ones lab 4's harness speaks (`lab4_harness::wire`).

pub mod generate;
pub mod judge;
pub mod picture;
pub mod rehearsal;
pub mod steps;
pub mod validate;
pub mod words;

use grader_lab::{Harness, Plugin, StepRecord, Words};
use lab4_harness::wire::{Action, Observation, Settings};
use serde_json::Value;

use steps::Step;

/// Lab 4: a relay with a circuit breaker and a bulkhead per target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lab4;

/// The hint for requests stuck inside the relay, whatever the scenario was about.
const STUCK_HINT: &str = "A request that is neither answered nor inside the target is still in your relay. The usual causes: the bulkhead waits for a slot instead of returning E905; a slot is never given back (a failure or B201 path that skips it: use a guard whose Drop gives it back); the breaker's lock is held while the target is called, so every other request to that target queues on the lock; or a loop that never ends.";

static WORDS: Words = Words {
    subject: "the relay",
    constructor: "Relay::new",
    observers: "Relay::breaker_state or Relay::transitions",
    stuck_expected: "every request returns at once or waits inside the target (never inside the relay)",
    parked: "held inside {target}",
    stuck_cause: "a caller is waiting (for a lock or a slot) or looping instead of being answered at once",
    stuck_hint: STUCK_HINT,
    initially: "every target answers OK until scripted otherwise",
    real_time_fix: grader_lab::READ_TIME_ONLY,
};

impl Plugin for Lab4 {
    type Settings = Settings;
    type Step = Step;
    type Action = Action;
    type Observation = Observation;

    fn name(&self) -> &'static str {
        "lab4"
    }

    fn harness(&self) -> Harness {
        Harness {
            program: "main/src/main.rs",
            code_under_test: "relay_base",
            dependencies: &[
                ("relay_kit", "crates/relay_kit"),
                ("lab4_harness", "labs/lab4/harness"),
            ],
            subject_dependencies: &[("relay_kit", "crates/relay_kit")],
        }
    }

    fn race_harness(&self) -> Option<Harness> {
        // The same program file, linked with the race harness, and the crate under test built
        // on the kit's std for the explorer (`grader/race/std`), under their usual names.
        Some(Harness {
            program: "main/src/main.rs",
            code_under_test: "relay_base",
            dependencies: &[
                ("relay_kit", "grader/race/twins/relay_kit"),
                ("lab4_harness", "labs/lab4/race"),
            ],
            subject_dependencies: &[
                ("std", "grader/race/std"),
                ("core", "grader/race/core"),
                ("relay_kit", "grader/race/twins/relay_kit"),
            ],
        })
    }

    fn rehearsal(&self) -> Option<&dyn grader_lab::rehearsal::Rehearsal> {
        Some(&rehearsal::Lab4Rehearsal)
    }

    fn words(&self) -> &Words {
        &WORDS
    }

    fn action(&self, step: &Step) -> Action {
        match step {
            Step::Script(x) => Action::Script {
                target: x.target.clone(),
                answer: x.answer.clone(),
            },
            Step::Send(x) => Action::Send {
                target: x.target.clone(),
                count: x.count.unwrap_or(1),
            },
            Step::SendConcurrent(x) => Action::SendConcurrent {
                target: x.target.clone(),
                count: x.count,
            },
            Step::Release(x) => Action::Release {
                target: x.target.clone(),
                count: x.count,
                answer: x.answer.clone(),
            },
            Step::Advance(x) => Action::Advance { ms: x.ms },
            Step::Expect(_) | Step::ExpectTransitions(_) => Action::Observe,
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

    fn unpinned(&self, steps: &[Value], records: &[StepRecord<Observation>]) -> Option<usize> {
        generate::unpinned(steps, records)
    }

    grader_lab::lab_modules!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::SchemaGenerator;

    fn step(json: &str) -> Step {
        serde_json::from_str(json).expect("a step")
    }

    #[test]
    fn the_schema_offers_the_validators_words() {
        let mut generator = SchemaGenerator::default();
        let _ = generator.subschema_for::<Step>();
        let defs = generator.definitions();
        for (name, words) in [
            ("Outcome", &steps::OUTCOMES[..]),
            ("ScriptAnswer", &steps::SCRIPT_ANSWERS[..]),
            ("BreakerState", &steps::STATES[..]),
        ] {
            assert_eq!(defs[name]["enum"], serde_json::json!(words), "{name}");
        }
    }

    #[test]
    fn checks_become_observations_and_sends_keep_their_count() {
        let lab = Lab4;
        assert_eq!(
            lab.action(&step(r#"{"send": {"target": "claims"}}"#)),
            Action::Send {
                target: "claims".into(),
                count: 1
            }
        );
        assert_eq!(
            lab.action(&step(r#"{"expect_transitions": []}"#)),
            Action::Observe
        );
        assert_eq!(
            lab.advances_clock(&step(r#"{"advance": {"ms": 250}}"#)),
            250
        );
        assert!(lab.simultaneous(&step(
            r#"{"release": {"target": "claims", "answer": "OK"}}"#
        )));
    }
}
