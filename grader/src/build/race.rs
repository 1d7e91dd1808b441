//! The race build of a crate under test, written beside its normal harness, for a lab
//! whose plug-in has a race harness (`Plugin::race_harness`).
//!
//! Nothing of the student's is copied or rewritten. A second package, `race_<key>`, takes
//! the same `src/lib.rs` with `race_std` and `race_core` as its dependencies named `std`
//! and `core` (and the race builds of the lab's other crates), so every `std::sync::Mutex` in it is the
//! explorer's, and every line and column stays what the student wrote. The race harness
//! package links it with the lab's race harness, from the lab's own harness program file.
//! Both packages live under `race/` in the generated workspace, so one cargo call builds
//! both harnesses side by side, and code that only the race build rejects stops only the
//! race harness.

use std::path::{Path, PathBuf};

use super::{Subject, toml_path, write_if_changed};
use crate::error::Error;
use crate::lab::Lab;

/// Packages the race harness runs fast only when optimised: the explorer and what runs on
/// every step of every schedule (besides the lab's race harness crates, named by its
/// plug-in). They compile once; the code under test stays unoptimised, so an edit rebuilds
/// as fast as for the normal harness.
const RUNTIME: [&str; 15] = [
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
    "serde_json",
    "grader_protocol",
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
    pub fn owns(&self, manifest: &Path) -> bool {
        match self {
            Planned::Written { dir, .. } => manifest.starts_with(dir),
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
    let (Some(_), Some(harness)) = (&lab.manifest.race, lab.plugin.race_harness()) else {
        return Ok(Planned::None);
    };
    let problems = super::statics::scan(subject, &lab.manifest.student_files);
    if !problems.is_empty() {
        return Ok(Planned::CannotMap(problems));
    }
    let kit = &lab.kit;
    let dir = ws.join("race");
    let twin = format!("race_{}", subject.key);
    let mut subject_manifest = format!(
        "# Written by the grader: the crate under test for the race checks; do not edit.\n\
         [package]\nname = \"{twin}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\nname = \"{code}\"\npath = {lib}\n\n[dependencies]\n",
        code = harness.code_under_test,
        lib = toml_path(&subject.crate_dir.join("src/lib.rs")),
    );
    for (name, folder) in harness.subject_dependencies {
        subject_manifest.push_str(&dependency(kit, name, folder)?);
    }
    subject_manifest.push_str(super::materialize::FORBID_UNSAFE);
    write_if_changed(&dir.join("subject/Cargo.toml"), &subject_manifest)?;
    let mut harness_manifest = format!(
        "# Written by the grader: the race harness for one crate under test; do not edit.\n\
         [package]\nname = \"{bin}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [[bin]]\nname = \"{bin}\"\npath = {main}\n\n\
         [dependencies]\n\
         {code} = {{ path = \"subject\", package = \"{twin}\" }}\n",
        main = toml_path(&kit.join(&lab.manifest.harness).join(harness.program)),
        code = harness.code_under_test,
    );
    for (name, folder) in harness.dependencies {
        harness_manifest.push_str(&dependency(kit, name, folder)?);
    }
    write_if_changed(&dir.join("Cargo.toml"), &harness_manifest)?;
    Ok(Planned::Written {
        dir,
        bin: bin.to_owned(),
    })
}

/// `name = { package = "...", path = "..." }` for the kit's package in `folder`: the race
/// builds name packages under other crates' names (`race_std` as `std`).
fn dependency(kit: &Path, name: &str, folder: &str) -> Result<String, Error> {
    let dir = kit.join(folder);
    Ok(format!(
        "{name} = {{ package = \"{}\", path = {} }}\n",
        package_name(&dir)?,
        toml_path(&dir)
    ))
}

/// The profile lines that make the explorer fast, for a workspace with race harnesses of
/// `lab`: the runtime and the lab's race harness crates, optimised.
pub fn profile(lab: &Lab) -> String {
    let mut packages: Vec<String> = RUNTIME.iter().map(|p| (*p).to_owned()).collect();
    if let Some(harness) = lab.plugin.race_harness() {
        let folders = harness
            .dependencies
            .iter()
            .chain(harness.subject_dependencies);
        for (_, folder) in folders {
            if let Ok(name) = package_name(&lab.kit.join(folder)) {
                if !packages.contains(&name) {
                    packages.push(name);
                }
            }
        }
    }
    packages
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
