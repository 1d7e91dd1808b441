//! A student edition of a kit: what `grader release` writes, for one lab or several
//! (`grader release lab4 lab5`, for a course that hands out both).
//!
//! The edition is built from an allowlist, never by deleting from a copy, so a folder
//! added to the kit later (notes, exams, a second solution) stays out until someone
//! decides it belongs in. What goes in:
//!
//! - the workspace members its labs need ([`super::edition_members`]): the grader, each
//!   lab's own crates and student crate, and what they depend on; their `Cargo.toml`,
//!   `build.rs`, `README.md` and `src/`, the student crates whole;
//! - from each lab's folder: `lab.json`, `README.md`, its `clippy.toml`, the scenario
//!   schema, the rules and their hints (`rules.json`), `scenarios/` and the rehearsal
//!   script (and `hidden/`, only for a grading image's edition: `--hidden`);
//! - the root files a build needs ([`ROOT_FILES`]) and the CI files a student repository
//!   runs ([`CI_PARTS`]);
//! - files written for the edition ([`made`]): `Cargo.toml`, `Cargo.lock`, the grader's
//!   manifest and its registration of labs without the labs left out; `clippy.toml`,
//!   the GitHub workflow and the README in the words of its labs; and `edition.json`.
//!
//! So the reference solutions, `hidden/`, `mutants/`, `alternatives/`, other labs'
//! crates and handouts, the instructors' documentation (`ARCHITECTURE.md`, `docs/`) and
//! the grader's own test suite stay out. Before writing, each lab must validate; after
//! writing, the edition is checked again ([`super::edition_check`]).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::cargo_files::{
    drop_dependencies, drop_registrations, prune_lock, rewrite_lock, rewrite_manifest,
    workspace_members,
};
use super::edition_check::{check_edition, entries, solution_crates};
use super::edition_members::{self, Members, Wanted};
use super::edition_readme::{self, LabFacts};
use crate::error::Error;
use crate::generate::edition::{self, Which};
use crate::generate::seeds::{PRACTICE_DIR, Seeds};
use crate::grade::RunOptions;
use crate::instructor::validation;
use crate::lab::Lab;
use crate::lab::edition::{Edition, EditionLab};

