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
    start_here(report, opts, out)?;
    let mut categories: Vec<_> = report.categories.iter().collect();
    if opts.failures_first {
        categories.sort_by_key(|c| c.score == c.max_score);
    }
    // A reason told once is named shortly after that.
    let mut told: Vec<String> = Vec::new();
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
        let groups = groups(&scenarios);
        for s in scenarios {
            match groups.iter().find(|g| g.members[0] == s.name) {
                Some(g) => group(g, &mut told, out)?,
                None if groups.iter().any(|g| g.members.contains(&s.name.as_str())) => {}
                None => scenario(s, opts, out)?,
            }
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
    let hidden = report.hidden_not_run.unwrap_or(0);
    if opts.reference && hidden > 0 {
        writeln!(
            out,
            "{} ({}) did not run: `--scenario NAME` runs one, `--submission DIR` grades a submission with all of them.",
            quantity(hidden as u64, "hidden scenario"),
            quantity(points, "point")
        )?;
    } else if hidden > 0 {
        writeln!(
            out,
            "{} ({}) will also run when your submission is graded.",
            quantity(hidden as u64, "hidden scenario"),
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
/// `todo!()` or a panic), most common first; then what most failures at a step have in
/// common, in the simplest scenario that shows it, with its hint (`judge::lead`).
fn start_here(report: &Report, opts: Options, out: &mut dyn Write) -> std::io::Result<()> {
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
        let what = stop_words(place);
        let scenarios = if *n == 1 { "scenario" } else { "scenarios" };
        writeln!(out, "  {n} {scenarios} stopped at {what}")?;
    }
    if let Some(lead) = &report.start_here {
        let others = lead.shared_by - 1;
        let same = match (others, &lead.rule) {
            (0, _) => String::new(),
            (1, Some(_)) => " (1 other failing scenario points at this rule)".to_owned(),
            (n, Some(_)) => format!(" ({n} other failing scenarios point at this rule)"),
            (1, None) => " (1 other scenario fails the same way)".to_owned(),
            (n, None) => format!(" ({n} other scenarios fail the same way)"),
        };
        if let Some(rule) = &lead.rule {
            writeln!(out, "  {} {}", "rule:".bold(), rule.rule)?;
        }
        writeln!(
            out,
            "  {}, step {} at {}: {}{same}",
            lead.scenario.bold(),
            lead.step,
            lead.at,
            lead.action
        )?;
        for changed in &lead.settings {
            writeln!(out, "    settings: {changed}")?;
        }
        writeln!(out, "    expected: {}", lead.expected.green())?;
        writeln!(out, "    observed: {}", lead.observed.red())?;
        if opts.hints {
            if let Some(hint) = &lead.hint {
                writeln!(out, "    {} {}", "hint:".cyan().bold(), hint)?;
            }
        }
    } else if let Some(first) = report
        .scenarios
        .iter()
        .find(|s| s.status != Status::Passed && s.stopped_at.is_none())
    {
        writeln!(out, "  {}: {}", first.name.bold(), first.message)?;
    }
    Ok(())
}

/// Scenarios of one category that ended the same way, told once.
struct Group<'a> {
    status: Status,
    /// What they have in common: where they stopped, or why they did not run.
    why: String,
    members: Vec<&'a str>,
    score: u32,
    max_score: u32,
}

/// Scenarios that did not pass for one same reason (stopped at the same place of the
/// code under test, or not run for the same reason), two or more to a group, in the
/// order of their first member. Failures at a step stay on their own: each scenario
/// checks something else.
fn groups<'a>(scenarios: &[&'a ScenarioResult]) -> Vec<Group<'a>> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    for s in scenarios {
        if s.status == Status::Passed || s.failure.is_some() || s.interleaving.is_some() {
            continue;
        }
        let why = match &s.stopped_at {
            Some(at) => stop_words(at),
            None if s.message.starts_with("not run") => s.message.clone(),
            None => continue,
        };
        match groups
            .iter_mut()
            .find(|g| g.why == why && g.status == s.status)
        {
            Some(g) => {
                g.members.push(&s.name);
                g.score += s.score;
                g.max_score += s.max_score;
            }
            None => groups.push(Group {
                status: s.status,
                why,
                members: vec![&s.name],
                score: s.score,
                max_score: s.max_score,
            }),
        }
    }
    groups.retain(|g| g.members.len() > 1);
    groups
}

