//! What a lab gives the grader.
//!
//! The grader's core reads scenario files, builds crates, runs scenarios in child
//! processes, judges and reports, for any lab. What only one lab knows comes through the
//! [`Plugin`] trait: its step kinds (parsed, checked, turned into the harness's actions),
//! its target settings, what its harness observes and how that is judged, and its words.
//! A lab's plug-in is a crate of its own (`labs/<lab>/plugin`), registered in one place
//! (`grader/src/labs.rs`).
//!
//! A plug-in is written with its own types ([`Plugin`]); the core holds every lab as a
//! [`DynPlugin`], which each plug-in gets for free, and sees steps as [`AnyStep`] and
//! settings and observations as JSON values. The methods every lab writes the same way
//! (each hands a question to the lab's module for it) come from [`lab_modules!`].

mod check;
mod erased;
pub mod generate;
pub mod limits;
pub mod picture;
pub mod plot;
pub mod records;
pub mod rehearsal;
pub mod schema;
pub mod sends;
pub mod steps;
mod wiring;
pub mod words;

use std::fmt::Debug;

pub use check::{Checker, Problem};
pub use erased::{AnyStep, DynPlugin};
pub use generate::{Dice, Draft};
pub use grader_protocol::{RequestOutcome, StepRecord, TargetPlan};
pub use words::{clock, counts, did_you_mean, duration, quantity, times, unknown_word};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
#[doc(hidden)]
pub use serde_json::Value;

/// One lab's rules, as the grader needs them.
///
/// Every method but [`Plugin::check_steps`] looks at one step at a time; the steps a
/// method gets are always this plug-in's own, already parsed from a scenario file.
pub trait Plugin: Send + Sync + 'static {
    /// A target's settings, all of them: `lab.json` gives each target's defaults, a
    /// scenario's `targets` overrides any of them, the plan carries them whole. Its JSON
    /// Schema describes both (overrides leave every field optional).
    type Settings: Serialize + DeserializeOwned + JsonSchema;
    /// One step of a scenario file, externally tagged (`{"advance": {"ms": 500}}`) and
    /// refusing unknown fields, so that serde places every mistake.
    type Step: DeserializeOwned + JsonSchema + Debug + Send + Sync + 'static;
    /// What the lab's harness does for one step.
    type Action: Serialize;
    /// What the lab's harness observes after every step.
    type Observation: DeserializeOwned;

    /// The lab's name: its folder under `labs/`.
    fn name(&self) -> &'static str;

    /// How the grader links the lab's harness with a crate under test.
    fn harness(&self) -> Harness;

    /// The lab's words for reports.
    fn words(&self) -> &Words;

    /// What the lab calls a target, in its steps and messages alike: `target`, `flow`,
    /// `dependency`. Every message about a target name (a misspelt one in `targets`, a
    /// step's, the manifest's) uses it.
    fn target_noun(&self) -> &'static str {
        "target"
    }

    /// Problems with one target's settings (values out of range), as (field, message).
    fn check_settings(&self, settings: &Self::Settings) -> Vec<(&'static str, String)>;

    /// The settings in words, for `grader explain`.
    fn describe_settings(&self, settings: &Self::Settings) -> String;

    /// Checks what the steps mean, in order (names, counts, steps that cannot work).
    fn check_steps(&self, steps: &[&Self::Step], checker: &mut Checker<'_>);

    /// Whether a step checks anything; a scenario none of whose steps does cannot fail.
    fn expects_something(&self, step: &Self::Step) -> bool;

    /// What the harness does for a step.
    fn action(&self, step: &Self::Step) -> Self::Action;

    /// Fake-clock milliseconds a step moves time by.
    fn advances_clock(&self, step: &Self::Step) -> u64;

    /// Whether the requests of a step leave together, so which one got which outcome is
    /// down to thread timing: reports then count outcomes instead of naming requests.
    fn simultaneous(&self, step: &Self::Step) -> bool;

    /// Compares a step's expectations with what was observed after it: the first
    /// difference, or `None` when everything holds.
    fn judge(
        &self,
        step: &Self::Step,
        record: &StepRecord<Self::Observation>,
    ) -> Option<Difference>;

    /// An observation as a report's timeline shows it.
    fn snapshot(&self, observation: &Self::Observation) -> Snapshot;

    /// A step in words: `send 3 requests to core_banking, one after the other`.
    fn describe(&self, step: &Self::Step) -> String;

    /// What a step expects, in words, or `None` for a step that expects nothing.
    fn expectation(&self, step: &Self::Step) -> Option<String>;

    /// The hint for requests stuck inside the code under test, given what the lab's
    /// harness saw while they were (`StuckRecord::seen`, a key of the lab's own).
    fn stuck_hint(&self, seen: Option<&str>) -> String {
        let _ = seen;
        self.words().stuck_hint.to_owned()
    }

    /// The harness variant that runs the code under test on a schedule-exploring runtime
    /// to find races, for a lab that has one: the core builds it beside [`Plugin::harness`]
    /// and runs the scenarios marked `"race"` on it. `None` (the default) means the lab has
    /// no race checks, and validation refuses a race scenario for it.
    fn race_harness(&self) -> Option<Harness> {
        None
    }

    /// The lab's failure rehearsal on real sockets (`grader rehearse`), for a lab that has
    /// one.
    fn rehearsal(&self) -> Option<&dyn rehearsal::Rehearsal> {
        None
    }

    /// A scenario drawn from `seed`, for a lab that generates them ([`generate`]):
    /// settings for some targets, within their ranges and mostly off the defaults, and
    /// steps that expect nothing. Every input must be one the lab's rules decide and its
    /// checks accept: nothing whose outcome depends on thread timing. The same seed must
    /// give the same draft everywhere ([`Dice`]). `defaults` are the lab's targets with
    /// their default settings. `None` (the default): the lab has no generator.
    fn generate(&self, seed: u64, defaults: &[TargetPlan<Self::Settings>]) -> Option<Draft> {
        let _ = (seed, defaults);
        None
    }

    /// A step of a generated scenario, `step` as its draft wrote it, with the strongest
    /// expectations the lab's judge can check given what the reference did (`record`),
    /// followed by any steps that check the observation after it. `before` is the
    /// observation after the step before (`None` for the first step); `last` is set for
    /// the scenario's last step, after which everything observed should be checked.
    fn fill(
        &self,
        step: &Value,
        record: &StepRecord<Self::Observation>,
        before: Option<&Self::Observation>,
        last: bool,
    ) -> Vec<Value> {
        let _ = (record, before, last);
        vec![step.clone()]
    }

    /// The first step of a generated scenario whose outcome the lab's rules leave open,
    /// given what the reference did at each step (`records`, one per step of `steps`):
    /// a step where two correct solutions may differ (lab 4's late answer after the
    /// circuit closed again, which its handout lets be counted or ignored). The scenario
    /// is cut before it. `None` (the default): the rules decide every step.
    fn unpinned(
        &self,
        steps: &[Value],
        records: &[StepRecord<Self::Observation>],
    ) -> Option<usize> {
        let _ = (steps, records);
        None
    }

    /// The rule that an expectation of `step` checks, as a hint for a generated scenario
    /// that failed there, given what differed; `None` leaves the scenario's own hint.
    fn rule_hint(&self, step: &Self::Step, difference: &Difference) -> Option<String> {
        let _ = (step, difference);
        None
    }

    /// What the timeline picture of a scenario shows of this lab: where each step's
    /// requests go, what its outcome words mean, what an observation shows of its
    /// breakers, mocks and records ([`picture`]). `None` (the default) still gets a
    /// picture: a lane per request, uncoloured, with no bands.
    fn picture(
        &self,
    ) -> Option<&dyn picture::Picture<Self::Step, Self::Observation, Self::Settings>> {
        None
    }
}

/// The first expectation that does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// What the scenario expected, in words.
    pub expected: String,
    /// What happened instead.
    pub observed: String,
}

