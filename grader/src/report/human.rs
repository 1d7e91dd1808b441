//! The report people read in a terminal.

use std::io::Write;

use colored::Colorize;

use super::{Report, ScenarioResult, Status};
use crate::lab::Lab;
use grader_lab::quantity;

/// How much to show.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Show hints after failures.
    pub hints: bool,
    /// Show whole timelines and backtraces.
    pub verbose: bool,
    /// List categories and scenarios that did not pass before the others.
    pub failures_first: bool,
    /// The graded crate is the lab's reference solution, and the reader an instructor:
    /// hidden scenarios left out are theirs to run, not a student's to expect.
    pub reference: bool,
}

/// Steps of the timeline shown before the failing one, unless verbose.
const TIMELINE_CONTEXT: usize = 4;

/// Writes `report` for a person.
pub fn write(
    report: &Report,
    lab: &Lab,
    opts: Options,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}",
        format!(
            "{} ({}): grading {}",
            lab.manifest.name, lab.manifest.title, report.subject
        )
        .bold()
    )?;
    if let Some(errors) = &report.compile_errors {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            "The code does not compile, so no scenario could run:"
                .red()
                .bold()
        )?;
        for line in errors.lines() {
            writeln!(out, "  {line}")?;
        }
    }
    if !report.source_warnings.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            "Rule breaks found in the code itself:".yellow().bold()
        )?;
        for w in &report.source_warnings {
            writeln!(out, "  {}: {}", w.location, w.message)?;
        }
    }
    start_here(report, out)?;
    let mut categories: Vec<_> = report.categories.iter().collect();
    if opts.failures_first {
        categories.sort_by_key(|c| c.score == c.max_score);
    }
    for cat in categories {
        writeln!(out)?;
        let score = format!("{}/{}", cat.score, cat.max_score);
        writeln!(
            out,
            "{:<60} {:>7}",
            cat.title.bold(),
            colour_score(&score, cat.score, cat.max_score)
        )?;
        let mut scenarios: Vec<_> = report
            .scenarios
            .iter()
            .filter(|s| s.category == cat.id)
            .collect();
        if opts.failures_first {
            scenarios.sort_by_key(|s| s.status == Status::Passed);
        }
        for s in scenarios {
            scenario(s, opts, out)?;
        }
    }
    writeln!(out)?;
    let passed = report
        .scenarios
        .iter()
        .filter(|s| s.status == Status::Passed)
        .count();
    let total = format!("{}/{}", report.score, report.max_score);
    writeln!(
        out,
        "{} {} points, {passed} of {} passed",
        "Total:".bold(),
        colour_score(&total, report.score, report.max_score).bold(),
        quantity(report.scenarios.len() as u64, "scenario")
    )?;
    if let Some(p) = &report.provenance {
        writeln!(out, "{}", p.line().dimmed())?;
    }
    let points = report.hidden_points_not_run;
    if opts.reference && report.hidden_not_run > 0 {
        writeln!(
            out,
            "{} ({}) did not run: `--scenario NAME` runs one, `--submission DIR` grades a submission with all of them.",
            quantity(report.hidden_not_run as u64, "hidden scenario"),
            quantity(points, "point")
        )?;
    } else if report.hidden_not_run > 0 {
        writeln!(
            out,
            "{} ({}) will also run when your submission is graded.",
            quantity(report.hidden_not_run as u64, "hidden scenario"),
            quantity(points, "point")
        )?;
    } else if points > 0 {
        writeln!(
            out,
            "Hidden scenarios worth {} will also run when your submission is graded.",
            quantity(points, "point")
        )?;
    }
    Ok(())
}

fn colour_score(text: &str, score: u32, max: u32) -> colored::ColoredString {
    if score == max {
        text.green()
    } else if score == 0 {
        text.red()
    } else {
        text.yellow()
    }
}

