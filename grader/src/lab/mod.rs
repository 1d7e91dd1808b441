//! A lab: its manifest (`labs/<name>/lab.json`), where its pieces live in the kit, and
//! the plug-ins that know each lab ([`Registry`]).

pub mod edition;
pub mod files;
pub mod kit;
pub mod rules;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use grader_lab::DynPlugin;
use serde::Deserialize;
use serde_json::{Map, Value};

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
    /// The lab's harness crate, relative to the kit root; its plug-in names the program in
    /// it that runs scenarios (`main/src/main.rs`).
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
    /// The audit also checks that each mutant's report starts ("Start here") with the
    /// rule the mutant breaks, or that the mutant's file says why it cannot
    /// (`start_here_elsewhere_because`).
    #[serde(default)]
    pub start_here_audited: bool,
    /// Generated scenarios: drawn from seeds by the lab's plug-in, their expectations
    /// filled in by running the reference (`crate::generate`); absent in a lab without.
    #[serde(default)]
    pub generated: Option<GeneratedSettings>,
}

/// How a lab's generated scenarios score, and how many are published for practice. The
/// seeds graded in CI are not here (`lab.json` goes to students) but in the instructors'
/// `generated_seeds.json` beside it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratedSettings {
    /// The rubric category they score in, one of `categories`, for generated scenarios
    /// only.
    pub category: String,
    /// Points of each, all or nothing.
    pub points: u32,
    /// Seeds published for practice: 1 to this. Students run them with `--generated`.
    pub practice: u64,
}

/// How the race checks explore the schedules of each race scenario (the lab's plug-in
/// says which harness runs them: `Plugin::race_harness`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaceSettings {
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

/// A target and its default settings: `{"name": ..., <the lab's settings>}`. The settings
/// are the lab's own (its plug-in's type), kept here as JSON.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "Map<String, Value>")]
pub struct TargetDefaults {
    /// Its name (`core_banking`).
    pub name: String,
    /// Every other field: the target's default settings.
    pub settings: Map<String, Value>,
}

impl TryFrom<Map<String, Value>> for TargetDefaults {
    type Error = String;

    fn try_from(mut settings: Map<String, Value>) -> Result<Self, String> {
        match settings.remove("name") {
            Some(Value::String(name)) => Ok(TargetDefaults { name, settings }),
            Some(_) => Err("a target's `name` must be a string".to_owned()),
            None => Err("missing field `name` in a target".to_owned()),
        }
    }
}

/// Real-time limits; none of them decides a verdict of correct code.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Wall-clock milliseconds one scenario's process may run before it is killed.
    pub timeout_ms: u64,
    /// Wall-clock milliseconds a request may stay inside the code under test, neither returned nor
    /// held by a target, before it is reported stuck.
    pub stuck_after_ms: u64,
    /// CPU seconds (all threads together) one scenario's process may use; none if absent.
    #[serde(default)]
    pub cpu_seconds: Option<u64>,
    /// Megabytes of address space one scenario's process may map; none if absent.
    #[serde(default)]
    pub memory_mb: Option<u64>,
    /// Wall-clock milliseconds one build of a submission may take (default 120000).
    #[serde(default)]
    pub build_timeout_ms: Option<u64>,
    /// CPU seconds each process of a submission's build may use (default 120).
    #[serde(default)]
    pub build_cpu_seconds: Option<u64>,
    /// Megabytes of address space each process of a submission's build may map (default
    /// 2048).
    #[serde(default)]
    pub build_memory_mb: Option<u64>,
}

/// The lab plug-ins a grader knows, by lab name. `crate::labs` says which.
#[derive(Clone, Default)]
pub struct Registry {
    plugins: Vec<Arc<dyn DynPlugin>>,
}

impl Registry {
    /// No labs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a lab's plug-in.
    pub fn with(mut self, plugin: impl DynPlugin + 'static) -> Self {
        self.plugins.push(Arc::new(plugin));
        self
    }

