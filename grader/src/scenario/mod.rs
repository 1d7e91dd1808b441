//! Scenarios: the file format ([`model`]), reading files with exact positions
//! ([`load`]), and checking them against the lab before anything runs ([`validate`]).

pub mod load;
pub mod model;
pub mod validate;

use std::path::PathBuf;

use grader_protocol::TargetPlan;

use crate::diagnostic::Pos;
pub use model::{Step, Visibility};

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
    /// Runs on the schedule-exploring runtime, over many schedules (see [`crate::race`]).
    pub race: bool,
    /// Plain-words description.
    pub description: String,
    /// Hint shown after a failure.
    pub hint: String,
    /// Every target with the settings this scenario runs with, in lab order.
    pub targets: Vec<TargetPlan>,
    /// The steps, each with where it starts in the file.
    pub steps: Vec<PlacedStep>,
}

/// A step and its place in the file.
#[derive(Clone, Debug)]
pub struct PlacedStep {
    /// The step.
    pub step: Step,
    /// Where its JSON object starts.
    pub pos: Pos,
    /// Its byte range in the file, to place problems inside it.
    pub span: std::ops::Range<usize>,
}
