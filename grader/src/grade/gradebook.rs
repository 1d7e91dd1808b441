//! Grading a folder of submissions into a gradebook.
//!
//! Every sub-folder is one submission, read as `grader check --submission` reads one.
//! Cargo locks its target folder for the length of a build, so builds that share the
//! compiled dependencies cannot run side by side: one thread builds the submissions a
//! chunk at a time, each chunk with one cargo call that compiles its crates in parallel
//! ([`crate::build::batch`]), while a pool of threads runs the scenarios of those already
//! built, oldest submission first, at most `jobs` submissions at a time. A
//! submission that does not compile, hangs, or cannot be graded becomes its row and the
//! batch goes on; so does one on which the grader itself fails (status `error`).
//!
//! This file is the gradebook (its rows and columns); [`super::batch`] is the builder and
//! the pool; [`super::gradebook_csv`] its spreadsheet, [`super::platforms`] the files
//! Canvas and Moodle import, [`super::roster`] who each submission belongs to, and
//! [`super::regrade`] how a new batch joins the rows already in a results folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::grade::roster::Student;
use crate::grade::submission::COULD_NOT_GRADE;
use crate::grade::submission::Outcome;
use crate::grade::{RunOptions, Selection};
use crate::lab::Lab;
use crate::report::Status;
use crate::report::clip::{COMPILE_ERRORS, clip};
use crate::scenario::Visibility;

/// A row's status: the submission was graded (whatever its points).
pub const GRADED: &str = "graded";
/// A row's status: the grader failed on this submission; the message says why.
pub const ERROR: &str = "error";

/// The gradebook: one row per submission, in name order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Gradebook {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The lab.
    pub lab: String,
    /// The grader's version, as of the last batch.
    pub kit_version: String,
    /// How many scenarios each submission of the last batch ran.
    pub scenarios: usize,
    /// SHA-256 of the scenario set of the last batch (see [`Provenance`]).
    pub scenarios_sha256: String,
    /// Points available.
    pub max_score: u32,
    /// What kept the submissions' code away from everything else (see `crate::sandbox`),
    /// or that nothing did; absent when nothing was graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The rubric categories, in the lab's order, with their points available.
    pub categories: Vec<CategoryColumn>,
    /// The scenarios of the last batch, in report order.
    #[serde(default)]
    pub scenario_columns: Vec<ScenarioColumn>,
    /// One row per submission, sorted by name.
    pub submissions: Vec<Row>,
}

/// A rubric category as a column of the gradebook.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CategoryColumn {
    /// Category id.
    pub id: String,
    /// Category title.
    pub title: String,
    /// Points available.
    pub max_score: u32,
}

/// A scenario, for the class page's columns.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioColumn {
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// Its category id.
    pub category: String,
    /// Its points.
    pub points: u32,
    /// Only submission grading runs it; students never see its file.
    pub hidden: bool,
}

/// One submission's line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The sub-folder's name.
    pub name: String,
    /// `graded`, `could_not_grade` or `error`.
    pub status: String,
    /// Points earned.
    pub score: u32,
    /// Points available.
    pub max_score: u32,
    /// Scenarios passed.
    pub passed: usize,
    /// Points earned per category id.
    pub categories: BTreeMap<String, u32>,
    /// The scenarios that did not pass (failed, error, timeout or not run), by name, in
    /// the order they ran.
    pub failed: Vec<String>,
    /// Whether the code compiled (`null` when it was not built).
    pub compiled: Option<bool>,
    /// SHA-256 of the graded files, as in the results file's provenance.
    pub student_files_sha256: Option<String>,
    /// The results file, relative to the results folder.
    pub results_file: Option<String>,
    /// Empty for a graded submission that compiled; otherwise why not.
    pub message: String,
    /// When it was graded: UTC, RFC 3339, to the second.
    #[serde(default)]
    pub graded_at: String,
    /// The grader's version that graded it.
    #[serde(default)]
    pub kit_version: String,
    /// SHA-256 of the scenarios it ran (see [`Provenance`]).
    #[serde(default)]
    pub scenarios_sha256: String,
    /// Whose submission it is, from the roster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub student: Option<Student>,
    /// Each scenario's status, by name (empty when nothing ran).
    #[serde(default)]
    pub statuses: BTreeMap<String, String>,
    /// Where its report says to start, when a scenario failed at a step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_here: Option<StartHere>,
    /// The place most of its scenarios stopped at (a `todo!()` or a panic), when any did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<String>,
    /// SHA-256 of its code with comments and white space left out (see
    /// [`super::code_digest`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_sha256: Option<String>,
    /// Its files are the kit's untouched skeleton.
    #[serde(default)]
    pub unchanged_skeleton: bool,
}

