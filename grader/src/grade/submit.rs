//! Grading one submission once its files are read: its crate under test (the kit's
//! pristine student crate with the declared files put in), the provenance its result
//! carries, the build, the scenarios, and the report with paths as people know them.

use std::path::Path;
use std::sync::Arc;

use super::submission::{Outcome, Rejected, Submission, collect, key};
use crate::build::blame::{replace_path, tidy};
use crate::build::confinement::Confinement;
use crate::build::materialize::materialize;
use crate::build::{self, Subject};
use crate::error::Error;
use crate::grade::{self, Ran, RunOptions, Selection};
use crate::lab::Lab;
use crate::report::Report;
use crate::report::provenance::Provenance;

/// The submission as a crate to build: the kit's pristine student crate with the declared
/// files replaced, under the work folder, never inside the submission. Compiler messages
/// name the files as the kit does (`crates/<student crate>/src/breaker.rs`).
pub fn subject(lab: &Lab, work: &Path, submission: &Submission) -> Result<Subject, Error> {
    let key = key(&submission.files);
    let label = format!("submission {}", submission.given.display());
    let base = lab.manifest.student_crate.clone();
    materialize(lab, work, &key, &label, &base, &base, |sources| {
        for (declared, text) in &submission.files {
            let rel = Path::new(declared);
            let rel = rel.strip_prefix("src").unwrap_or(rel);
            sources.insert(rel.to_path_buf(), text.clone());
        }
        Ok(())
    })
}

/// A submission ready to build: its crate under test, and the provenance its result
/// will carry.
#[derive(Clone, Debug)]
pub struct Ready {
    /// The submission's files.
    pub submission: Submission,
    /// The crate to build.
    pub subject: Subject,
    /// Provenance of the result.
    pub provenance: Provenance,
}

impl Ready {
    /// Confines the submission by `confinement`: its builds and scenario runs go through
    /// it, and its provenance says so.
    pub fn confine(&mut self, confinement: &Option<Arc<Confinement>>) {
        if let Some(c) = confinement {
            self.subject.confined = Some(c.clone());
            self.provenance.sandbox = Some(c.describe());
        }
    }
}

/// Reads the submission in `dir` and writes its crate under test, or says why it cannot
/// be graded. `reproduce` is the command line for the provenance.
pub fn prepare(
    lab: &Lab,
    dir: &Path,
    selection: &Selection,
    work: &Path,
    reproduce: &str,
) -> Result<Result<Ready, Rejected>, Error> {
    let as_bytes = |files: &[(String, String)]| -> Vec<(String, Vec<u8>)> {
        files
            .iter()
            .map(|(p, t)| (p.clone(), t.as_bytes().to_vec()))
            .collect()
    };
    match collect(lab, dir)? {
        Ok(submission) => {
            let provenance = Provenance::new(
                lab,
                &selection.scenarios,
                &as_bytes(&submission.files),
                reproduce.to_owned(),
            )?;
            let subject = subject(lab, work, &submission)?;
            Ok(Ok(Ready {
                submission,
                subject,
                provenance,
            }))
        }
        Err(mut rejected) => {
            rejected.max_score = selection.scenarios.iter().map(|s| s.points).sum();
            rejected.provenance = Some(Provenance::new(
                lab,
                &selection.scenarios,
                &as_bytes(&rejected.files),
                reproduce.to_owned(),
            )?);
            Ok(Err(rejected))
        }
    }
}

/// The report of a submission from its scenario results (or compile errors), with paths
/// as people know them and the provenance.
pub fn report_from(
    lab: &Lab,
    ready: &Ready,
    selection: &Selection,
    results: Vec<crate::report::ScenarioResult>,
    compile_errors: Option<String>,
) -> Report {
    let mut report = grade::assemble(lab, &ready.subject, selection, results, compile_errors);
    let shown = |text: &str| as_submitted(&tidy(text, lab, &ready.subject), lab, &ready.submission);
    for s in &mut report.scenarios {
        s.message = shown(&s.message);
        s.backtrace = s.backtrace.as_deref().map(shown);
        s.stopped_at = s.stopped_at.as_deref().map(shown);
    }
    report.compile_errors = report
        .compile_errors
        .as_deref()
        .map(|t| as_submitted(t, lab, &ready.submission));
    for w in &mut report.source_warnings {
        w.location = as_submitted(&w.location, lab, &ready.submission);
    }
    report.provenance = Some(ready.provenance.clone());
    report
}

/// Grades the submission in `dir` from start to end; progress lines go to `progress`.
pub fn grade(
    lab: &Lab,
    dir: &Path,
    selection: &Selection,
    opts: &RunOptions,
    reproduce: &str,
    progress: &mut dyn std::io::Write,
) -> Result<Outcome, Error> {
    let work = build::work_dir(lab);
    let mut ready = match prepare(lab, dir, selection, &work, reproduce)? {
        Ok(ready) => ready,
        Err(rejected) => return Ok(Outcome::CouldNotGrade(rejected)),
    };
    ready.confine(&opts.confinement);
    let _ = writeln!(
        progress,
        "building {} (read as {}) ...",
        ready.subject.label,
        super::submission::describe(lab, ready.submission.layout, &ready.submission.found_in)
    );
    let results = match grade::build_and_run(lab, &ready.subject, selection, opts, progress)? {
        Ran::CompileFailed(diagnostics) => report_from(
            lab,
            &ready,
            selection,
            grade::not_compiled(selection),
            Some(diagnostics),
        ),
        Ran::Scenarios(results) => report_from(lab, &ready, selection, results, None),
    };
    Ok(Outcome::Graded(results))
}

/// `text` with each graded file's place in the kit (`crates/<student crate>/src/breaker.rs`)
/// replaced by where the submission had it (`breaker.rs` in a folder of files,
/// `lab4/src/breaker.rs` in a wrapped folder), so that a student reads their own paths.
pub fn as_submitted(text: &str, lab: &Lab, submission: &Submission) -> String {
    let mut out = text.to_owned();
    for (declared, _) in &submission.files {
        let kit = std::path::Path::new(&lab.manifest.student_crate).join(declared);
        let theirs = submission
            .found_in
            .join(submission.layout.place(lab, declared));
        if kit != theirs {
            out = replace_path(
                &out,
                &kit.display().to_string(),
                &theirs.display().to_string(),
            );
        }
    }
    out
}