/// Files of the kit root that go into the edition when they exist, as they are.
pub const ROOT_FILES: &[&str] = &[
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

/// The GitHub workflow, whose matrix of labs the edition writes for its own.
pub const WORKFLOW: &str = "ci/github/grade.yml";

/// Files and folders of a workspace member that go into the edition when they exist.
pub const MEMBER_PARTS: &[&str] = &["Cargo.toml", "build.rs", "README.md", "src"];

/// Files and folders of the lab folder that go into the edition when they exist.
pub const LAB_PARTS: &[&str] = &[
    "lab.json",
    "README.md",
    super::edition_lints::FILE_NAME,
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
    /// Each lab's hidden scenarios and their points (left out, or carried with
    /// `--hidden`).
    pub hidden: Vec<(String, usize, u32)>,
}

/// Writes the student edition of `labs` (one or more, of one kit) to `out`, which must not
/// exist or be empty; with `hidden`, each lab's hidden scenarios go in too (for a grading
/// image, never for students).
///
/// A lab with generated scenarios has no reference in the edition to fill them in, so
/// they are filled in here, each lab's with `opts` (one per lab, in order): the published
/// practice seeds into `labs/<lab>/generated/`, and with `hidden` the seeds graded in CI
/// into `labs/<lab>/hidden/`, where they are hidden scenarios like the others.
pub fn release(
    labs: &[Lab],
    out: &Path,
    hidden: bool,
    opts: &[RunOptions],
    progress: &mut dyn Write,
) -> Result<Released, Error> {
    if labs.is_empty() {
        return Err(Error::Usage(
            "name the lab to release, or several: grader release LAB... --out DIR".into(),
        ));
    }
    let mut reports = Vec::new();
    for lab in labs {
        let report = validation::lab(lab)?;
        let problems = report.all_problems();
        if !problems.is_empty() {
            return Err(validation::refusal(&problems, "released"));
        }
        reports.push(report);
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
    let checks = reports
        .iter()
        .any(|r| r.counts.mutants + r.counts.alternatives > 0);
    let result = write(labs, out, hidden, checks, opts, progress);
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

fn write(
    labs: &[Lab],
    out: &Path,
    hidden: bool,
    checks: bool,
    opts: &[RunOptions],
    progress: &mut dyn Write,
) -> Result<Released, Error> {
    let kit = &labs[0].kit;
    let manifest_text = read(&kit.join("Cargo.toml"))?;
    let members = workspace_members(&manifest_text);
    let packages = edition_members::packages(kit)?;
    let all_labs = crate::lab::lab_names(kit)?;
    let solutions = solution_crates(&labs[0].labs, kit)?;
    let wanted: Vec<Wanted> = labs.iter().map(Wanted::of).collect();
    let chosen = edition_members::select(
        &packages,
        &members,
        &wanted,
        &all_labs,
        env!("CARGO_PKG_NAME"),
        &solutions,
    )?;
    // Every kit path to copy, relative to the kit.
    let mut sources: Vec<PathBuf> = ROOT_FILES
        .iter()
        .chain(CI_PARTS)
        .map(PathBuf::from)
        .collect();
    for member in &chosen.kept {
        sources.extend(
            MEMBER_PARTS
                .iter()
                .map(|part| Path::new(&member.dir).join(part)),
        );
    }
    for lab in labs {
        sources.push(PathBuf::from(&lab.manifest.student_crate));
        let lab_rel = Path::new("labs").join(&lab.manifest.name);
        sources.extend(LAB_PARTS.iter().map(|part| lab_rel.join(part)));
        if hidden {
            sources.push(lab_rel.join("hidden"));
        }
    }
    sources.retain(|rel| kit.join(rel).exists());
    sources.sort();
    sources.dedup();
    let out_abs = out.canonicalize().map_err(|e| Error::io("open", out, e))?;
    if let Some(inside) = sources
        .iter()
        .find(|rel| out_abs.starts_with(kit.join(rel)))
    {
        return Err(Error::Usage(format!(
            "{} is inside {}, which the student edition copies\n  help: write the edition outside the kit, such as ../{}-student",
            out.display(),
            inside.display(),
            labs[0].manifest.name
        )));
    }
    let mut files = 0;
    for rel in &sources {
        files += copy_tree(&kit.join(rel), &out.join(rel))?;
    }
    let mut copied: BTreeSet<PathBuf> = sources.into_iter().collect();
    let mut generated_names = Vec::new();
    for (lab, opts) in labs.iter().zip(opts) {
        let (written, names) = generated_files(lab, out, hidden, opts, progress)?;
        files += written.len();
        copied.extend(written);
        generated_names.extend(names.into_iter().map(|n| (lab.manifest.name.clone(), n)));
    }
    let mut facts = Vec::new();
    let mut hidden_counts = Vec::new();
    for lab in labs {
        let scenario_files = lab.scenario_files()?;
        let visible = validation::load_scenarios(lab, &scenario_files.visible).scenarios;
        let hidden_scenarios = validation::load_scenarios(lab, &scenario_files.hidden).scenarios;
        // The generated scenarios graded in CI count as hidden ones.
        let (generated, generated_points) = Seeds::of(lab)?.map_or((0, 0), |s| s.graded_points());
        let hidden_n = hidden_scenarios.len() + generated;
        let hidden_points: u32 =
            hidden_scenarios.iter().map(|s| s.points).sum::<u32>() + generated_points;
        hidden_counts.push((lab.manifest.name.clone(), hidden_n, hidden_points));
        facts.push(LabFacts {
            lab,
            visible: (visible.len(), visible.iter().map(|s| s.points).sum()),
            hidden: (hidden_n, hidden_points),
            rehearsal: lab.dir.join(crate::rehearse::script::FILE_NAME).is_file(),
        });
    }
    for (rel, text) in made(labs, kit, &manifest_text, &chosen, &facts, hidden, checks)? {
        put(&out.join(&rel), &text)?;
        files += 1;
        copied.insert(rel);
    }
    let mut left_out = Vec::new();
    list_left_out(kit, Path::new(""), &copied, &mut left_out)?;
    let mut hidden_names = Vec::new();
    for lab in labs {
        hidden_names.extend(
            validation::load_scenarios(lab, &lab.scenario_files()?.hidden)
                .scenarios
                .into_iter()
                .map(|s| (lab.manifest.name.clone(), s.name)),
        );
    }
    hidden_names.extend(generated_names);
    check_edition(labs, out, &hidden_names, &chosen, &all_labs)?;
    Ok(Released {
        files,
        left_out,
        dropped_members: chosen.dropped_dirs(),
        hidden: hidden_counts,
    })
}

/// Fills in `lab`'s generated scenarios for the edition at `out`: the practice seeds, and
/// with `hidden` the graded ones. The files written, relative to the edition, and the
/// names of the graded seeds' scenarios (which must appear nowhere else in it).
fn generated_files(
    lab: &Lab,
    out: &Path,
    hidden: bool,
    opts: &RunOptions,
    progress: &mut dyn Write,
) -> Result<(Vec<PathBuf>, Vec<String>), Error> {
    let Some(seeds) = Seeds::of(lab)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let lab_rel = Path::new("labs").join(&lab.manifest.name);
    let mut written = Vec::new();
    let mut runs = vec![(Which::Practice, lab_rel.join(PRACTICE_DIR))];
    if hidden {
        runs.push((Which::Graded, lab_rel.join("hidden")));
    }
    for (which, dir) in runs {
        let _ = writeln!(
            progress,
            "filling in {}'s {} generated scenarios from the reference ...",
            lab.manifest.name,
            match which {
                Which::Practice => "practice",
                Which::Graded => "graded",
            }
        );
        for path in edition::write(lab, which, &out.join(&dir), opts, progress)? {
            let name = path.file_name().map(PathBuf::from).unwrap_or_default();
            written.push(dir.join(name));
        }
    }
    let names = seeds
        .graded
        .into_iter()
        .flatten()
        .map(crate::generate::name)
        .collect();
    Ok((written, names))
}

/// The files written for the edition rather than copied, relative to it, with their text:
/// the manifests and lock file without what the edition leaves out, the lints, workflow
/// and README in the words of its labs, and `edition.json`. A file made when an edition
/// is written (scenarios generated for it, say) belongs here.
fn made(
    labs: &[Lab],
    kit: &Path,
    manifest_text: &str,
    chosen: &Members,
    facts: &[LabFacts<'_>],
    hidden: bool,
    checks: bool,
) -> Result<Vec<(PathBuf, String)>, Error> {
    let mut made = Vec::new();
    let dropped_dirs = chosen.dropped_dirs();
    let dropped_names = chosen.dropped_names();
    made.push((
        PathBuf::from("Cargo.toml"),
        rewrite_manifest(manifest_text, &dropped_dirs)?,
    ));
    if let Ok(lock) = std::fs::read_to_string(kit.join("Cargo.lock")) {
        let kept: Vec<String> = chosen.kept.iter().map(|p| p.name.clone()).collect();
        made.push((
            PathBuf::from("Cargo.lock"),
            prune_lock(&rewrite_lock(&lock, &dropped_names), &kept),
        ));
    }
    // The grader, without the labs left out: its dependencies and its registration.
    if let Some(grader) = chosen
        .kept
        .iter()
        .find(|p| p.name == env!("CARGO_PKG_NAME"))
    {
        let manifest = Path::new(&grader.dir).join("Cargo.toml");
        made.push((
            manifest.clone(),
            drop_dependencies(&read(&kit.join(&manifest))?, &dropped_names),
        ));
        let registration = Path::new(&grader.dir).join("src/labs.rs");
        if kit.join(&registration).is_file() {
            let text = drop_registrations(&read(&kit.join(&registration))?, &dropped_names);
            made.push((registration, text));
        }
    }
    let names: Vec<String> = labs.iter().map(|l| l.manifest.name.clone()).collect();
    // The lints in the labs' words; the kit's own when no lab has words of its own.
    let lints = match super::edition_lints::join(kit, &names)? {
        Some(text) => Some(text),
        None => std::fs::read_to_string(kit.join(super::edition_lints::FILE_NAME)).ok(),
    };
    if let Some(text) = lints {
        made.push((PathBuf::from(super::edition_lints::FILE_NAME), text));
    }
    if kit.join(WORKFLOW).is_file() {
        made.push((
            PathBuf::from(WORKFLOW),
            workflow_for(&read(&kit.join(WORKFLOW))?, &names)?,
        ));
    }
    let described: Vec<(edition_members::Package, String)> = chosen
        .kept
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(kit.join(&p.dir).join("Cargo.toml")).unwrap_or_default();
            (p.clone(), description(&text))
        })
        .collect();
    let kit_readme = std::fs::read_to_string(kit.join("README.md")).unwrap_or_default();
    let readme = edition_readme::write(&kit_readme, facts, &described)?;
    made.push((
        PathBuf::from("README.md"),
        format!("{readme}{}", edition_readme::note(facts, checks)),
    ));
    let edition = Edition {
        format_version: crate::lab::edition::FORMAT_VERSION,
        written_by: format!(
            "grader release {}{}",
            names.join(" "),
            if hidden { " --hidden" } else { "" }
        ),
        labs: facts
            .iter()
            .map(|f| EditionLab {
                name: f.lab.manifest.name.clone(),
                hidden_scenarios: f.hidden.0,
                hidden_points: f.hidden.1,
                hidden_included: hidden,
            })
            .collect(),
    };
    let json = serde_json::to_string_pretty(&edition)
        .map_err(|e| Error::Usage(format!("cannot write edition.json: {e}")))?;
    made.push((
        PathBuf::from(crate::lab::edition::FILE_NAME),
        format!("{json}\n"),
    ));
    Ok(made)
}

/// The workflow with its matrix of labs (the line `lab: [...]`) set to `labs`.
pub fn workflow_for(workflow: &str, labs: &[String]) -> Result<String, Error> {
    let mut found = false;
    let text: String = workflow
        .split_inclusive('\n')
        .map(|line| {
            let t = line.trim_start();
            if t.starts_with("lab: [") && !found {
                found = true;
                let indent = &line[..line.len() - t.len()];
                format!("{indent}lab: [{}]\n", labs.join(", "))
            } else {
                line.to_owned()
            }
        })
        .collect();
    if !found {
        return Err(Error::Usage(format!(
            "{WORKFLOW} has no `lab: [...]` line in its matrix, so the edition's workflow cannot name its labs\n  help: restore the kit's {WORKFLOW}"
        )));
    }
    Ok(text)
}

/// The `description` of a package manifest, or nothing.
fn description(manifest: &str) -> String {
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("description = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or("")
        .to_owned()
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