/// A report's "Start here", as the class page counts it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartHere {
    /// The scenario.
    pub scenario: String,
    /// Its step, from 1.
    pub step: usize,
    /// What was expected there.
    pub expected: String,
    /// What happened instead.
    pub observed: String,
}

impl Row {
    /// The row of `name`, graded now by this grader, with nothing measured yet.
    pub fn new(name: &str, status: &str, max_score: u32) -> Row {
        Row {
            name: name.to_owned(),
            status: status.to_owned(),
            score: 0,
            max_score,
            passed: 0,
            categories: BTreeMap::new(),
            failed: Vec::new(),
            compiled: None,
            student_files_sha256: None,
            results_file: None,
            message: String::new(),
            graded_at: now_utc(),
            kit_version: env!("CARGO_PKG_VERSION").to_owned(),
            scenarios_sha256: String::new(),
            student: None,
            statuses: BTreeMap::new(),
            start_here: None,
            stopped_at: None,
            code_sha256: None,
            unchanged_skeleton: false,
        }
    }
}

/// What the batch reports while it works, for a progress display.
#[derive(Clone, Debug)]
pub enum Progress {
    /// These submissions are being built (none: the build is over).
    Building {
        /// Their positions in name order.
        indices: Vec<usize>,
    },
    /// Submission `index` is finished.
    Done {
        /// Its position in name order.
        index: usize,
        /// Its row.
        row: Box<Row>,
        /// Wall time from the start of its build to its results file.
        took: Duration,
    },
}

/// Turns one outcome into the bytes of its results file, given the time it took.
pub type Render<'a> = dyn Fn(&Outcome, Duration) -> Result<Vec<u8>, Error> + Sync + 'a;

/// A batch to grade.
pub struct Batch<'a> {
    /// The lab.
    pub lab: &'a Lab,
    /// The scenarios every submission runs (hidden ones included).
    pub selection: &'a Selection,
    /// How to run one submission's scenarios.
    pub opts: &'a RunOptions,
    /// Submissions graded at once: the pool takes scenarios from at most this many.
    pub jobs: usize,
    /// Scenario processes at once, across those submissions.
    pub pool: usize,
    /// Submissions built by one cargo call.
    pub chunk: usize,
    /// Where the per-submission results files go (`<dir>/submissions/<name>.<ext>`).
    pub results_dir: &'a Path,
    /// Their extension.
    pub extension: &'a str,
    /// Writes one results file.
    pub render: &'a Render<'a>,
    /// The grader's work folder (builds and the shared target folder).
    pub work: &'a Path,
    /// SHA-256 of the kit's own student files (see [`skeleton_sha256`]): a submission
    /// with the same is the untouched skeleton.
    pub skeleton_sha256: &'a str,
}

/// SHA-256 of the lab's student files as the kit ships them, computed as a submission's
/// `student_files_sha256` is.
pub fn skeleton_sha256(lab: &Lab) -> Result<String, Error> {
    let crate_dir = lab.kit.join(&lab.manifest.student_crate);
    let mut files = Vec::new();
    for f in &lab.manifest.student_files {
        let path = crate_dir.join(f);
        let bytes = std::fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
        files.push((f.clone(), bytes));
    }
    let provenance = crate::report::provenance::Provenance::new(lab, &[], &files, String::new())?;
    Ok(provenance.student_files_sha256)
}

/// The moment a row is written: UTC, RFC 3339, to the second. Only the gradebook reads
/// the wall clock, to say when each row was graded; no verdict depends on it.
#[allow(clippy::disallowed_methods)]
pub fn now_utc() -> String {
    chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now())
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The scenarios of `selection`, as columns.
pub fn scenario_columns(selection: &Selection) -> Vec<ScenarioColumn> {
    selection
        .scenarios
        .iter()
        .map(|s| ScenarioColumn {
            name: s.name.clone(),
            title: s.title.clone(),
            category: s.category.clone(),
            points: s.points,
            hidden: s.visibility == Visibility::Hidden,
        })
        .collect()
}

pub(super) fn max_score(selection: &Selection) -> u32 {
    selection.scenarios.iter().map(|s| s.points).sum()
}

/// The sub-folders of `dir`, as (name, path), sorted by name; dot-folders are skipped.
pub fn list(dir: &Path) -> Result<Vec<(String, PathBuf)>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io("read the folder", dir, e))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read the folder", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        out.push((name, entry.path()));
    }
    out.sort();
    Ok(out)
}

