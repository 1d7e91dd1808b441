//! Building the harness against the code under test.
//!
//! The grader never builds student code into itself. For each crate under test it writes a
//! tiny Cargo workspace under the lab's work folder (`target/grader/<lab>/builds/<key>/`) whose one
//! binary is the lab's harness program (its plug-in says which file, and under which crate
//! name the program uses the code under test), with that name pointing at that crate. All these workspaces share one target folder, so the dependencies are
//! compiled once and each crate under test costs one incremental build.

pub mod batch;
pub mod blame;
pub mod confined;
pub mod confinement;
pub mod materialize;
pub mod profile;
pub mod race;
pub mod rehearsal;
pub mod seed;
pub mod statics;

pub use race::Race;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, mpsc};

use crate::error::Error;
use crate::lab::Lab;
use crate::sandbox::{self, Sandbox};
use confinement::Confinement;

/// A crate to grade.
#[derive(Clone, Debug)]
pub struct Subject {
    /// A short name for folders and binaries (`skeleton`, `solution`, `mutant_shared_breaker`).
    pub key: String,
    /// How reports name it (the student crate's folder, say).
    pub label: String,
    /// The crate's folder.
    pub crate_dir: PathBuf,
    /// Its package name.
    pub package: String,
    /// How to show paths inside `crate_dir` to people (as a folder of the kit).
    pub shown_dir: PathBuf,
    /// For a submission's code: how its builds and scenario runs are confined
    /// ([`confinement`]). `None` for the kit's own crates and a student's own crate.
    pub confined: Option<Arc<Confinement>>,
}

impl Subject {
    /// `path` (absolute or relative to the build) as people should see it: inside the
    /// crate under test, relative to the kit; elsewhere, unchanged.
    pub fn shown(&self, path: &str) -> String {
        let p = Path::new(path);
        match p.strip_prefix(&self.crate_dir) {
            Ok(rest) => self.shown_dir.join(rest).display().to_string(),
            Err(_) => path.to_owned(),
        }
    }

    /// The sandbox its scenario processes run in: a submission's, unless the instructor
    /// chose to grade without one.
    pub fn sandbox(&self) -> Option<&Sandbox> {
        self.confined.as_deref().and_then(|c| c.sandbox.as_ref())
    }
}

/// The programs that run one crate under test's scenarios.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The lab's harness program, for every scenario but race checks.
    pub main: PathBuf,
    /// The race harness program for race checks, or why there is none.
    pub race: Race,
}

/// The result of building: a harness to run, or the compiler's complaint about the
/// code under test.
#[derive(Clone, Debug)]
pub enum Built {
    /// The harness programs.
    Harness(Harness),
    /// The code under test does not compile; the rendered diagnostics, paths as people
    /// see them.
    CompileFailed(String),
}

/// The folder where the grader keeps what it makes: `GRADER_WORK_DIR`; else, when
/// `CARGO_TARGET_DIR` moves cargo's builds out of the kit, a folder of this kit's in it
/// (`grader-<hash of the kit's path>`, since one target folder may serve several kits,
/// whose builds must not mix); else `<kit>/target/grader`.
pub fn work_root(kit: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("GRADER_WORK_DIR") {
        return PathBuf::from(dir);
    }
    match std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        Some(target) => {
            let target = PathBuf::from(target);
            // Relative, it is relative to where cargo runs, as cargo reads it.
            let target = match std::env::current_dir() {
                Ok(cwd) if target.is_relative() => cwd.join(target),
                _ => target,
            };
            use sha2::Digest;
            let hash = sha2::Sha256::digest(kit.as_os_str().as_encoded_bytes());
            let hex: String = hash.iter().take(6).map(|b| format!("{b:02x}")).collect();
            target.join(format!("grader-{hex}"))
        }
        None => kit.join("target").join("grader"),
    }
}

/// The folder where the grader keeps a lab's builds and runs: `<work root>/<lab>`. Labs
/// name their crates under test alike (`solution`, an alternative or mutant of the same
/// name, the sandbox's base), so each lab has its own builds and target folder, and
/// graders of two labs at once never build over each other.
pub fn work_dir(lab: &Lab) -> PathBuf {
    work_root(&lab.kit).join(&lab.manifest.name)
}

