//! `grader check`: grade one crate (the student crate, the reference, or a submission
//! folder) and report in one of the formats.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::cli::{CheckArgs, Format};
use crate::error::Error;
use crate::exit;
use crate::generate;
use crate::grade::submission::Outcome;
use crate::grade::submit;
use crate::grade::{self, Selection, Stopwatch};
use crate::lab::Lab;
use crate::picture::{self, Album};
use crate::report::provenance::{self, Provenance};
use crate::report::{self, Report};
use crate::scenario::Visibility;

use super::{Ctx, run_options, written};

/// Runs `grader check`.
pub fn exec(ctx: &mut Ctx<'_>, args: CheckArgs) -> Result<u8, Error> {
    let clock = Stopwatch::start();
    if args.output.is_some() {
        // A report written to a file has no colour, whatever standard output is.
        colored::control::set_override(false);
    }
    if let Some(output) = &args.output {
        writable_place(output)?;
    }
    let lab = ctx.lab(&args.lab)?;
    let mut opts = run_options(&lab, &args.run, args.verbose)?;
    opts.schedule = args.schedule;
    let page = page_path(&lab, &args)?;
    if page.is_some() || args.format == Format::Gradescope {
        opts.album = Some(Arc::new(Album::new()));
    }
    let render = Render {
        format: args.format,
        hints: !args.no_hints,
        verbose: args.verbose,
        reference: args.solution,
        album: opts.album.clone(),
        page: page.clone(),
    };
    // Generated scenarios are filled in by running the reference: those runs are not
    // pictured.
    let fill = grade::RunOptions {
        album: None,
        ..opts.clone()
    };
    let Some(dir) = &args.submission else {
        let (selection, oracle) = generate::select::choose(
            &lab,
            false,
            &args.scenarios,
            args.generated,
            true,
            &fill,
            ctx.err,
        )?;
        let selection = super::with_limits(selection, &args.run);
        one_race_scenario(&lab, &selection, args.schedule)?;
        let (subject, mode) = if args.solution {
            let subject = grade::solution_subject(&lab);
            if !subject.crate_dir.is_dir() {
                return Err(Error::Usage(format!(
                    "this copy of the kit has no reference solution ({} is not here): it is the student edition\n  help: grade your own crate with `grader check {}`",
                    lab.manifest.solution_crate, lab.manifest.name
                )));
            }
            (subject, "--solution")
        } else {
            (grade::student_subject(&lab), "")
        };
        let mut report = grade::grade(&lab, &subject, &selection, &opts, ctx.err)?;
        // The machine formats for other systems always say where they come from. The
        // kit's own formats do when grading a submission, below.
        if matches!(
            args.format,
            Format::Junit | Format::Gradescope | Format::Prairielearn
        ) {
            let files = crate_files(&lab, &subject.crate_dir)?;
            let command = provenance::command(&lab.manifest.name, mode, &args.scenarios);
            report.provenance = Some(Provenance::new(
                &lab,
                &selection.scenarios,
                &files,
                command,
            )?);
        }
        let text = render.report(&report, &lab, &selection, clock.elapsed())?;
        emit(ctx, args.output.as_deref(), &text)?;
        if let Some(oracle) = &oracle {
            generate::shrink::after_check(oracle, &subject, &report, &opts, &selection, ctx.err)?;
        }
        render.write_page(ctx, &report, args.page.is_some())?;
        return Ok(status(&report));
    };
    let command = provenance::command(&lab.manifest.name, "--submission .", &args.scenarios);
    let graded = super::confinement(&lab, &args.run.build, args.no_sandbox)
        .map(|c| opts.confinement = Some(c))
        .and_then(|()| {
            let graded = !args.no_generated;
            generate::select::choose(
                &lab,
                true,
                &args.scenarios,
                args.generated,
                graded,
                &fill,
                ctx.err,
            )
        })
        .and_then(|(selection, _)| {
            let selection = super::with_limits(selection, &args.run);
            one_race_scenario(&lab, &selection, args.schedule)?;
            submit::grade(&lab, dir, &selection, &opts, &command, ctx.err)
                .map(|outcome| (selection, outcome))
        });
    let (selection, outcome) = match graded {
        Ok(graded) => graded,
        Err(e) => {
            // A platform reading a results file must still get one that says what went
            // wrong, and the grader's error still goes to standard error.
            let mut text = Vec::new();
            let written = match args.format {
                Format::Gradescope => report::gradescope::write(
                    &report::gradescope::from_error(&e.to_string(), clock.elapsed()),
                    &mut text,
                )
                .is_ok(),
                Format::Prairielearn => report::prairielearn::write(
                    &report::prairielearn::from_error(&e.to_string()),
                    &mut text,
                )
                .is_ok(),
                _ => false,
            };
            if written {
                let _ = emit(ctx, args.output.as_deref(), &text);
            }
            return Err(e);
        }
    };
    let text = render.outcome(&outcome, &lab, &selection, clock.elapsed())?;
    match &outcome {
        Outcome::Graded(report) => {
            emit(ctx, args.output.as_deref(), &text)?;
            render.write_page(ctx, report, args.page.is_some())?;
            Ok(status(report))
        }
        Outcome::CouldNotGrade(rejected) => {
            // The machine formats still get their file; people get the reasons.
            if args.format != Format::Human {
                emit(ctx, args.output.as_deref(), &text)?;
            }
            Err(Error::Usage(format!(
                "{}\n  help: the lab's files are {}; see docs/ci.md for where the grader looks",
                rejected.explain(),
                lab.manifest.student_files.join(", ")
            )))
        }
    }
}

