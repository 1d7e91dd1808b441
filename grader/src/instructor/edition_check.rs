//! The student edition checked after it is written: its labs validate, no file is a copy
//! of a reference solution's or of a correct alternative's, no file names a hidden
//! scenario (outside the hidden scenarios a grading image's edition carries), and no
//! file names a crate or a folder of a lab the edition does not hold (a crate several
//! labs share is the edition's when one of its labs needs it).

use std::path::{Path, PathBuf};

use super::edition_members::Members;
use super::validation;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::lab::Lab;

/// Checks the written edition of `labs`: they validate, no file copies a solution file (a
/// reference's or an alternative's, of any lab), no file names one of `hidden` (lab and
/// scenario) outside that lab's `hidden/`, no file names what `chosen` leaves out or a
/// folder of another of `all_labs`.
pub(super) fn check_edition(
    labs: &[Lab],
    out: &Path,
    hidden: &[(String, String)],
    chosen: &Members,
    all_labs: &[String],
) -> Result<(), Error> {
    let lab = &labs[0];
    let out = out.canonicalize().map_err(|e| Error::io("open", out, e))?;
    let mut problems: Vec<Diagnostic> = Vec::new();
    for l in labs {
        let released = Lab::load(&lab.labs, &out, &l.manifest.name)?;
        problems.extend(validation::lab(&released)?.all_problems());
    }
    let foreign = Foreign::of(labs, chosen, all_labs);
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
        for (lab, name) in hidden {
            if shown.starts_with(Path::new("labs").join(lab).join("hidden")) {
                continue;
            }
            if let Some(i) = text.find(name.as_str()) {
                problems.push(Diagnostic::at(
                    shown,
                    crate::diagnostic::Pos::of_offset(&text, i),
                    format!("this names the hidden scenario `{name}`"),
                )
                .help("students must not learn what the hidden scenarios are: remove the mention from the kit"));
            }
        }
        if let Some((i, what)) = foreign.find(&text) {
            problems.push(
                Diagnostic::at(
                    shown,
                    crate::diagnostic::Pos::of_offset(&text, i),
                    format!("this names {what}, which this edition does not hold"),
                )
                .help("an edition speaks of its own labs only: say it without naming the other lab's crate or files (a neutral example), or release that lab too"),
            );
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(validation::refusal(&problems, "released"))
    }
}

/// What an edition must not name: the packages it leaves out, and the folders of those
/// packages and of the labs it does not hold, except where a kept member lives inside
/// one (a race twin one lab shares with another).
struct Foreign {
    packages: Vec<String>,
    folders: Vec<String>,
    kept: Vec<String>,
}

impl Foreign {
    fn of(labs: &[Lab], chosen: &Members, all_labs: &[String]) -> Foreign {
        // Its own labs' reference solutions are left out too, but `lab.json` names them
        // and the README says they are left out.
        // The grader's own crates (the race checks' runtime, say) belong to no lab: an
        // edition without race checks leaves them out but may speak of them.
        let own = |dir: &str| {
            labs.iter().any(|l| l.manifest.solution_crate == dir)
                || Path::new(dir).starts_with(env!("CARGO_PKG_NAME"))
        };
        let mut folders: Vec<String> = chosen
            .dropped_dirs()
            .into_iter()
            .filter(|d| !own(d))
            .collect();
        folders.extend(
            all_labs
                .iter()
                .filter(|l| !labs.iter().any(|lab| &lab.manifest.name == *l))
                .map(|l| format!("labs/{l}")),
        );
        Foreign {
            packages: chosen
                .dropped
                .iter()
                .filter(|p| !own(&p.dir))
                .map(|p| p.name.clone())
                .collect(),
            folders,
            kept: chosen.kept.iter().map(|p| p.dir.clone()).collect(),
        }
    }

    /// The first mention in `text`, with what it names.
    fn find(&self, text: &str) -> Option<(usize, String)> {
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let path = |b: u8| word(b) || b == b'/' || b == b'.' || b == b'-';
        let bytes = text.as_bytes();
        let mut found: Option<(usize, String)> = None;
        let mut note = |i: usize, what: String| {
            if found.as_ref().is_none_or(|(j, _)| i < *j) {
                found = Some((i, what));
            }
        };
        for p in &self.packages {
            for (i, _) in text.match_indices(p.as_str()) {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + p.len()).copied();
                if !before.is_some_and(word) && !after.is_some_and(word) {
                    note(i, format!("the crate `{p}`"));
                    break;
                }
            }
        }
        for f in &self.folders {
            for (i, _) in text.match_indices(f.as_str()) {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                if before.is_some_and(|b| word(b) || b == b'.') {
                    continue;
                }
                let end = bytes[i..]
                    .iter()
                    .position(|b| !path(*b))
                    .map_or(bytes.len(), |n| i + n);
                let token = &text[i..end];
                let rest = &token[f.len()..];
                if !(rest.is_empty() || rest.starts_with('/')) {
                    continue;
                }
                let inside_kept = self
                    .kept
                    .iter()
                    .any(|k| k.len() > f.len() && Path::new(token).starts_with(k));
                if !inside_kept {
                    note(i, format!("`{f}`"));
                    break;
                }
            }
        }
        found
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

#[cfg(test)]
mod tests {
    use super::*;

    fn foreign() -> Foreign {
        Foreign {
            packages: vec!["dropped_crate".into(), "other_race".into()],
            folders: vec![
                "crates/dropped_crate".into(),
                "labs/other/race".into(),
                "labs/other".into(),
            ],
            kept: vec!["labs/other/race/twins/shared".into()],
        }
    }

    #[test]
    fn another_labs_crates_and_files_are_found_and_shared_ones_are_not() {
        let f = foreign();
        assert_eq!(f.find("uses shared and dropped_crate_race only"), None);
        assert_eq!(
            f.find("see `dropped_crate`"),
            Some((5, "the crate `dropped_crate`".to_owned()))
        );
        assert_eq!(f.find("path = \"labs/other/race/twins/shared\""), None);
        assert_eq!(
            f.find("read labs/other/README.md").map(|(_, w)| w),
            Some("`labs/other`".to_owned())
        );
        assert_eq!(
            f.find("x labs/other/race/src/monitor.rs").map(|(_, w)| w),
            Some("`labs/other/race`".to_owned())
        );
        assert_eq!(f.find("the labs/other5 folder"), None);
    }
}
