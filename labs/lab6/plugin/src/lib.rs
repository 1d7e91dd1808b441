//! Lab 6's plug-in for the grader: everything the grader knows about lab 6 that no other
//! lab shares. Its scenario steps ([`steps`]), what they must mean ([`validate`]), what
//! the harness does for each ([`Plugin::action`]), how its observations are judged
//! ([`judge`]), and its words ([`words`]). The settings, actions and observations are the
//! ones lab 6's harness speaks (`lab6_harness::wire`).

pub mod generate;
pub mod judge;
pub mod picture;
pub mod steps;
pub mod validate;
pub mod words;

use grader_lab::{Harness, Plugin, Words};
use lab6_harness::wire::{Action, Observation, Settings, WakeOrder};

use steps::Step;

/// Lab 6: a shop whose shipping quotes go through a bounded queue, retries inside one
/// budget and a breaker, degrading honestly, alone or as a fleet.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lab6;

/// The hint for requests stuck inside the shop when the harness could not tell whose
/// lock they wait for (see [`words::stuck_hint`]).
const STUCK_HINT: &str = words::STUCK_HINT;

static WORDS: Words = Words {
    subject: "the shop",
    constructor: "Shop::new",
    observers: "Shop::circuit_state, Shop::metrics or Shop::transitions",
    stuck_expected: "every request returns, or waits on the fake clock: for the dependency's answer, in the admission queue, or in a pause",
    parked: "waiting on the fake clock",
    stuck_cause: "a request is blocked in real time (a lock, a real sleep) or looping, instead of returning or waiting on the injected clock",
    stuck_hint: STUCK_HINT,
    initially: "the shipping vendor quotes 12.90 and the catalog shows every page until scripted otherwise",
    real_time_fix: "read time only through the injected `Clock` (`clock.now()`) and wait only through it too: `clock.sleep_until` for a pause, a `Monitor` guard's `wait_until` in the queue, `call.wait_until` for an answer",
};

impl Plugin for Lab6 {
    type Settings = Settings;
    type Step = Step;
    type Action = Action;
    type Observation = Observation;

    fn name(&self) -> &'static str {
        "lab6"
    }

    fn harness(&self) -> Harness {
        Harness {
            program: "main/src/main.rs",
            code_under_test: "quote_client",
            dependencies: &[
                ("shipping_kit", "crates/shipping_kit"),
                ("lab6_harness", "labs/lab6/harness"),
            ],
            subject_dependencies: &[("shipping_kit", "crates/shipping_kit")],
        }
    }

    /// Lab 6's race checks: the same program file, linked with lab 6's race harness
    /// (`labs/lab6/race`), and the crate under test built on the kit's std for the
    /// explorer (`grader/race/std`), with the race build of `shipping_kit` (its clock,
    /// monitor and calls on the explorer, standing on the twin of `relay_kit` in
    /// `grader/race/twins`, which notes each transition record) under its usual name. The
    /// scripted dependencies and the scripted engine they share with labs 4 and 5 are the
    /// race harness's own dependencies (`labs/lab6/race/twins/fixture_dependencies`,
    /// `grader/race/twins/fixture_script`).
    fn race_harness(&self) -> Option<Harness> {
        Some(Harness {
            program: "main/src/main.rs",
            code_under_test: "quote_client",
            dependencies: &[
                ("shipping_kit", "labs/lab6/race/twins/shipping_kit"),
                ("lab6_harness", "labs/lab6/race"),
            ],
            subject_dependencies: &[
                ("std", "grader/race/std"),
                ("core", "grader/race/core"),
                ("shipping_kit", "labs/lab6/race/twins/shipping_kit"),
            ],
        })
    }

    fn words(&self) -> &Words {
        &WORDS
    }

    fn target_noun(&self) -> &'static str {
        "dependency"
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
                instance: x.instance.unwrap_or(1),
                layers: x.layers.unwrap_or(1),
            },
            Step::SendConcurrent(x) => Action::SendConcurrent {
                target: x.target.clone(),
                count: x.count,
                instance: x.instance.unwrap_or(1),
            },
            Step::Release(x) => Action::Release {
                target: x.target.clone(),
                count: x.count,
                answer: x.answer.clone(),
            },
            Step::Advance(x) => Action::Advance { ms: x.ms },
            Step::WakeOrder(order) => Action::WakeOrder {
                order: WakeOrder::from_word(order).unwrap_or_default(),
            },
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
        // Requests released, or woken by the clock, return together too.
        matches!(
            step,
            Step::SendConcurrent(_) | Step::Release(_) | Step::Advance(_)
        )
    }

    grader_lab::lab_modules!();
}
