//! The student edition of a kit: what `grader release` writes.
//!
//! The edition is built from an allowlist, never by deleting from a copy, so a folder
//! added to the kit later (notes, exams, a second solution) stays out until someone
//! decides it belongs in. What goes in:
//!
//! - the root files a build needs or a student reads ([`ROOT_FILES`]), with `Cargo.toml`'s
//!   workspace members and `Cargo.lock` rewritten to leave the solutions out, and the CI
//!   files a student repository runs ([`CI_PARTS`]);
//! - every workspace member that is not a lab's reference solution: its `Cargo.toml`,
//!   `build.rs`, `README.md` and `src/`; the lab's student crate whole;
//! - from the lab folder: `lab.json`, `README.md`, the scenario schema, the rules and their
//!   hints (`rules.json`), `scenarios/` and the rehearsal script.
//!
//! So the reference solution, `hidden/`, `mutants/`, `alternatives/` (correct solutions
//! written differently from the reference), the instructors' documentation and the
//! grader's own test suite (which grades all of those) stay out.
//! Before writing, the lab must validate; after writing, the edition is checked again:
//! its lab must validate, no file may be a copy of a solution file, and no file may name a
//! hidden scenario.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::cargo_files::{package_name, rewrite_lock, rewrite_manifest, workspace_members};
use super::edition_check::{check_edition, entries, solution_crates};
use super::edition_readme;
use crate::error::Error;
use crate::instructor::validation;
use crate::lab::Lab;

/// Files of the kit root that go into the edition when they exist.
pub const ROOT_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "ARCHITECTURE.md",
    "clippy.toml",
    "rustfmt.toml",
    ".rustfmt.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".cargo/config.toml",
    ".gitignore",
    "LICENSE",
    "LICENSE-MIT",
    "LICENSE-APACHE",
];

/// CI files that go into the edition when they exist: the GitHub workflow of a student
/// repository checks out the student edition and runs its grading script.
pub const CI_PARTS: &[&str] = &["ci/github"];

/// Files and folders of a workspace member that go into the edition when they exist.
pub const MEMBER_PARTS: &[&str] = &["Cargo.toml", "build.rs", "README.md", "src"];

/// Files and folders of the lab folder that go into the edition when they exist.
pub const LAB_PARTS: &[&str] = &[
    "lab.json",
    "README.md",
    crate::scenario::schema::FILE_NAME,
    crate::lab::rules::FILE_NAME,
    "scenarios",
    crate::rehearse::script::FILE_NAME,
];

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Released {
    /// Files written.
    pub files: usize,
    /// Kit paths not copied (top-level entries, and the lab folder's), for the record.
    pub left_out: Vec<String>,
    /// Workspace members dropped from `Cargo.toml`.
    pub dropped_members: Vec<String>,
    /// Hidden scenarios left out, and their points.
    pub hidden: (usize, u32),
}

/// Writes the student edition of `lab` to `out`, which must not exist or be empty.
pub fn release(lab: &Lab, out: &Path) -> Result<Released, Error> {
    let report = validation::lab(lab)?;
    let problems = report.all_problems();
    if !problems.is_empty() {
        return Err(validation::refusal(&problems, "released"));
    }
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| Error::io("read", out, e))?
            .next()
            .is_none();
        if !empty {
            return Err(Error::Usage(format!(
                "{} already exists and is not empty\n  help: give a new folder, or remove this one first",
                out.display()
            )));
        }
    }
    let created = !out.exists();
    std::fs::create_dir_all(out).map_err(|e| Error::io("create", out, e))?;
    let result = write(lab, out, &report);
    if result.is_err() {
        // Leave nothing half-written behind.
        if created {
            let _ = std::fs::remove_dir_all(out);
        } else if let Ok(entries) = std::fs::read_dir(out) {
            for entry in entries.flatten() {
                let p = entry.path();
                let _ = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
            }
        }
    }
    result
}

