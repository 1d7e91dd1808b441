//! `grader grade`: every sub-folder of a folder is one submission; grade them all into a
//! gradebook (`gradebook.csv`, `gradebook.json`) and one results file each.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::{Format, GradeArgs};
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::grade::gradebook::{self, Batch, ERROR, GRADED, Gradebook, Progress};
use crate::grade::submission::COULD_NOT_GRADE;
use crate::report::provenance;

use super::check::Render;
use super::{Ctx, run_options};

/// Runs `grader grade`.
pub fn exec(ctx: &mut Ctx<'_>, args: GradeArgs) -> Result<u8, Error> {
    let clock = grade::Stopwatch::start();
    // Results files have no colour, whatever standard output is.
    colored::control::set_override(false);
    let lab = ctx.lab(&args.lab)?;
    if !args.submissions.is_dir() {
        return Err(Error::Usage(format!(
            "{} is not a folder\n  help: pass a folder whose every sub-folder is one submission",
            args.submissions.display()
        )));
    }
    let submissions = gradebook::list(&args.submissions)?;
    if submissions.is_empty() {
        return Err(Error::Usage(format!(
            "{} holds no sub-folders, so there is nothing to grade\n  help: put each submission in its own sub-folder",
            args.submissions.display()
        )));
    }
    let mut opts = run_options(&lab, &args.run, false)?;
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let jobs = args.run.jobs.unwrap_or(cores);
    // --jobs counts submissions here; their scenarios share a pool of processes, twice
    // as many as cores since a scenario that waits out a stuck request or a time limit
    // mostly sleeps.
    opts.jobs = 1;
    let pool = (2 * cores).max(jobs);
    let selection = super::with_limits(grade::select(&lab, true, &args.scenarios)?, &args.run);
    // Gradescope's results carry each failing scenario's picture: kept while a
    // submission runs, let go once its results file is written.
    if args.format == Format::Gradescope {
        opts.album = Some(std::sync::Arc::new(crate::picture::Album::new()));
    }
    let render = Render {
        format: args.format,
        hints: true,
        verbose: false,
        reference: false,
        album: opts.album.clone(),
        page: None,
    };
    let render_one = |outcome: &crate::grade::submission::Outcome, took: Duration| {
        let text = render.outcome(outcome, &lab, &selection, took);
        if let (Some(album), crate::grade::submission::Outcome::Graded(report)) =
            (&render.album, outcome)
        {
            album.forget(&report.subject);
        }
        text
    };
    let extension = match args.format {
        Format::Human => "txt",
        Format::Json => "json",
        Format::Junit => "xml",
        Format::Gradescope => "results.json",
    };
    std::fs::create_dir_all(&args.results_dir)
        .map_err(|e| Error::io("create", &args.results_dir, e))?;
    match super::confinement(&lab, &args.run.build, args.no_sandbox) {
        Ok(c) => opts.confinement = Some(c),
        Err(e) => {
            // Still a gradebook: every submission in it, none graded, and why.
            let book = grade::batch::none_graded(&lab, &selection, &submissions, &e)?;
            write_gradebook(&book, &args.results_dir)?;
            return Err(e);
        }
    }
    let work = crate::build::work_dir(&lab);
    let batch = Batch {
        lab: &lab,
        selection: &selection,
        opts: &opts,
        jobs,
        pool,
        // Enough crates per cargo call to keep every core compiling, few enough that
        // the first results come early.
        chunk: (2 * cores).clamp(4, 16),
        results_dir: &args.results_dir,
        extension,
        render: &render_one,
        work: &work,
    };
    let command = provenance::command(&lab.manifest.name, "--submission .", &args.scenarios);
    let total = submissions.len();
    let bar = progress_bar(total);
    let _ = writeln!(
        ctx.err,
        "grading {total} submission{} from {}, {jobs} at a time ...",
        if total == 1 { "" } else { "s" },
        args.submissions.display()
    );
    let mut finished = 0;
    let mut building = String::new();
    let names: Vec<&str> = submissions.iter().map(|(n, _)| n.as_str()).collect();
    let err = &mut *ctx.err;
    let book = grade::batch::grade(&batch, &submissions, &command, &mut |event| match event {
        Progress::Building { indices } => {
            building = match indices.as_slice() {
                [] => String::new(),
                [one] => names.get(*one).copied().unwrap_or_default().to_owned(),
                [first, rest @ ..] => format!(
                    "{} and {} more",
                    names.get(*first).copied().unwrap_or_default(),
                    rest.len()
                ),
            };
            bar.set_message(if building.is_empty() {
                String::new()
            } else {
                format!("building {building}")
            });
        }
        Progress::Done { row, took, .. } => {
            finished += 1;
            let points = match row.status {
                GRADED => format!("{}/{}", row.score, row.max_score),
                other => other.replace('_', " "),
            };
            let note = if row.message.is_empty() {
                String::new()
            } else {
                format!(" ({})", first_line(&row.message))
            };
            bar.suspend(|| {
                let _ = writeln!(
                    err,
                    "[{finished:>width$}/{total}] {}: {points}{note} in {:.1} s",
                    row.name,
                    took.as_secs_f64(),
                    width = total.to_string().len()
                );
            });
            bar.inc(1);
        }
    })?;
    bar.finish_and_clear();
    write_gradebook(&book, &args.results_dir)?;
    let count = |status: &str| {
        book.submissions
            .iter()
            .filter(|r| r.status == status)
            .count()
    };
    let (graded, rejected, failed) = (count(GRADED), count(COULD_NOT_GRADE), count(ERROR));
    let minutes = clock.elapsed().as_secs_f64() / 60.0;
    let _ = writeln!(
        ctx.err,
        "{graded} graded, {rejected} could not be graded, {failed} failed in the grader; {:.1} s, {:.1} submissions/minute\ngradebook: {}",
        clock.elapsed().as_secs_f64(),
        total as f64 / minutes.max(f64::EPSILON),
        args.results_dir.join("gradebook.csv").display()
    );
    Ok(if failed > 0 {
        exit::KIT_FAILURE
    } else if rejected > 0 {
        exit::BAD_INPUT
    } else {
        exit::PASSED
    })
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// `[#####.....] 5/20 building alice` on standard error, redrawn in place; nothing at all
/// when standard error is not a terminal.
fn progress_bar(total: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("[{bar:30}] {pos}/{len} {msg}")
        .map(|s| s.progress_chars("#."))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// Writes `gradebook.json` and `gradebook.csv` into `dir`.
fn write_gradebook(book: &Gradebook, dir: &std::path::Path) -> Result<(), Error> {
    let json = dir.join("gradebook.json");
    let mut text = serde_json::to_string_pretty(book).map_err(std::io::Error::other);
    if let Ok(t) = &mut text {
        t.push('\n');
    }
    text.and_then(|t| std::fs::write(&json, t))
        .map_err(|e| Error::io("write", &json, e))?;
    let csv = dir.join("gradebook.csv");
    gradebook::csv(book)
        .and_then(|text| std::fs::write(&csv, text))
        .map_err(|e| Error::io("write", &csv, e))
}
