//! `grader watch`: grade the student crate again every time one of its files is saved.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};

use crate::cli::WatchArgs;
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::report::{self, Report};

use super::{Ctx, run_options, written};

/// Quiet time after a save before grading, so an editor's burst of writes grades once.
const SETTLE: Duration = Duration::from_millis(200);

/// Runs `grader watch`.
pub fn exec(ctx: &mut Ctx<'_>, args: WatchArgs) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
    let subject = grade::student_subject(&lab);
    let opts = run_options(&lab, &args.run, false)?;
    let src = subject.crate_dir.join("src");
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            if matches!(
                event.kind,
                EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
            ) {
                let _ = tx.send(());
            }
        }
    })
    .map_err(|e| Error::io("watch", &src, std::io::Error::other(e)))?;
    watcher
        .watch(&src, RecursiveMode::Recursive)
        .map_err(|e| Error::io("watch", &src, std::io::Error::other(e)))?;
    let terminal = std::io::stdout().is_terminal();
    let mut previous: Option<Report> = None;
    let mut runs = 0;
    loop {
        // Scenarios are read again each time, so edits to them count too.
        let graded = grade::select(&lab, false, &[])
            .map(|selection| super::with_limits(selection, &args.run))
            .and_then(|selection| grade::grade(&lab, &subject, &selection, &opts, ctx.err));
        let mut text = Vec::new();
        if terminal {
            // Clear the screen and go home, so each report starts at the top.
            text.extend_from_slice(b"\x1b[2J\x1b[H");
        }
        let status = match graded {
            Ok(report) => {
                if let Some(line) = previous.as_ref().map(|p| change(p, &report)) {
                    text.extend_from_slice(format!("{line}\n\n").as_bytes());
                }
                let opts = report::human::Options {
                    hints: !args.no_hints,
                    verbose: false,
                    failures_first: true,
                    reference: false,
                };
                report::human::write(&report, &lab, opts, &mut text)
                    .map_err(|e| Error::io("write", std::path::Path::new("the report"), e))?;
                let status = if report.all_passed() {
                    exit::PASSED
                } else {
                    exit::NOT_FULL_MARKS
                };
                previous = Some(report);
                status
            }
            // A broken scenario file or a kit problem: say so and keep watching.
            Err(e) => {
                text.extend_from_slice(format!("error: {e}\n").as_bytes());
                e.exit_code()
            }
        };
        written(ctx.out.write_all(&text))?;
        written(ctx.out.flush())?;
        runs += 1;
        if args.max_runs.is_some_and(|max| runs >= max) {
            return Ok(status);
        }
        let _ = writeln!(
            ctx.err,
            "watching {} for changes (Ctrl-C stops) ...",
            subject.shown_dir.join("src").display()
        );
        if rx.recv().is_err() {
            return Ok(status);
        }
        while rx.recv_timeout(SETTLE).is_ok() {}
    }
}

/// One line on what changed since the last grading: `+12 points: Bulkhead (E905) now passes`.
fn change(before: &Report, now: &Report) -> String {
    let delta = i64::from(now.score) - i64::from(before.score);
    let full = |r: &Report, id: &str| {
        r.categories
            .iter()
            .any(|c| c.id == id && c.score == c.max_score)
    };
    let mut news = Vec::new();
    for c in &now.categories {
        match (full(before, &c.id), full(now, &c.id)) {
            (false, true) => news.push(format!("{} now passes", c.title)),
            (true, false) => news.push(format!("{} no longer passes", c.title)),
            _ => {}
        }
    }
    let points = match delta {
        0 => format!("no change ({}/{} points)", now.score, now.max_score),
        d if d > 0 => format!("+{d} points ({}/{})", now.score, now.max_score),
        d => format!("{d} points ({}/{})", now.score, now.max_score),
    };
    if news.is_empty() {
        points
    } else {
        format!("{points}: {}", news.join(", "))
    }
}