/// Where the code under test stopped, in words: `todo!() at FILE:LINE:COL: message`.
pub(crate) fn stop_words(place: &str) -> String {
    match place.split_once(": not yet implemented") {
        Some((at, rest)) => format!("todo!() at {at}{rest}"),
        None => format!("a panic at {place}"),
    }
}

/// Width of the names line under a group.
const NAMES_WIDTH: usize = 86;

fn group(g: &Group<'_>, told: &mut Vec<String>, out: &mut dyn Write) -> std::io::Result<()> {
    let tag = match g.status {
        Status::Passed => "PASS".green(),
        Status::Failed => "FAIL".red(),
        Status::Error => "ERROR".red(),
        Status::Timeout => "TIMEOUT".red(),
    };
    let points = format!("{}/{}", g.score, g.max_score);
    let head = format!("{} scenarios, one reason", g.members.len());
    writeln!(out, "  {:<8}{:<50} {:>7}", tag, head, points)?;
    let why = if told.contains(&g.why) {
        "the same reason as above".to_owned()
    } else if g.why.starts_with("not run") {
        g.why.clone()
    } else {
        format!("stopped at {}", g.why)
    };
    told.push(g.why.clone());
    writeln!(out, "          {why}")?;
    let mut line = String::new();
    for name in &g.members {
        if !line.is_empty() && line.len() + name.len() + 2 > NAMES_WIDTH {
            writeln!(out, "          {}", line.dimmed())?;
            line.clear();
        }
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(name);
    }
    if !line.is_empty() {
        writeln!(out, "          {}", line.dimmed())?;
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
        // A race check's replayed schedule is told even when it passed.
        if let Some(i) = &s.interleaving {
            writeln!(out, "          {}", s.message)?;
            interleaving(i, out)?;
        }
        return Ok(());
    }
    writeln!(out, "          {}", s.title.dimmed())?;
    for changed in &s.settings {
        writeln!(out, "          settings: {changed}")?;
    }
    match &s.failure {
        Some(f) => {
            writeln!(out, "          step {} at {}: {}", f.step, f.at, f.action)?;
            writeln!(out, "            expected: {}", f.expected.green())?;
            writeln!(out, "            observed: {}", f.observed.red())?;
        }
        None => writeln!(out, "          {}", s.message)?,
    }
    if let Some(i) = &s.interleaving {
        interleaving(i, out)?;
    }
    if !s.timeline.is_empty() && s.timeline.len() > 1 || opts.verbose && !s.timeline.is_empty() {
        timeline(s, opts, out)?;
    }
    match (&s.likely_cause, &s.rule) {
        (Some(cause), Some(_)) => writeln!(
            out,
            "          {} most likely the mistake Start here names, first seen at {} step {}",
            "cause:".bold(),
            cause.scenario,
            cause.step,
        )?,
        // The step that failed checks another rule than the one the scenario is about.
        (None, Some(rule)) if s.other_rule => {
            writeln!(out, "          {} {}", "rule:".bold(), rule.rule)?;
        }
        _ => {}
    }
    if opts.hints && s.likely_cause.is_none() {
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

/// A race check's schedule, told, and the command that replays it.
fn interleaving(i: &super::Interleaving, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "          interleaving (schedule {} of {} explored):",
        i.schedule, i.explored
    )?;
    for line in &i.lines {
        writeln!(out, "            {line}")?;
    }
    writeln!(out, "          {} {}", "replay:".cyan().bold(), i.replay)
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