fn write(lab: &Lab, out: &Path, report: &validation::LabReport) -> Result<Released, Error> {
    let kit = &lab.kit;
    let manifest_text = read(&kit.join("Cargo.toml"))?;
    let members = workspace_members(&manifest_text);
    let solutions = solution_crates(&lab.labs, kit)?;
    let (kept, dropped): (Vec<String>, Vec<String>) = members
        .into_iter()
        .partition(|m| !is_solution(m, &solutions));
    // Every kit path to copy, relative to the kit.
    let mut sources: Vec<PathBuf> = ROOT_FILES
        .iter()
        .filter(|name| !matches!(**name, "Cargo.toml" | "Cargo.lock" | "README.md"))
        .chain(CI_PARTS)
        .map(PathBuf::from)
        .collect();
    for member in &kept {
        sources.extend(MEMBER_PARTS.iter().map(|part| Path::new(member).join(part)));
    }
    sources.push(PathBuf::from(&lab.manifest.student_crate));
    let lab_rel = Path::new("labs").join(&lab.manifest.name);
    sources.extend(LAB_PARTS.iter().map(|part| lab_rel.join(part)));
    sources.retain(|rel| kit.join(rel).exists());
    let out_abs = out.canonicalize().map_err(|e| Error::io("open", out, e))?;
    if let Some(inside) = sources
        .iter()
        .find(|rel| out_abs.starts_with(kit.join(rel)))
    {
        return Err(Error::Usage(format!(
            "{} is inside {}, which the student edition copies\n  help: write the edition outside the kit, such as ../{}-student",
            out.display(),
            inside.display(),
            lab.manifest.name
        )));
    }
    let mut files = 0;
    for rel in &sources {
        files += copy_tree(&kit.join(rel), &out.join(rel))?;
    }
    let mut copied: BTreeSet<PathBuf> = sources.into_iter().collect();
    // The rewritten files.
    let rewritten = rewrite_manifest(&manifest_text, &dropped)?;
    put(&out.join("Cargo.toml"), &rewritten)?;
    files += 1;
    let dropped_packages: Vec<String> = dropped
        .iter()
        .filter_map(|m| std::fs::read_to_string(kit.join(m).join("Cargo.toml")).ok())
        .filter_map(|t| package_name(&t))
        .collect();
    if let Ok(lock) = std::fs::read_to_string(kit.join("Cargo.lock")) {
        put(
            &out.join("Cargo.lock"),
            &rewrite_lock(&lock, &dropped_packages),
        )?;
        files += 1;
    }
    let hidden: Vec<_> = validation::load_scenarios(lab, &lab.scenario_files()?.hidden).scenarios;
    let hidden_points: u32 = hidden.iter().map(|s| s.points).sum();
    let readme = std::fs::read_to_string(kit.join("README.md")).unwrap_or_default();
    let readme = edition_readme::for_students(&readme)?;
    let note = edition_readme::note(
        lab,
        hidden.len(),
        hidden_points,
        report.counts.mutants + report.counts.alternatives,
    );
    put(
        &out.join("README.md"),
        &format!(
            "{}{}{note}",
            readme,
            if readme.is_empty() { "" } else { "\n" }
        ),
    )?;
    files += 1;
    for extra in ["Cargo.toml", "Cargo.lock", "README.md"] {
        copied.insert(PathBuf::from(extra));
    }
    let mut left_out = Vec::new();
    list_left_out(kit, Path::new(""), &copied, &mut left_out)?;
    check_edition(lab, out, &hidden)?;
    Ok(Released {
        files,
        left_out,
        dropped_members: dropped,
        hidden: (hidden.len(), hidden_points),
    })
}

/// The entries of the kit (top level, and inside a copied folder's parents) that were not
/// copied, for the record; `target` and `.git` are not worth mentioning.
fn list_left_out(
    kit: &Path,
    rel: &Path,
    copied: &BTreeSet<PathBuf>,
    out: &mut Vec<String>,
) -> Result<(), Error> {
    let mut names: Vec<_> = entries(&kit.join(rel))?
        .iter()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    for name in names {
        if name == "target" || name == ".git" {
            continue;
        }
        let child = rel.join(&name);
        if copied.contains(&child) {
            continue;
        }
        if copied.iter().any(|c| c.starts_with(&child)) {
            list_left_out(kit, &child, copied, out)?;
        } else {
            out.push(child.display().to_string());
        }
    }
    Ok(())
}

fn is_solution(member: &str, solutions: &[String]) -> bool {
    let m = Path::new(member);
    m.starts_with("solutions") || solutions.iter().any(|s| m.starts_with(s))
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))
}

fn put(path: &Path, text: &str) -> Result<(), Error> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io("write", path, e))
}

/// Copies a file, or a folder without `target/`, `.git/` and other dot-entries, with the
/// files' modification times; returns the number of files written.
fn copy_tree(from: &Path, to: &Path) -> Result<usize, Error> {
    if from.is_file() {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        std::fs::copy(from, to).map_err(|e| Error::io("copy", from, e))?;
        // The edition's files keep the kit's times: a build of an earlier edition in the
        // same place is reused instead of starting again.
        let modified = std::fs::metadata(from)
            .and_then(|m| m.modified())
            .map_err(|e| Error::io("read the time of", from, e))?;
        std::fs::File::options()
            .write(true)
            .open(to)
            .and_then(|f| f.set_modified(modified))
            .map_err(|e| Error::io("set the time of", to, e))?;
        return Ok(1);
    }
    std::fs::create_dir_all(to).map_err(|e| Error::io("create", to, e))?;
    let mut n = 0;
    let entries = std::fs::read_dir(from).map_err(|e| Error::io("read", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read", from, e))?;
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        n += copy_tree(&entry.path(), &to.join(&name))?;
    }
    Ok(n)
}
