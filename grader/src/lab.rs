//! A lab: its manifest (`labs/<name>/lab.json`) and where its pieces live in the kit.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;

/// The lab manifest format version this grader reads.
pub const LAB_FORMAT_VERSION: u32 = 1;

/// `labs/<name>/lab.json`: what a lab is made of.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabManifest {
    /// Must be 1.
    pub format_version: u32,
    /// The lab's name, as typed on the command line (`lab4`).
    pub name: String,
    /// A title for reports.
    pub title: String,
    /// The student's crate, relative to the kit root.
    pub student_crate: String,
    /// The package name in the student's `Cargo.toml`.
    pub student_package: String,
    /// The files of the student crate that are the student's work, relative to it.
    pub student_files: Vec<String>,
    /// The reference solution's crate, relative to the kit root.
    pub solution_crate: String,
    /// The package name in the solution's `Cargo.toml`.
    pub solution_package: String,
    /// The harness crate whose `src/main.rs` runs scenarios, relative to the kit root.
    pub harness: String,
    /// The sum of the points of every scenario (visible and hidden).
    pub total_points: u32,
    /// The rubric categories, in report order.
    pub categories: Vec<Category>,
    /// The targets every scenario starts with, and their default settings.
    pub targets: Vec<TargetDefaults>,
    /// Time limits.
    pub limits: Limits,
    /// How the race checks explore schedules; absent in a lab without race checks.
    #[serde(default)]
    pub race: Option<RaceSettings>,
}

/// How the race checks run: which harness, and how many schedules of each race scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaceSettings {
    /// The race harness crate, relative to the kit root. The program it runs is the lab's
    /// harness program (`<harness>/main/src/main.rs`), linked with this crate instead.
    pub harness: String,
    /// Schedules explored per race scenario.
    pub schedules: u64,
    /// The explorer's bug depth (PCT): how many times per schedule it may take the
    /// processor away from the thread that has it.
    pub depth: u32,
    /// The explorer's seed. Changing it changes which schedules a number names.
    pub seed: u64,
    /// Scheduling steps one schedule may take; a thread that needs more loops without
    /// waiting, which the race checks cannot explore.
    pub max_steps: u64,
}

/// One rubric category.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Category {
    /// Identifier used in scenario files (`state_machine`).
    pub id: String,
    /// Title for reports (`State machine`).
    pub title: String,
    /// What it checks, in one sentence.
    pub checks: String,
}

/// A target and its default protection settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetDefaults {
    /// Its name (`core_banking`).
    pub name: String,
    /// Counted failures in a row that open its circuit.
    pub failure_threshold: u32,
    /// Milliseconds its circuit stays open before a trial.
    pub retry_after_ms: u64,
    /// Its bulkhead's limit.
    pub max_concurrent: u64,
}

/// Real-time limits; none of them decides a verdict of correct code.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Wall-clock milliseconds one scenario's process may run before it is killed.
    pub timeout_ms: u64,
    /// Wall-clock milliseconds a request may stay inside the relay, neither returned nor
    /// held by a target, before it is reported stuck.
    pub stuck_after_ms: u64,
    /// CPU seconds (all threads together) one scenario's process may use; none if absent.
    #[serde(default)]
    pub cpu_seconds: Option<u64>,
    /// Megabytes of address space one scenario's process may map; none if absent.
    #[serde(default)]
    pub memory_mb: Option<u64>,
}

/// A lab found in a kit.
#[derive(Clone, Debug)]
pub struct Lab {
    /// The kit's root folder.
    pub kit: PathBuf,
    /// `labs/<name>`.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: LabManifest,
}

impl Lab {
    /// Loads lab `name` from the kit at `kit`.
    pub fn load(kit: &Path, name: &str) -> Result<Lab, Error> {
        let dir = kit.join("labs").join(name);
        let path = dir.join("lab.json");
        if !path.is_file() {
            return Err(Error::LabNotFound {
                name: name.to_owned(),
                available: available_labs(kit),
            });
        }
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
        let shown = crate::kit::shown_path(kit, &path);
        let manifest: LabManifest = serde_json::from_str(&text).map_err(|e| {
            Error::Invalid(vec![Diagnostic::at(
                &shown,
                Pos {
                    line: e.line(),
                    col: e.column(),
                },
                crate::scenario::load::describe_json_error(&e),
            )])
        })?;
        if manifest.format_version != LAB_FORMAT_VERSION {
            return Err(Error::Invalid(vec![
                Diagnostic::file(
                    &shown,
                    format!(
                        "format_version {} is not supported; this grader reads version {LAB_FORMAT_VERSION}",
                        manifest.format_version
                    ),
                )
                .help("use the grader that came with this kit"),
            ]));
        }
        Ok(Lab {
            kit: kit.to_path_buf(),
            dir,
            manifest,
        })
    }

    /// The folder of published scenarios.
    pub fn scenarios_dir(&self) -> PathBuf {
        self.dir.join("scenarios")
    }

    /// The folder of hidden scenarios (present only in the instructors' edition).
    pub fn hidden_dir(&self) -> PathBuf {
        self.dir.join("hidden")
    }

    /// The category with this id.
    pub fn category(&self, id: &str) -> Option<&Category> {
        self.manifest.categories.iter().find(|c| c.id == id)
    }
}

/// The names of the labs in a kit, sorted.
pub fn available_labs(kit: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(kit.join("labs"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("lab.json").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}
