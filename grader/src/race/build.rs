//! The race build of a crate under test, written beside its normal harness.
//!
//! Nothing of the student's is copied or rewritten. A second package, `race_<key>`, takes
//! the same `src/lib.rs` with `race_std` and `race_core` as its dependencies named `std`
//! and `core` (and the race build of `relay_kit`), so every `std::sync::Mutex` in it is the
//! explorer's, and every line and column stays what the student wrote. The race harness
//! package links it with the lab's race harness, from the lab's own harness program file.
//! Both packages live under `race/` in the generated workspace, so one cargo call builds
//! both harnesses side by side, and code that only the race build rejects stops only the
//! race harness.

use std::path::{Path, PathBuf};

use crate::build::{Subject, toml_path, write_if_changed};
use crate::error::Error;
use crate::lab::Lab;

/// The kit's `std` for the race build.
const RACE_STD: &str = "grader/race/std";
/// The kit's `core` for the race build.
const RACE_CORE: &str = "grader/race/core";
/// `relay_kit` built on them.
const RELAY_KIT_RACE: &str = "grader/race/twins/relay_kit";

/// Packages the race harness runs fast only when optimised: the explorer, the harness and
/// what they run on every step of every schedule. They compile once; the code under test
/// stays unoptimised, so an edit rebuilds as fast as for the normal harness.
const OPTIMISED: [&str; 22] = [
    "shuttle",
    "shuttle-engine",
    "shuttle-std",
    "shuttle-schedulers",
    "corosensei",
    "bitvec",
    "tracing",
    "tracing-core",
    "rand",
    "rand_core",
    "rand_pcg",
    "smallvec",
    "scoped-tls",
    "race_std",
    "race_core",
    "relay_kit_race",
    "fixture_targets_race",
    "lab4_race",
    "grader_protocol",
    "serde",
    "serde_core",
    "serde_json",
];

/// The race harness of one crate under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Race {
    /// The lab has no race checks.
    None,
    /// The race harness program.
    Ready(PathBuf),
    /// The code cannot run on the explorer; why, one line each, places as people see them.
    CannotMap(Vec<String>),
}

/// What was written for the race harness of one crate.
#[derive(Clone, Debug)]
pub enum Planned {
    /// The lab has no race checks.
    None,
    /// The code cannot run on the explorer, so nothing was written.
    CannotMap(Vec<String>),
    /// The packages, under `dir`: the harness program `bin`, and the crate under test's race
    /// build `dir/subject`.
    Written {
        /// `<ws>/race`.
        dir: PathBuf,
        /// The harness program's name.
        bin: String,
    },
}

impl Planned {
    /// Whether the cargo message about `manifest` (its `manifest_path`) is about the race
    /// build.
    pub fn owns(&self, manifest: &str) -> bool {
        match self {
            Planned::Written { dir, .. } => Path::new(manifest).starts_with(dir),
            _ => false,
        }
    }

    /// The harness program's name, if one was written.
    pub fn bin(&self) -> Option<&str> {
        match self {
            Planned::Written { bin, .. } => Some(bin),
            _ => None,
        }
    }
}

/// Writes the race packages of `subject` under `<ws>/race`, with the harness program named
/// `bin`, unless the lab has no race checks or the graded files hold what the explorer
/// cannot run.
pub fn plan(lab: &Lab, ws: &Path, bin: &str, subject: &Subject) -> Result<Planned, Error> {
    let Some(settings) = &lab.manifest.race else {
        return Ok(Planned::None);
    };
    let problems = super::scan::scan(subject, &lab.manifest.student_files);
    if !problems.is_empty() {
        return Ok(Planned::CannotMap(problems));
    }
    let kit = &lab.kit;
    let dir = ws.join("race");
    let twin = format!("race_{}", subject.key);
    let subject_manifest = format!(
        "# Written by the grader: the crate under test for the race checks; do not edit.\n\
         [package]\nname = \"{twin}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\nname = \"relay_base\"\npath = {lib}\n\n\
         [dependencies]\n\
         std = {{ package = \"race_std\", path = {std} }}\n\
         core = {{ package = \"race_core\", path = {core} }}\n\
         relay_kit = {{ package = \"relay_kit_race\", path = {relay_kit} }}\n",
        lib = toml_path(&subject.crate_dir.join("src/lib.rs")),
        std = toml_path(&kit.join(RACE_STD)),
        core = toml_path(&kit.join(RACE_CORE)),
        relay_kit = toml_path(&kit.join(RELAY_KIT_RACE)),
    );
    write_if_changed(&dir.join("subject/Cargo.toml"), &subject_manifest)?;
    let harness_dir = kit.join(&settings.harness);
    let harness_package = package_name(&harness_dir)?;
    let harness_manifest = format!(
        "# Written by the grader: the race harness for one crate under test; do not edit.\n\
         [package]\nname = \"{bin}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [[bin]]\nname = \"{bin}\"\npath = {main}\n\n\
         [dependencies]\n\
         relay_base = {{ path = \"subject\", package = \"{twin}\" }}\n\
         relay_kit = {{ package = \"relay_kit_race\", path = {relay_kit} }}\n\
         lab4_harness = {{ package = \"{harness_package}\", path = {harness} }}\n",
        main = toml_path(&kit.join(&lab.manifest.harness).join("main/src/main.rs")),
        relay_kit = toml_path(&kit.join(RELAY_KIT_RACE)),
        harness = toml_path(&harness_dir),
    );
    write_if_changed(&dir.join("Cargo.toml"), &harness_manifest)?;
    Ok(Planned::Written {
        dir,
        bin: bin.to_owned(),
    })
}

/// The profile lines that make the explorer fast, for a workspace with race harnesses.
pub fn profile() -> String {
    OPTIMISED
        .iter()
        .map(|p| format!("\n[profile.dev.package.{p}]\nopt-level = 2\n"))
        .collect()
}

/// The race harness's outcome, once cargo ran: the program, or why the code cannot run
/// on the explorer (`errors`: the compiler's messages about the race build of the crate
/// under test). `None` when the race harness should have built and did not, for a reason
/// of the kit's.
pub fn outcome(planned: Planned, executable: Option<PathBuf>, errors: &[String]) -> Option<Race> {
    match planned {
        Planned::None => Some(Race::None),
        Planned::CannotMap(problems) => Some(Race::CannotMap(problems)),
        Planned::Written { .. } => match executable {
            Some(exe) => Some(Race::Ready(exe)),
            None if !errors.is_empty() => Some(Race::CannotMap(unmodelled(errors))),
            None => None,
        },
    }
}

/// The compiler's complaints about the race build of code that compiles normally: it uses
/// a part of `std::sync` or `std::thread` the explorer does not model.
fn unmodelled(errors: &[String]) -> Vec<String> {
    errors
        .iter()
        .map(|e| {
            let mut lines = e.lines();
            let first = lines.next().unwrap_or("").trim();
            let place = lines
                .find_map(|l| l.trim_start().strip_prefix("--> "))
                .unwrap_or("");
            format!(
                "{place}: the race checks do not model what this line uses from std ({first}); use Mutex, RwLock, Condvar, the atomics, Arc or OnceLock instead"
            )
        })
        .collect()
}

/// The `name` of the package whose manifest is in `dir`.
fn package_name(dir: &Path) -> Result<String, Error> {
    let path = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
    text.lines()
        .find_map(|l| {
            let value = l
                .trim()
                .strip_prefix("name")?
                .trim_start()
                .strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_owned())
        })
        .ok_or_else(|| Error::KitBuild {
            what: dir.display().to_string(),
            log: format!("{} names no package", path.display()),
        })
}
