//! Known-wrong solutions ("mutants") that the scenarios must catch.
//!
//! Each mutant is a JSON file in the lab's instructor material (`labs/<lab>/mutants/`):
//! a name, the mistake it stands for, the scenarios that must fail on it, and text edits
//! that turn the reference solution into the buggy one. Keeping edits instead of copies
//! means a mutant is a few lines to review, and an edit that no longer applies to the
//! reference is reported rather than silently testing stale code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::build::Subject;
use crate::build::materialize::materialize;
use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;
use crate::lab::Lab;

/// A mutant file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mutant {
    /// Must be 1.
    pub format_version: u32,
    /// Unique name: lowercase letters, digits and `_`.
    pub name: String,
    /// The bug in a few words.
    pub title: String,
    /// The mistake it stands for, and why it matters.
    pub mistake: String,
    /// The lab's rule it breaks (an id of `rules.json`), which its report's "Start here"
    /// must name. Without it, the rule of the first scenario in `caught_by`.
    #[serde(default)]
    pub rule: Option<String>,
    /// Scenarios that must fail on it.
    pub caught_by: Vec<String>,
    /// Why it is enough that one scenario catches it. Without this, the audit fails
    /// when fewer than two scenarios catch the mutant.
    #[serde(default)]
    pub caught_once_because: Option<String>,
    /// Why the report's "Start here" for this mutant cannot point at a scenario its
    /// `caught_by` names with that scenario's hint. Without this, the audit fails when it
    /// does not.
    #[serde(default)]
    pub start_here_elsewhere_because: Option<String>,
    /// Why no generated scenario graded in CI catches this mutant (the generators do not
    /// reach its mistake yet). Without this, the audit fails when none does.
    #[serde(default)]
    pub generated_misses_because: Option<String>,
    /// Edits to the reference solution, applied in order.
    pub edits: Vec<Edit>,
}

/// Replace the one occurrence of `find` in `file` with `replace`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// A file of the solution crate, relative to it (`src/breaker.rs`).
    pub file: String,
    /// Text that occurs exactly once in that file.
    pub find: String,
    /// What to put instead.
    pub replace: String,
}

/// The folder of a lab's mutants.
pub fn dir(lab: &Lab) -> PathBuf {
    lab.dir.join("mutants")
}

/// Loads every mutant of `lab`, sorted by file name.
pub fn load(lab: &Lab) -> Result<Vec<Mutant>, Error> {
    let paths = lab.mutant_files()?;
    let mut mutants = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        let shown = crate::lab::kit::shown_path(&lab.kit, &path);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
        match serde_json::from_str::<Mutant>(&text) {
            Ok(m) => mutants.push(m),
            Err(e) => problems.push(Diagnostic::at(
                &shown,
                Pos {
                    line: e.line(),
                    col: e.column(),
                },
                crate::diagnostic::describe_json_error(&e),
            )),
        }
    }
    if problems.is_empty() {
        Ok(mutants)
    } else {
        Err(Error::Invalid(problems))
    }
}

/// Writes the mutant's source under the work folder and returns it as a subject.
pub fn subject(lab: &Lab, work: &Path, mutant: &Mutant) -> Result<Subject, Error> {
    let solution = lab.manifest.solution_crate.clone();
    let label = format!("mutant {}", mutant.name);
    let key = format!("mutant_{}", mutant.name);
    materialize(lab, work, &key, &label, &solution, &solution, |files| {
        apply(lab, mutant, files)
    })
}

/// Applies the edits to the solution's files (keyed by their path relative to `src/`).
fn apply(lab: &Lab, mutant: &Mutant, files: &mut BTreeMap<PathBuf, String>) -> Result<(), Error> {
    let mutant_file = dir(lab).join(format!("{}.json", mutant.name));
    let shown = crate::lab::kit::shown_path(&lab.kit, &mutant_file);
    for (i, edit) in mutant.edits.iter().enumerate() {
        let rel = Path::new(&edit.file);
        let rel = rel.strip_prefix("src").unwrap_or(rel);
        let Some(text) = files.get_mut(rel) else {
            return Err(Error::Invalid(vec![Diagnostic::file(
                &shown,
                format!("edit {}: the solution has no file {}", i + 1, edit.file),
            )]));
        };
        let found = text.matches(&edit.find).count();
        if found != 1 {
            let how = if found == 0 {
                "does not occur"
            } else {
                "occurs more than once"
            };
            return Err(Error::Invalid(vec![
                Diagnostic::file(
                    &shown,
                    format!(
                        "edit {}: its `find` text {how} in {}/{}",
                        i + 1,
                        lab.manifest.solution_crate,
                        edit.file
                    ),
                )
                .help(
                    "the reference solution changed: update the edit so it names one exact place",
                ),
            ]));
        }
        *text = text.replacen(&edit.find, &edit.replace, 1);
    }
    Ok(())
}