/// Where the page of timelines goes, as an absolute path: `--page`, or by default the
/// lab's work folder when a student (or an instructor, with `--solution`) reads the human
/// report of a crate of the kit. A submission's grading and the machine formats serve
/// platforms, which keep only the files they are told of, so there it is asked for.
fn page_path(lab: &Lab, args: &CheckArgs) -> Result<Option<PathBuf>, Error> {
    if let Some(page) = &args.page {
        writable_place(page)?;
        let absolute = std::env::current_dir()
            .map(|here| here.join(page))
            .unwrap_or_else(|_| page.clone());
        return Ok(Some(absolute));
    }
    let default = !args.no_page && args.submission.is_none() && args.format == Format::Human;
    Ok(default.then(|| crate::build::work_dir(lab).join("timeline.html")))
}

/// `--schedule` replays one schedule of one race scenario: checks that is what was asked,
/// and that the lab explores that many schedules.
fn one_race_scenario(lab: &Lab, selection: &Selection, schedule: Option<u64>) -> Result<(), Error> {
    let Some(n) = schedule else {
        return Ok(());
    };
    if n == 0 {
        return Err(Error::Usage(
            "--schedule counts from 1: give the number the report names".into(),
        ));
    }
    if let Some(race) = lab.manifest.race.as_ref().filter(|r| n > r.schedules) {
        return Err(Error::Usage(format!(
            "--schedule {n}: the race checks of {} explore {} schedules per scenario, so there is no schedule {n}\n  help: give the number a report names, from 1 to {}",
            lab.manifest.name, race.schedules, race.schedules
        )));
    }
    match selection.scenarios.as_slice() {
        [one] if one.race => Ok(()),
        [one] => Err(Error::Usage(format!(
            "--schedule {n}: {} is not a race check, so it has no schedules to replay\n  help: a failing race check's report prints the command that replays it",
            one.name
        ))),
        _ => Err(Error::Usage(format!(
            "--schedule {n} replays a schedule of one race scenario: give exactly one --scenario"
        ))),
    }
}

/// Refuses, before any grading, a report file that could not be written: one in a folder
/// that does not exist, or a path that is a folder.
fn writable_place(output: &Path) -> Result<(), Error> {
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(Error::Usage(format!(
            "cannot write the report to {}: the folder {} does not exist\n  help: create it first (mkdir -p {}), or give -o a path in an existing folder",
            output.display(),
            folder.display(),
            folder.display()
        )));
    }
    if output.is_dir() {
        return Err(Error::Usage(format!(
            "cannot write the report to {}: it is a folder\n  help: give -o the path of a file, such as {}",
            output.display(),
            output.join("report.json").display()
        )));
    }
    Ok(())
}

/// The exit status of a graded report.
fn status(report: &Report) -> u8 {
    if report.all_passed() {
        exit::PASSED
    } else {
        exit::NOT_FULL_MARKS
    }
}

/// Writes `text` to `output`, or to standard output.
fn emit(ctx: &mut Ctx<'_>, output: Option<&Path>, text: &[u8]) -> Result<(), Error> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|e| Error::io("write", path, e)),
        None => written(ctx.out.write_all(text)),
    }
}

/// The lab's declared files as found in a crate folder, for the provenance.
fn crate_files(lab: &Lab, crate_dir: &Path) -> Result<Vec<(String, Vec<u8>)>, Error> {
    lab.manifest
        .student_files
        .iter()
        .map(|f| {
            let path = crate_dir.join(f);
            std::fs::read(&path)
                .map(|text| (f.clone(), text))
                .map_err(|e| Error::io("read", &path, e))
        })
        .collect()
}

