//! `grader grade`: every sub-folder of a folder is one submission; grade them all into a
//! gradebook (`gradebook.csv`, `gradebook.json`), one results file each and the class
//! page (`class.html`); with a roster, the files Canvas and Moodle import too. Grading
//! into a results folder that has a gradebook updates the rows of the submissions graded
//! and keeps the others.

use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::{Format, GradeArgs};
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::grade::gradebook::{self, Batch, ERROR, GRADED, Gradebook, Progress};
use crate::grade::regrade::{self, GRADEBOOK_JSON};
use crate::grade::roster::{Matches, Roster};
use crate::grade::submission::COULD_NOT_GRADE;
use crate::grade::{gradebook_csv, platforms};
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
    // The roster and the gradebook already in the results folder are read before any
    // grading: a mistake in either shows in a second, not after the batch.
    let roster = match &args.roster {
        Some(path) => Some(Roster::read(path, path)?),
        None => None,
    };
    let earlier = regrade::existing(&args.results_dir)?;
    if let Some(old) = &earlier {
        regrade::same_lab(old, &lab.manifest.name, &args.results_dir)?;
    }
    let matches = match &roster {
        Some(roster) => {
            let mut folders: Vec<&str> = submissions.iter().map(|(n, _)| n.as_str()).collect();
            for row in earlier.iter().flat_map(|b| &b.submissions) {
                if !folders.contains(&row.name.as_str()) {
                    folders.push(&row.name);
                }
            }
            Some(roster.match_folders(&folders).map_err(|e| {
                Error::Usage(format!(
                    "{e}\n  help: fix {}",
                    args.roster
                        .as_deref()
                        .unwrap_or(Path::new("the roster"))
                        .display()
                ))
            })?)
        }
        None => None,
    };
    let mut opts = run_options(&lab, &args.run, false)?;
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let jobs = args.run.jobs.unwrap_or(cores);
    // --jobs counts submissions here; their scenarios share a pool of processes, twice
    // as many as cores since a scenario that waits out a stuck request or a time limit
    // mostly sleeps.
    opts.jobs = 1;
    let pool = (2 * cores).max(jobs);
    // The generated scenarios graded in CI are filled in once, for every submission.
    let fill = crate::grade::RunOptions {
        jobs,
        ..opts.clone()
    };
    let (selection, _) =
        crate::generate::select::choose(&lab, true, &args.scenarios, None, true, &fill, ctx.err)?;
    let selection = super::with_limits(selection, &args.run);
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
        Format::Prairielearn => "prairielearn.json",
    };
    std::fs::create_dir_all(&args.results_dir)
        .map_err(|e| Error::io("create", &args.results_dir, e))?;
    match super::confinement(&lab, &args.run.build, args.no_sandbox) {
        Ok(c) => opts.confinement = Some(c),
        Err(e) => {
            // Still a gradebook: every submission in it, none graded, and why; but one
            // already there keeps its grades.
            if earlier.is_none() {
                let book = grade::batch::none_graded(&lab, &selection, &submissions, &e)?;
                write_gradebook(&book, &args.results_dir)?;
            }
            return Err(e);
        }
    }
    let skeleton = gradebook::skeleton_sha256(&lab)?;
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
        skeleton_sha256: &skeleton,
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
            let points = match row.status.as_str() {
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
    let count = |status: &str| {
        book.submissions
            .iter()
            .filter(|r| r.status == status)
            .count()
    };
    let (graded, rejected, failed) = (count(GRADED), count(COULD_NOT_GRADE), count(ERROR));
    let (mut book, joined) = regrade::join(book, earlier, &args.results_dir)?;
    if let Some(matches) = &matches {
        for row in &mut book.submissions {
            row.student = matches.students.get(&row.name).cloned();
        }
    }
    let assignment = args
        .assignment
        .clone()
        .unwrap_or_else(|| lab.manifest.title.clone());
    let notes = write_results(&book, &args.results_dir, &assignment, matches.as_ref())?;
    let minutes = clock.elapsed().as_secs_f64() / 60.0;
    let _ = writeln!(
        ctx.err,
        "{graded} graded, {rejected} could not be graded, {failed} failed in the grader; {:.1} s, {:.1} submissions/minute",
        clock.elapsed().as_secs_f64(),
        total as f64 / minutes.max(f64::EPSILON),
    );
    if let Some(words) = joined.words(&args.results_dir.join(GRADEBOOK_JSON)) {
        let _ = writeln!(ctx.err, "{words}");
    }
    for note in notes {
        let _ = writeln!(ctx.err, "{note}");
    }
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

/// Writes every file of the results folder but the submissions' own: the gradebook, the
/// platforms' files when the roster names someone, and the class page. Returns what to
/// tell the person grading: where each file is, and who was left out of which.
fn write_results(
    book: &Gradebook,
    dir: &Path,
    assignment: &str,
    matches: Option<&Matches>,
) -> Result<Vec<String>, Error> {
    write_gradebook(book, dir)?;
    let mut notes = vec![format!(
        "gradebook: {}",
        dir.join("gradebook.csv").display()
    )];
    if let Some(m) = matches.filter(|m| !m.unclaimed.is_empty()) {
        notes.push(format!(
            "roster: {} no submission here: {}",
            match m.unclaimed.len() {
                1 => "1 student has".to_owned(),
                n => format!("{n} students have"),
            },
            m.unclaimed.join(", ")
        ));
    }
    if book.submissions.iter().any(|r| r.student.is_some()) {
        for (file, export) in [
            ("canvas.csv", platforms::canvas(book, assignment)),
            ("moodle.csv", platforms::moodle(book, assignment)),
        ] {
            let path = dir.join(file);
            let export = export.map_err(|e| Error::io("write", &path, e))?;
            std::fs::write(&path, &export.text).map_err(|e| Error::io("write", &path, e))?;
            let mut note = format!(
                "{}: {} ({})",
                file.trim_end_matches(".csv"),
                path.display(),
                grader_lab::quantity(export.written as u64, "student")
            );
            if !export.left_out.is_empty() {
                let why: Vec<String> = export
                    .left_out
                    .iter()
                    .map(|(name, why)| format!("{name} ({why})"))
                    .collect();
                note.push_str(&format!("; left out: {}", why.join(", ")));
            }
            notes.push(note);
        }
    }
    let page = dir.join("class.html");
    let html = crate::class::page(book)
        .map_err(|e| Error::io("draw the charts for", &page, std::io::Error::other(e)))?;
    std::fs::write(&page, html).map_err(|e| Error::io("write", &page, e))?;
    notes.push(format!("class page: {}", page.display()));
    Ok(notes)
}

/// Writes `gradebook.json` and `gradebook.csv` into `dir`.
fn write_gradebook(book: &Gradebook, dir: &Path) -> Result<(), Error> {
    let json = dir.join(GRADEBOOK_JSON);
    let mut text = serde_json::to_string_pretty(book).map_err(std::io::Error::other);
    if let Ok(t) = &mut text {
        t.push('\n');
    }
    text.and_then(|t| std::fs::write(&json, t))
        .map_err(|e| Error::io("write", &json, e))?;
    let csv = dir.join("gradebook.csv");
    gradebook_csv::csv(book)
        .and_then(|text| std::fs::write(&csv, text))
        .map_err(|e| Error::io("write", &csv, e))
}