/// The one thing to look at first: the places where code under test stopped (a
/// `todo!()` or a panic), most common first; otherwise the first scenario that did not
/// pass, in the rubric's order.
fn start_here(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    if report.compile_errors.is_some() || report.all_passed() {
        return Ok(());
    }
    let mut stops: Vec<(&str, usize)> = Vec::new();
    for s in &report.scenarios {
        if let Some(at) = &s.stopped_at {
            match stops.iter_mut().find(|(place, _)| place == at) {
                Some((_, n)) => *n += 1,
                None => stops.push((at, 1)),
            }
        }
    }
    stops.sort_by_key(|s| std::cmp::Reverse(s.1));
    writeln!(out)?;
    writeln!(out, "{}", "Start here:".bold())?;
    for (place, n) in &stops {
        let what = match place.split_once(": not yet implemented") {
            Some((at, rest)) => format!("todo!() at {at}{rest}"),
            None => format!("a panic at {place}"),
        };
        let scenarios = if *n == 1 { "scenario" } else { "scenarios" };
        writeln!(out, "  {n} {scenarios} stopped at {what}")?;
    }
    if let Some(first) = report
        .scenarios
        .iter()
        .find(|s| s.status != Status::Passed && s.stopped_at.is_none())
    {
        writeln!(
            out,
            "  first scenario to fix, in the rubric's order: {}",
            first.name.bold()
        )?;
        writeln!(out, "    {}", first.message)?;
    }
    Ok(())
}

fn scenario(s: &ScenarioResult, opts: Options, out: &mut dyn Write) -> std::io::Result<()> {
    let tag = match s.status {
        Status::Passed => "PASS".green(),
        Status::Failed => "FAIL".red(),
        Status::Error => "ERROR".red(),
        Status::Timeout => "TIMEOUT".red(),
    };
    let points = format!("{}/{}", s.score, s.max_score);
    writeln!(out, "  {:<8}{:<50} {:>7}", tag, s.name, points)?;
    if s.status == Status::Passed {
        return Ok(());
    }
    writeln!(out, "          {}", s.title.dimmed())?;
    match &s.failure {
        Some(f) => {
            writeln!(out, "          step {} at {}: {}", f.step, f.at, f.action)?;
            writeln!(out, "            expected: {}", f.expected.green())?;
            writeln!(out, "            observed: {}", f.observed.red())?;
        }
        None => writeln!(out, "          {}", s.message)?,
    }
    if let Some(i) = &s.interleaving {
        writeln!(
            out,
            "          interleaving (schedule {} of {} explored):",
            i.schedule, i.explored
        )?;
        for line in &i.lines {
            writeln!(out, "            {line}")?;
        }
        writeln!(out, "          {} {}", "replay:".cyan().bold(), i.replay)?;
    }
    if !s.timeline.is_empty() && s.timeline.len() > 1 || opts.verbose && !s.timeline.is_empty() {
        timeline(s, opts, out)?;
    }
    if opts.hints {
        if let Some(hint) = &s.hint {
            writeln!(out, "          {} {}", "hint:".cyan().bold(), hint)?;
        }
    }
    if opts.verbose {
        if let Some(bt) = &s.backtrace {
            writeln!(out, "          backtrace:")?;
            for line in bt.lines() {
                writeln!(out, "            {line}")?;
            }
        }
    }
    Ok(())
}

fn timeline(s: &ScenarioResult, opts: Options, out: &mut dyn Write) -> std::io::Result<()> {
    let skip = if opts.verbose {
        0
    } else {
        s.timeline.len().saturating_sub(TIMELINE_CONTEXT + 1)
    };
    writeln!(out, "          timeline:")?;
    if skip > 0 {
        writeln!(
            out,
            "            ... {skip} earlier step{} (-v shows all)",
            if skip == 1 { "" } else { "s" }
        )?;
    }
    for e in &s.timeline[skip..] {
        let marker = if e.failed_here {
            ">>".red().bold()
        } else {
            "  ".normal()
        };
        let result = if e.result.is_empty() {
            String::new()
        } else {
            format!(" -> {}", e.result)
        };
        writeln!(
            out,
            "          {marker}{:>3}. {} {}{}",
            e.step, e.at, e.action, result
        )?;
        for t in &e.targets {
            writeln!(out, "                  {}", t.dimmed())?;
        }
        for t in &e.transitions {
            writeln!(out, "                  record: {t}")?;
        }
    }
    Ok(())
}