/// An observation for a report's timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// One line per target: `core_banking OPEN calls=3 in_flight=0 peak=1`.
    pub targets: Vec<String>,
    /// Every record the code under test has written so far (transition records, alerts),
    /// oldest first; the timeline shows those new at each step.
    pub records: Vec<String>,
}

/// How the code under test is named in reports and what the harness calls on it.
#[derive(Clone, Debug)]
pub struct Words {
    /// The code under test: `the relay`.
    pub subject: &'static str,
    /// What builds it: `Relay::new`.
    pub constructor: &'static str,
    /// What the harness calls to observe it after each step:
    /// `Relay::breaker_state or Relay::transitions`.
    pub observers: &'static str,
    /// What a step that sends requests expects of each, for a stuck request's report:
    /// `every request returns at once or waits inside the target (never inside the relay)`.
    pub stuck_expected: &'static str,
    /// What a request that has not returned may be doing without being stuck, as the
    /// words after "neither returned nor" in a stuck request's report: `held inside
    /// {target}` (`{target}` stands for where it was sent), `waiting on the fake clock`.
    pub parked: &'static str,
    /// What a stuck request usually means, after the observation.
    pub stuck_cause: &'static str,
    /// The hint for a stuck request, whatever the scenario was about.
    pub stuck_hint: &'static str,
    /// How targets behave before any step, for `grader explain`:
    /// `every target answers OK until scripted otherwise`.
    pub initially: &'static str,
    /// What to do instead of reading or waiting in real time, for the report's rule
    /// breaks found in the code: [`READ_TIME_ONLY`] for a lab whose code never waits.
    pub real_time_fix: &'static str,
}

/// The fix for real time in a lab whose code only reads the clock.
pub const READ_TIME_ONLY: &str =
    "read time only through the injected `Clock` (`clock.now()`) and never wait for real";

/// How the grader links a lab's harness program with a crate under test, in a generated
/// workspace of its own.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The program that runs scenarios, relative to the harness crate that `lab.json`
    /// names (`main/src/main.rs`): compiled once per crate under test.
    pub program: &'static str,
    /// The crate name under which the program uses the code under test (the student crate's package name).
    pub code_under_test: &'static str,
    /// The program's other dependencies: crate name and folder, relative to the kit.
    pub dependencies: &'static [(&'static str, &'static str)],
    /// The dependencies of the code under test, for the copies the grader assembles
    /// (submissions, mutants): crate name and folder, relative to the kit.
    pub subject_dependencies: &'static [(&'static str, &'static str)],
}