/// Writes one results file and returns the row; `code` is the digest of the graded code
/// without its form ([`super::code_digest`]), when its files could be read.
pub(super) fn write(
    batch: &Batch<'_>,
    name: &str,
    file: &str,
    outcome: &Outcome,
    took: Duration,
    code: Option<String>,
) -> Row {
    let mut row = row(name, batch, outcome);
    row.code_sha256 = code;
    let path = batch.results_dir.join("submissions").join(file);
    let written = (batch.render)(outcome, took)
        .and_then(|bytes| std::fs::write(&path, bytes).map_err(|e| Error::io("write", &path, e)));
    match written {
        Ok(()) => row.results_file = Some(format!("submissions/{file}")),
        Err(e) => {
            row.status = ERROR.to_owned();
            row.message = e.to_string();
        }
    }
    row
}

/// The row of an outcome.
pub fn row(name: &str, batch: &Batch<'_>, outcome: &Outcome) -> Row {
    let mut categories: BTreeMap<String, u32> = batch
        .lab
        .manifest
        .categories
        .iter()
        .filter(|c| batch.selection.scenarios.iter().any(|s| s.category == c.id))
        .map(|c| (c.id.clone(), 0))
        .collect();
    let provenance = outcome.provenance();
    let hash = provenance.map(|p| p.student_files_sha256.clone());
    let mut row = Row::new(name, GRADED, outcome.max_score());
    row.student_files_sha256 = hash.clone();
    row.scenarios_sha256 = provenance
        .map(|p| p.scenarios_sha256.clone())
        .unwrap_or_default();
    match outcome {
        Outcome::Graded(report) => {
            for c in &report.categories {
                categories.insert(c.id.clone(), c.score);
            }
            row.score = report.score;
            row.passed = report
                .scenarios
                .iter()
                .filter(|s| s.status == Status::Passed)
                .count();
            row.categories = categories;
            row.failed = report
                .scenarios
                .iter()
                .filter(|s| s.status != Status::Passed)
                .map(|s| s.name.clone())
                .collect();
            row.compiled = Some(report.compile_errors.is_none());
            row.statuses = report
                .scenarios
                .iter()
                .map(|s| (s.name.clone(), s.status.as_str().to_owned()))
                .collect();
            row.start_here = report.start_here.as_ref().map(|l| StartHere {
                scenario: l.scenario.clone(),
                step: l.step,
                expected: l.expected.clone(),
                observed: l.observed.clone(),
            });
            row.stopped_at =
                most_common(report.scenarios.iter().filter_map(|s| s.stopped_at.clone()));
            row.unchanged_skeleton = hash.as_deref() == Some(batch.skeleton_sha256);
            row.message = if report.compile_errors.is_some() {
                "does not compile".to_owned()
            } else if row.unchanged_skeleton {
                UNCHANGED_SKELETON.to_owned()
            } else {
                String::new()
            };
        }
        Outcome::CouldNotGrade(rejected) => {
            row.status = COULD_NOT_GRADE.to_owned();
            row.categories = categories;
            row.message = rejected
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.looked_at, p.problem))
                .collect::<Vec<_>>()
                .join("; ");
        }
    }
    row
}

/// The message of a submission whose files are the kit's skeleton, untouched.
pub const UNCHANGED_SKELETON: &str = "unchanged skeleton: every declared file is the kit's own";

/// The item seen most often, the first of equals.
fn most_common(items: impl Iterator<Item = String>) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(i, _)| *i == item) {
            Some((_, n)) => *n += 1,
            None => counts.push((item, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == best).map(|(i, _)| i)
}

pub(super) fn error_row(name: &str, batch: &Batch<'_>, e: &Error) -> Row {
    error_row_for(name, batch.selection, e)
}

/// The row of a submission the grader failed on, for a batch on `selection`; its message
/// is capped like compiler output.
pub(super) fn error_row_for(name: &str, selection: &Selection, e: &Error) -> Row {
    let mut row = Row::new(name, ERROR, max_score(selection));
    row.message = clip(&e.to_string(), COMPILE_ERRORS);
    row
}

/// A results file name per submission: its name with anything but letters, digits, `.`,
/// `_` and `-` replaced, made unique.
pub(super) fn file_names(submissions: &[(String, PathBuf)], extension: &str) -> Vec<String> {
    let mut taken = std::collections::BTreeSet::new();
    submissions
        .iter()
        .map(|(name, _)| {
            let base: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "._-".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut file = format!("{base}.{extension}");
            let mut n = 2;
            while !taken.insert(file.clone()) {
                file = format!("{base}-{n}.{extension}");
                n += 1;
            }
            file
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_unique() {
        let subs = vec![
            ("a b".to_owned(), PathBuf::new()),
            ("a_b".to_owned(), PathBuf::new()),
            ("../x".to_owned(), PathBuf::new()),
        ];
        assert_eq!(
            file_names(&subs, "json"),
            vec!["a_b.json", "a_b-2.json", ".._x.json"]
        );
    }
}