/// Builds the lab's harness against `subject`, and its race harness when the lab has race
/// checks, in one cargo call; a submission's in its sandbox ([`crate::sandbox`]).
pub fn build(lab: &Lab, subject: &Subject, work: &Path) -> Result<Built, Error> {
    build_watching(lab, subject, work, true, None)
}

/// [`build`], with the race harness only when `races` (some race check will run: a
/// grading without one does not wait for the crate's second build; the workspace stays
/// the same, so switching costs no rebuild), sending the harness program's path to
/// `linked` as soon as cargo has linked it, while the race harness may still be building:
/// the scenarios that need only the harness can start. Nothing is sent when the harness
/// was not linked.
pub fn build_watching(
    lab: &Lab,
    subject: &Subject,
    work: &Path,
    races: bool,
    linked: Option<mpsc::Sender<PathBuf>>,
) -> Result<Built, Error> {
    // A submission's workspace is written and built by one grader at a time.
    let _turn = match &subject.confined {
        Some(_) => Some(confinement::take_turn(work, &subject.key)?),
        None => None,
    };
    let (ws, bin, planned) = workspace(lab, subject, work)?;
    let planned = if races { planned } else { race::Planned::None };
    let mut select = vec!["--bin", bin.as_str()];
    let race_bin = planned.bin().map(str::to_owned);
    if let Some(race) = &race_bin {
        // Code only the race build rejects must cost the race checks, not the lab.
        select.extend(["--workspace", "--bin", race, "--keep-going"]);
    }
    let watch = linked.map(|tx| sandbox::cargo::Watch {
        bin: bin.clone(),
        tx,
    });
    let confined = subject.confined.as_deref();
    let output = match cargo_build_watching(&ws, work, &select, confined, watch) {
        // A build that a limit stopped is the code's doing, like a compile error.
        Err(Error::BuildStopped(why)) => return Ok(Built::CompileFailed(why)),
        other => other?,
    };
    let linked = [blame::Linked {
        subject,
        manifest: ws.join("Cargo.toml"),
        bin,
        race: planned,
    }];
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut verdicts = blame::verdicts(lab, &linked, &stdout, &stderr);
    verdicts.pop().unwrap_or_else(|| {
        Err(Error::KitBuild {
            what: subject.label.clone(),
            log: "cargo said nothing about the harness".into(),
        })
    })
}

/// Writes the generated workspace of `subject` (`<work>/builds/<key>/`, with its race
/// packages when the lab has race checks); returns its folder, the harness program's name
/// and what was written for the race harness.
pub(crate) fn workspace(
    lab: &Lab,
    subject: &Subject,
    work: &Path,
) -> Result<(PathBuf, String, race::Planned), Error> {
    let ws = work.join("builds").join(&subject.key);
    std::fs::create_dir_all(&ws).map_err(|e| Error::io("create", &ws, e))?;
    let bin = format!("lab_harness_{}", subject.key);
    let planned = race::plan(lab, &ws, &format!("lab_race_{}", subject.key), subject)?;
    let mut under_test = vec![subject.package.clone()];
    let mut programs = vec![bin.clone()];
    let members = match planned.bin() {
        Some(race_bin) => {
            under_test.push(race::twin(subject));
            programs.push(race_bin.to_owned());
            "members = [\"race\"]\n"
        }
        None => "",
    };
    let manifest = format!(
        "# Written by the grader for each crate under test; do not edit.\n{}\n\
         [workspace]\n{members}\n{}",
        harness_package(lab, &bin, subject),
        profile::profile(lab, &under_test, &programs, profile::Incremental::Yes)
    );
    write_if_changed(&ws.join("Cargo.toml"), &manifest)?;
    copy_kit_lock(lab, &ws)?;
    Ok((ws, bin, planned))
}

