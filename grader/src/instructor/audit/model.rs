//! What an audit found: each graded crate as a column of statuses, with the role that
//! says what it must do.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::report::{Lead, Status};

/// What a graded crate is, and so what the audit expects of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The reference solution: must pass every scenario.
    Reference,
    /// A correct solution written differently: must pass every scenario too.
    Alternative,
    /// A known-wrong variant: must fail the scenarios its file names, and more than one.
    Mutant,
}

impl Role {
    /// Whether a crate of this role must keep full marks.
    pub fn must_pass(self) -> bool {
        matches!(self, Role::Reference | Role::Alternative)
    }
}

/// One graded crate in the audit.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// `reference`, or the alternative's or mutant's name.
    pub name: String,
    /// What it is: the alternative's design, or what is wrong with the mutant (empty for
    /// the reference).
    pub title: String,
    /// What the audit expects of it.
    pub role: Role,
    /// Per scenario name: the status of each run.
    pub runs: BTreeMap<String, Vec<Status>>,
    /// Compiler output, if it did not compile.
    pub compile_errors: Option<String>,
    /// A mutant's reason why one scenario catching it is enough.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caught_once_because: Option<String>,
    /// What a student's report of this crate says first ("Start here"), from the
    /// visible scenarios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_here: Option<Lead>,
    /// The rule a mutant breaks (its file's `rule`, or the rule of the first scenario its
    /// `caught_by` names), which its report's "Start here" must name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// A mutant's reason why its report's "Start here" cannot name its mistake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_here_elsewhere_because: Option<String>,
}

/// The audit's findings.
#[derive(Clone, Debug, Serialize)]
pub struct Audit {
    /// Scenario names, in report order, with whether each is a smoke test.
    pub scenarios: Vec<(String, bool)>,
    /// The hidden ones among them: only submission grading runs these.
    pub hidden: Vec<String>,
    /// The reference first, then each alternative, then each mutant.
    pub columns: Vec<Column>,
    /// Everything wrong, one sentence each. Empty when the audit passes.
    pub problems: Vec<String>,
    /// Whether only some of the lab's scenarios ran (`--scenario`). How many scenarios
    /// catch each mutant is then not checked: the others may catch it.
    pub some_scenarios: bool,
    /// Whether only some of the lab's mutants ran (`--mutant`). Whether each scenario
    /// catches a mutant is then not checked: it may catch one of the others.
    pub some_mutants: bool,
    /// Whether the lab asks that each mutant's "Start here" names its mistake; the
    /// matrix then shows where each report starts.
    pub start_here_audited: bool,
    /// What the generated scenarios showed, when they ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated: Option<GeneratedAudit>,
    /// A whole audit's notes on scenarios that catch nothing another one does not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overlaps: Vec<String>,
    /// An audit of drafts: each mutant whose Start here publishing them would move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub publishing: Vec<String>,
    /// An audit of drafts: what to do as they are published, so the whole audit passes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub when_publishing: Vec<String>,
}

/// Whether a column failed a scenario in its first run.
pub fn caught(column: &Column, scenario: &str) -> bool {
    column
        .runs
        .get(scenario)
        .and_then(|r| r.first())
        .is_some_and(|s| *s != Status::Passed)
}

/// What the generated scenarios showed.
#[derive(Clone, Debug, Serialize)]
pub struct GeneratedAudit {
    /// The seeds graded in CI.
    pub graded: Vec<u64>,
    /// Every seed run on the reference and the alternatives.
    pub seeds: usize,
    /// Per correct alternative: the seeds on which it differs from the reference.
    pub alternatives: Vec<AlternativeRow>,
    /// Per mutant.
    pub mutants: Vec<MutantRow>,
    /// Seeds on which the reference fails its own filled-in scenario.
    pub reference_flaky: Vec<u64>,
}

/// A correct alternative against the reference.
#[derive(Clone, Debug, Serialize)]
pub struct AlternativeRow {
    /// Its name.
    pub name: String,
    /// The seeds it fails.
    pub diverged: Vec<u64>,
    /// The first of them, shrunk.
    pub shrunk: Option<PathBuf>,
}

/// A mutant against the generated scenarios.
#[derive(Clone, Debug, Serialize)]
pub struct MutantRow {
    /// Its name.
    pub name: String,
    /// Only race checks catch it among the hand-written scenarios.
    pub racy: bool,
    /// Hand-written scenarios that catch it.
    pub hand_written: usize,
    /// Graded seeds that catch it.
    pub graded_caught: usize,
    /// The first seed that caught it, if any did.
    pub first: Option<u64>,
    /// Seeds run on it.
    pub tried: usize,
    /// Steps of its first divergence, shrunk, and the file.
    pub shrunk: Option<(usize, PathBuf)>,
    /// How it fails the shrunk file: the step, what was expected and what was observed.
    pub failure: Option<crate::report::Failure>,
    /// Why no graded seed catches it, as its file says (`generated_misses_because`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excused: Option<String>,
}
