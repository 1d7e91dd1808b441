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
//! This file is the gradebook (its rows, columns and CSV form); [`super::batch`] is the
//! builder and the pool.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::error::Error;
use crate::grade::submission::COULD_NOT_GRADE;
use crate::grade::submission::Outcome;
use crate::grade::{RunOptions, Selection};
use crate::lab::Lab;
use crate::report::Status;
use crate::report::clip::{COMPILE_ERRORS, clip};

/// A row's status: the submission was graded (whatever its points).
pub const GRADED: &str = "graded";
/// A row's status: the grader failed on this submission; the message says why.
pub const ERROR: &str = "error";

/// The gradebook: one row per submission, in name order.
#[derive(Clone, Debug, Serialize)]
pub struct Gradebook {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The lab.
    pub lab: String,
    /// The grader's version.
    pub kit_version: String,
    /// How many scenarios each submission ran.
    pub scenarios: usize,
    /// SHA-256 of the scenario set (see [`Provenance`]).
    pub scenarios_sha256: String,
    /// Points available.
    pub max_score: u32,
    /// What kept the submissions' code away from everything else (see `crate::sandbox`),
    /// or that nothing did; absent when nothing was graded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The rubric categories, in the lab's order, with their points available.
    pub categories: Vec<CategoryColumn>,
    /// One row per submission, sorted by name.
    pub submissions: Vec<Row>,
}

/// A rubric category as a column of the gradebook.
#[derive(Clone, Debug, Serialize)]
pub struct CategoryColumn {
    /// Category id.
    pub id: String,
    /// Category title.
    pub title: String,
    /// Points available.
    pub max_score: u32,
}

/// One submission's line.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The sub-folder's name.
    pub name: String,
    /// `graded`, `could_not_grade` or `error`.
    pub status: &'static str,
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

/// Writes one results file and returns the row.
pub(super) fn write(
    batch: &Batch<'_>,
    name: &str,
    file: &str,
    outcome: &Outcome,
    took: Duration,
) -> Row {
    let mut row = row(name, batch, outcome);
    let path = batch.results_dir.join("submissions").join(file);
    let written = (batch.render)(outcome, took)
        .and_then(|bytes| std::fs::write(&path, bytes).map_err(|e| Error::io("write", &path, e)));
    match written {
        Ok(()) => row.results_file = Some(format!("submissions/{file}")),
        Err(e) => {
            row.status = ERROR;
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
    let hash = outcome.provenance().map(|p| p.student_files_sha256.clone());
    match outcome {
        Outcome::Graded(report) => {
            for c in &report.categories {
                categories.insert(c.id.clone(), c.score);
            }
            Row {
                name: name.to_owned(),
                status: GRADED,
                score: report.score,
                max_score: report.max_score,
                passed: report
                    .scenarios
                    .iter()
                    .filter(|s| s.status == Status::Passed)
                    .count(),
                categories,
                failed: report
                    .scenarios
                    .iter()
                    .filter(|s| s.status != Status::Passed)
                    .map(|s| s.name.clone())
                    .collect(),
                compiled: Some(report.compile_errors.is_none()),
                student_files_sha256: hash,
                results_file: None,
                message: match &report.compile_errors {
                    Some(_) => "does not compile".to_owned(),
                    None => String::new(),
                },
            }
        }
        Outcome::CouldNotGrade(rejected) => Row {
            name: name.to_owned(),
            status: COULD_NOT_GRADE,
            score: 0,
            max_score: rejected.max_score,
            passed: 0,
            categories,
            failed: Vec::new(),
            compiled: None,
            student_files_sha256: hash,
            results_file: None,
            message: rejected
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.looked_at, p.problem))
                .collect::<Vec<_>>()
                .join("; "),
        },
    }
}

pub(super) fn error_row(name: &str, batch: &Batch<'_>, e: &Error) -> Row {
    error_row_for(name, batch.selection, e)
}

/// The row of a submission the grader failed on, for a batch on `selection`; its message
/// is capped like compiler output.
pub(super) fn error_row_for(name: &str, selection: &Selection, e: &Error) -> Row {
    Row {
        name: name.to_owned(),
        status: ERROR,
        score: 0,
        max_score: max_score(selection),
        passed: 0,
        categories: BTreeMap::new(),
        failed: Vec::new(),
        compiled: None,
        student_files_sha256: None,
        results_file: None,
        message: clip(&e.to_string(), COMPILE_ERRORS),
    }
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

/// The first cell of the line under the header that gives each column's points available
/// (as spreadsheets and course platforms such as Canvas lay out a gradebook).
pub const POINTS_POSSIBLE: &str = "Points Possible";

/// The gradebook as CSV: a header, the points available per column, then one line per
/// submission. `failed` lists the scenarios that did not pass, separated by spaces.
pub fn csv(book: &Gradebook) -> std::io::Result<String> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let mut header = vec!["submission", "status", "score", "max_score", "passed"];
    header.extend(book.categories.iter().map(|c| c.id.as_str()));
    header.extend([
        "failed",
        "compiled",
        "student_files_sha256",
        "results_file",
        "message",
    ]);
    let mut lines = vec![header.into_iter().map(str::to_owned).collect::<Vec<_>>()];
    let mut possible = vec![
        POINTS_POSSIBLE.to_owned(),
        String::new(),
        book.max_score.to_string(),
        book.max_score.to_string(),
        book.scenarios.to_string(),
    ];
    possible.extend(book.categories.iter().map(|c| c.max_score.to_string()));
    possible.extend(std::iter::repeat_n(String::new(), 5));
    lines.push(possible);
    for r in &book.submissions {
        let mut fields = vec![
            text_cell(&r.name),
            r.status.to_owned(),
            r.score.to_string(),
            r.max_score.to_string(),
            r.passed.to_string(),
        ];
        for c in &book.categories {
            fields.push(
                r.categories
                    .get(&c.id)
                    .map(u32::to_string)
                    .unwrap_or_default(),
            );
        }
        fields.push(r.failed.join(" "));
        fields.push(r.compiled.map(|c| c.to_string()).unwrap_or_default());
        fields.push(r.student_files_sha256.clone().unwrap_or_default());
        fields.push(r.results_file.clone().unwrap_or_default());
        fields.push(text_cell(&r.message));
        lines.push(fields);
    }
    for line in &lines {
        out.write_record(line)?;
    }
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

/// A free-text cell that a spreadsheet will not run as a formula.
fn text_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting_and_gives_the_maxima() {
        let book = Gradebook {
            schema_version: 1,
            lab: "lab4".into(),
            kit_version: "0".into(),
            scenarios: 3,
            scenarios_sha256: String::new(),
            max_score: 10,
            sandbox: None,
            categories: vec![CategoryColumn {
                id: "a".into(),
                title: "A".into(),
                max_score: 10,
            }],
            submissions: vec![Row {
                name: "b,c".into(),
                status: GRADED,
                score: 4,
                max_score: 10,
                passed: 1,
                categories: [("a".to_owned(), 4)].into(),
                failed: vec!["x".into(), "y".into()],
                compiled: Some(true),
                student_files_sha256: None,
                results_file: None,
                message: "=cmd() said \"hi\"".into(),
            }],
        };
        assert_eq!(
            csv(&book).unwrap(),
            "submission,status,score,max_score,passed,a,failed,compiled,student_files_sha256,\
             results_file,message\r\n\
             Points Possible,,10,10,3,10,,,,,\r\n\
             \"b,c\",graded,4,10,1,4,x y,true,,,\"'=cmd() said \"\"hi\"\"\"\r\n"
        );
    }

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