/// The manifest of a harness package named `bin`: the lab's harness program, linked with
/// `subject` under the crate name the program uses for the code under test.
pub(crate) fn harness_package(lab: &Lab, bin: &str, subject: &Subject) -> String {
    let harness = lab.plugin.harness();
    let main = lab.kit.join(&lab.manifest.harness).join(harness.program);
    program_package(
        lab,
        bin,
        &main,
        harness.code_under_test,
        harness.dependencies,
        subject,
    )
}

/// The manifest of a package named `bin` whose one binary is `main`, linked with `subject`
/// under the crate name `code` and with `dependencies` (name, folder relative to the kit).
pub(crate) fn program_package(
    lab: &Lab,
    bin: &str,
    main: &Path,
    code: &str,
    dependencies: &[(&str, &str)],
    subject: &Subject,
) -> String {
    let mut text = format!(
        "[package]\nname = \"{bin}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [[bin]]\nname = \"{bin}\"\npath = {main}\n\n\
         [dependencies]\n\
         {code} = {{ path = {subject}, package = \"{package}\" }}\n",
        main = toml_path(main),
        subject = toml_path(&subject.crate_dir),
        package = subject.package,
    );
    for (name, path) in dependencies {
        text.push_str(&format!(
            "{name} = {{ path = {} }}\n",
            toml_path(&lab.kit.join(path))
        ));
    }
    text
}

/// Starts a generated workspace from the kit's lock file, so it builds with the versions
/// the kit was tested with and reuses their compiled artifacts; and starts it again from
/// the kit's lock whenever that changed since (a kit update), since cargo, offline in the
/// sandbox, cannot resolve the versions an old lock lacks. `Cargo.lock.kit` keeps the
/// copy it started from: cargo rewrites `Cargo.lock` itself to add the workspace's own
/// packages.
pub(crate) fn copy_kit_lock(lab: &Lab, ws: &Path) -> Result<(), Error> {
    let lock = ws.join("Cargo.lock");
    let started_from = ws.join("Cargo.lock.kit");
    let kit_lock = lab.kit.join("Cargo.lock");
    let Ok(kit_text) = std::fs::read(&kit_lock) else {
        return Ok(());
    };
    let current = lock.exists() && std::fs::read(&started_from).is_ok_and(|t| t == kit_text);
    if !current {
        std::fs::write(&lock, &kit_text).map_err(|e| Error::io("write", &lock, e))?;
        std::fs::write(&started_from, &kit_text)
            .map_err(|e| Error::io("write", &started_from, e))?;
    }
    Ok(())
}

/// Runs `cargo build` on the generated workspace `ws` with JSON messages on standard
/// output; `select` names what to build. The kit's own crates build into the shared
/// target folder; a submission's (`confined`) into its own, under its limits and in its
/// sandbox ([`seed::build_confined`]). What cargo prints is kept bounded either way.
pub(crate) fn cargo_build(
    ws: &Path,
    work: &Path,
    select: &[&str],
    confined: Option<&Confinement>,
) -> Result<Output, Error> {
    cargo_build_watching(ws, work, select, confined, None)
}

/// [`cargo_build`], telling `watch` as soon as its program is linked.
pub(crate) fn cargo_build_watching(
    ws: &Path,
    work: &Path,
    select: &[&str],
    confined: Option<&Confinement>,
    watch: Option<sandbox::cargo::Watch>,
) -> Result<Output, Error> {
    match confined {
        Some(c) => seed::build_confined(ws, work, select, c, seed::Base::Harness, watch),
        None => sandbox::cargo::run(
            sandbox::cargo::plain(ws, &work.join("cargo"), select),
            None,
            watch,
        ),
    }
}

/// Removes terminal colour sequences.
pub(crate) fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A path as a TOML string.
pub(crate) fn toml_path(p: &Path) -> String {
    serde_json::to_string(&p.display().to_string()).unwrap_or_default()
}

/// Writes `text` to `path` unless it already holds exactly that, so unchanged files keep
/// their times and cargo does not rebuild for nothing.
pub fn write_if_changed(path: &Path, text: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io("write", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_codes_are_removed() {
        assert_eq!(
            strip_ansi("\u{1b}[1m\u{1b}[31merror\u{1b}[0m: x"),
            "error: x"
        );
    }
}
