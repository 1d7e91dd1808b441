//! The student edition checked after it is written: its lab validates, no file is a copy
//! of a reference solution's or of a correct alternative's, and no file names a hidden
//! scenario.

use std::path::{Path, PathBuf};

use super::validation;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::lab::Lab;

/// Checks the written edition: its lab validates, no file copies a solution file (a
/// reference's or an alternative's, of any lab), no file names a hidden scenario.
pub(super) fn check_edition(
    lab: &Lab,
    out: &Path,
    hidden: &[crate::scenario::Scenario],
) -> Result<(), Error> {
    let out = out.canonicalize().map_err(|e| Error::io("open", out, e))?;
    let released = Lab::load(&lab.labs, &out, &lab.manifest.name)?;
    let mut problems: Vec<Diagnostic> = validation::lab(&released)?.all_problems();
    let mut solution_files = Vec::new();
    for folder in solution_folders(&lab.labs, &lab.kit)? {
        collect_files(&folder, &mut solution_files)?;
    }
    let solution_texts: Vec<(PathBuf, Vec<u8>)> = solution_files
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|t| (p, t)))
        .filter(|(_, t)| t.len() > 200)
        .collect();
    let mut released_files = Vec::new();
    collect_files(&out, &mut released_files)?;
    released_files.sort();
    for file in &released_files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let shown = file.strip_prefix(&out).unwrap_or(file);
        for (solution, text) in &solution_texts {
            if &bytes == text {
                problems.push(
                    Diagnostic::file(
                        shown,
                        format!(
                            "this file is a copy of {}",
                            crate::lab::kit::shown_path(&lab.kit, solution).display()
                        ),
                    )
                    .help("restore the shipped version of the file in the kit (git checkout), then release again"),
                );
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        for s in hidden {
            if let Some(i) = text.find(&s.name) {
                problems.push(Diagnostic::at(
                    shown,
                    crate::diagnostic::Pos::of_offset(&text, i),
                    format!("this names the hidden scenario `{}`", s.name),
                )
                .help("students must not learn what the hidden scenarios are: remove the mention from the kit"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(validation::refusal(&problems, "released"))
    }
}

/// Every file under `dir` (or `dir` itself if it is a file).
fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    for entry in entries(dir)? {
        let path = entry.path();
        if entry.file_name() == "target" || entry.file_name() == ".git" {
            continue;
        }
        if path.is_dir() {
            collect_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The entries of folder `dir`; none if it does not exist. Any other failure to read it
/// is an error: a file the release does not see could be one it must not leak.
pub(super) fn entries(dir: &Path) -> Result<Vec<std::fs::DirEntry>, Error> {
    let read = match std::fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("read the folder", dir, e)),
    };
    read.map(|e| e.map_err(|e| Error::io("read the folder", dir, e)))
        .collect()
}

/// Every folder of the kit that holds a solution: each lab's reference solution and its
/// correct alternatives.
fn solution_folders(labs: &crate::lab::Registry, kit: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut folders = Vec::new();
    for name in crate::lab::lab_names(kit)? {
        let lab = Lab::load(labs, kit, &name)?;
        folders.push(kit.join(&lab.manifest.solution_crate));
        folders.push(lab.alternatives_dir());
    }
    Ok(folders)
}

/// The reference solutions of every lab of the kit, relative to it.
pub(super) fn solution_crates(
    labs: &crate::lab::Registry,
    kit: &Path,
) -> Result<Vec<String>, Error> {
    let mut crates = Vec::new();
    for name in crate::lab::lab_names(kit)? {
        crates.push(Lab::load(labs, kit, &name)?.manifest.solution_crate);
    }
    Ok(crates)
}