/// How to write a result.
#[derive(Clone, Debug)]
pub struct Render {
    /// The format.
    pub format: Format,
    /// Include hints.
    pub hints: bool,
    /// Whole timelines and backtraces in the human format.
    pub verbose: bool,
    /// The crate graded is the lab's reference solution.
    pub reference: bool,
    /// The scenarios' pictures, for the page and for formats that carry them.
    pub album: Option<Arc<Album>>,
    /// Where the page of timelines goes, if it is written.
    pub page: Option<PathBuf>,
}

impl Render {
    /// Writes the page of timelines of `report`, if one is wanted, and says where on
    /// standard error. A page written by default that cannot be written is only a
    /// warning: the grading stands; one asked for (`asked`) is an error.
    pub fn write_page(&self, ctx: &mut Ctx<'_>, report: &Report, asked: bool) -> Result<(), Error> {
        let (Some(path), Some(album)) = (&self.page, &self.album) else {
            return Ok(());
        };
        let page = picture::page::render(report, album, self.hints);
        match picture::page::write(path, &page) {
            Ok(()) => {
                let _ = writeln!(ctx.err, "timelines of every scenario: {}", shown(path));
                Ok(())
            }
            Err(e) if !asked => {
                let _ = writeln!(ctx.err, "warning: no page of timelines: {e}");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// A graded report in this format.
    pub fn report(
        &self,
        report: &Report,
        lab: &Lab,
        selection: &Selection,
        time: Duration,
    ) -> Result<Vec<u8>, Error> {
        let mut buf = Vec::new();
        let done = match self.format {
            Format::Human => {
                let opts = report::human::Options {
                    hints: self.hints,
                    verbose: self.verbose,
                    failures_first: false,
                    reference: self.reference,
                };
                report::human::write(report, lab, opts, &mut buf)
            }
            Format::Json => {
                if self.hints {
                    report::json::write(report, &mut buf)
                } else {
                    let mut quiet = report.clone();
                    for s in &mut quiet.scenarios {
                        s.hint = None;
                    }
                    report::json::write(&quiet, &mut buf)
                }
            }
            Format::Junit => {
                let opts = report::junit::Options {
                    hints: self.hints,
                    time: Some(time),
                    page: self.page.as_deref(),
                };
                report::junit::write(&report::junit::from_report(report, opts), &mut buf)
            }
            Format::Gradescope => {
                let hidden = hidden_names(selection);
                let pictures = self
                    .album
                    .as_ref()
                    .map(|album| picture::embed::embeds(report, album));
                let opts = report::gradescope::Options {
                    hints: self.hints,
                    time,
                    hidden: &hidden,
                    pictures: pictures.as_ref(),
                };
                report::gradescope::write(&report::gradescope::from_report(report, opts), &mut buf)
            }
            Format::Prairielearn => report::prairielearn::write(
                &report::prairielearn::from_report(report, self.hints, &hidden_names(selection)),
                &mut buf,
            ),
        };
        done.map_err(|e| Error::io("write", Path::new("the report"), e))?;
        Ok(buf)
    }

    /// A submission's outcome in this format.
    pub fn outcome(
        &self,
        outcome: &Outcome,
        lab: &Lab,
        selection: &Selection,
        time: Duration,
    ) -> Result<Vec<u8>, Error> {
        let rejected = match outcome {
            Outcome::Graded(report) => return self.report(report, lab, selection, time),
            Outcome::CouldNotGrade(rejected) => rejected,
        };
        let mut buf = Vec::new();
        let done = match self.format {
            Format::Human => {
                buf.extend_from_slice(rejected.explain().as_bytes());
                buf.push(b'\n');
                Ok(())
            }
            Format::Json => serde_json::to_writer_pretty(&mut buf, rejected)
                .map_err(std::io::Error::other)
                .map(|()| buf.push(b'\n')),
            Format::Junit => report::junit::write(
                &report::junit::from_rejected(rejected, &lab.manifest.student_files, Some(time)),
                &mut buf,
            ),
            Format::Gradescope => report::gradescope::write(
                &report::gradescope::from_rejected(rejected, time),
                &mut buf,
            ),
            Format::Prairielearn => report::prairielearn::write(
                &report::prairielearn::from_rejected(rejected),
                &mut buf,
            ),
        };
        done.map_err(|e| Error::io("write", Path::new("the report"), e))?;
        Ok(buf)
    }
}

/// The names of the hidden scenarios in `selection`.
pub fn hidden_names(selection: &Selection) -> Vec<String> {
    selection
        .scenarios
        .iter()
        .filter(|s| s.visibility == Visibility::Hidden)
        .map(|s| s.name.clone())
        .collect()
}

/// `path` as a person finds it: relative to the current folder when it is inside it.
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|here| path.strip_prefix(here).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}
