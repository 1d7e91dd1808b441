//! Scenarios: the file format ([`model`]), reading files with exact positions
//! ([`load`]), and checking them against the lab before anything runs ([`validate`]).

pub mod clock_times;
pub mod explain;
pub mod load;
pub mod model;
pub mod names;
pub mod parsed;
pub mod recover;
pub mod rules;
pub mod schema;
pub mod settings;
pub mod validate;

use std::path::PathBuf;
use std::sync::Arc;

use grader_lab::{AnyStep, DynPlugin};
use grader_protocol::TargetPlan;

use crate::diagnostic::Pos;
pub use model::Visibility;

/// A scenario read from its file and checked.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file, relative to the kit where possible.
    pub path: PathBuf,
    /// Unique name.
    pub name: String,
    /// One-sentence title.
    pub title: String,
    /// Rubric category id.
    pub category: String,
    /// Points for passing.
    pub points: u32,
    /// Who runs it.
    pub visibility: Visibility,
    /// Not expected to catch any known bug.
    pub smoke: bool,
    /// Runs on the lab's race harness, over many explored schedules (see
    /// [`crate::grade::race`]).
    pub race: bool,
    /// Plain-words description.
    pub description: String,
    /// The rule it is about (an id of the lab's `rules.json`), if it names one.
    pub rule: Option<String>,
    /// The hint of its rule, or the hint of its own in a lab without rules.
    pub hint: String,
    /// Other rules some of its steps check.
    pub checks: Vec<rules::StepRule>,
    /// The lab's rules, to judge its failures by.
    pub rules: Arc<crate::lab::rules::Rules>,
    /// The step (counted from 1) from which the hint applies; before it a failure is
    /// reported as observed, without the hint. 1 when the file does not say.
    pub hint_from_step: usize,
    /// The last step (counted from 1) the hint is about; after it a failure is reported
    /// as observed. The number of steps when the file does not say.
    pub hint_until_step: usize,
    /// Every target with the settings this scenario runs with (the lab's defaults with the
    /// scenario's overrides), in lab order.
    pub targets: Vec<TargetPlan>,
    /// Each target whose settings this scenario changes from the lab's defaults, in
    /// words (`core_banking: opens after 10 failures in a row, ...`), so a report of its
    /// failure says what it ran with.
    pub changed_settings: Vec<String>,
    /// The steps, each with where it starts in the file.
    pub steps: Vec<PlacedStep>,
    /// The plug-in of the scenario's lab, which reads, plans and judges its steps.
    pub plugin: LabPlugin,
    /// Whether it is a generated scenario (of the lab's generated category): a failed
    /// step then gets the hint of the rule it checks, from the lab's plug-in.
    pub generated: bool,
}

/// A lab's plug-in, shared by its scenarios.
#[derive(Clone)]
pub struct LabPlugin(pub Arc<dyn DynPlugin>);

impl std::ops::Deref for LabPlugin {
    type Target = dyn DynPlugin;

    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}

impl std::fmt::Debug for LabPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LabPlugin({})", self.0.name())
    }
}

/// A step and its place in the file.
#[derive(Clone, Debug)]
pub struct PlacedStep {
    /// The step, which the lab's plug-in reads.
    pub step: AnyStep,
    /// Where its JSON object starts.
    pub pos: Pos,
    /// Its byte range in the file, to place problems inside it.
    pub span: std::ops::Range<usize>,
}