    /// The plug-in of lab `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn DynPlugin>> {
        self.plugins.iter().find(|p| p.name() == name).cloned()
    }

    /// The names of the labs it knows.
    pub fn names(&self) -> Vec<&'static str> {
        self.plugins.iter().map(|p| p.name()).collect()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// A lab found in a kit.
#[derive(Clone)]
pub struct Lab {
    /// The kit's root folder.
    pub kit: PathBuf,
    /// `labs/<name>`.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: LabManifest,
    /// What only this lab knows: its steps, settings, judging and words.
    pub plugin: Arc<dyn DynPlugin>,
    /// Its rules and their hints (`rules.json`): empty for a lab without one.
    pub rules: Arc<rules::Rules>,
    /// Every lab this grader knows, for commands that look at other labs of the kit.
    pub labs: Registry,
}

impl std::fmt::Debug for Lab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lab")
            .field("kit", &self.kit)
            .field("dir", &self.dir)
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl Lab {
    /// Loads lab `name` from the kit at `kit`; its plug-in comes from `labs`.
    pub fn load(labs: &Registry, kit: &Path, name: &str) -> Result<Lab, Error> {
        let dir = kit.join("labs").join(name);
        let path = dir.join("lab.json");
        if !path.is_file() {
            return Err(Error::LabNotFound {
                name: name.to_owned(),
                available: available_labs(kit),
            });
        }
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
        let shown = crate::lab::kit::shown_path(kit, &path);
        let manifest: LabManifest =
            serde_json::from_str(&text).map_err(|e| json_problem(&shown, &e))?;
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
        let Some(plugin) = labs.get(name) else {
            return Err(Error::NoPlugin {
                lab: name.to_owned(),
                known: labs.names().join(", "),
            });
        };
        let rules = Arc::new(rules::Rules::load(kit, &dir)?);
        Ok(Lab {
            kit: kit.to_path_buf(),
            dir,
            manifest,
            plugin,
            rules,
            labs: labs.clone(),
        })
    }

    /// Whether the lab runs race checks: race settings in its `lab.json` and a race
    /// harness in its plug-in. Scenarios marked `"race"` are refused in a lab without.
    pub fn has_race_checks(&self) -> bool {
        self.manifest.race.is_some() && self.plugin.race_harness().is_some()
    }

    /// The folder of published scenarios.
    pub fn scenarios_dir(&self) -> PathBuf {
        self.dir.join("scenarios")
    }

    /// The folder of hidden scenarios (present only in the instructors' edition).
    pub fn hidden_dir(&self) -> PathBuf {
        self.dir.join("hidden")
    }

    /// The folder of correct solutions written differently from the reference (present
    /// only in the instructors' edition).
    pub fn alternatives_dir(&self) -> PathBuf {
        self.dir.join("alternatives")
    }

    /// The lab's target names, in its order.
    pub fn target_names(&self) -> Vec<String> {
        self.manifest
            .targets
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// The category with this id.
    pub fn category(&self, id: &str) -> Option<&Category> {
        self.manifest.categories.iter().find(|c| c.id == id)
    }
}

/// A file of the lab's that is not the JSON it should be, at serde's place.
fn json_problem(shown: &Path, e: &serde_json::Error) -> Error {
    Error::Invalid(vec![Diagnostic::at(
        shown,
        Pos {
            line: e.line(),
            col: e.column(),
        },
        crate::diagnostic::describe_json_error(e),
    )])
}

/// The names of the labs in a kit (the folders of `labs/` that hold a `lab.json`),
/// sorted; none when `labs/` cannot be read. For suggestions in messages: commands that
/// go through every lab use [`lab_names`].
pub fn available_labs(kit: &Path) -> Vec<String> {
    lab_names(kit).unwrap_or_default()
}

/// The names of the labs in a kit, sorted; `labs/` that cannot be read is an error.
pub fn lab_names(kit: &Path) -> Result<Vec<String>, Error> {
    let dir = kit.join("labs");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::io("read the folder", &dir, e))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read the folder", &dir, e))?;
        if entry.path().join("lab.json").is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}
