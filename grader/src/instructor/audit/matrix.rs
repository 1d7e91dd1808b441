//! The audit as a matrix for people: one row per scenario, a column per graded crate,
//! then each alternative's and mutant's tally and the verdict.

use std::io::Write;

use super::model::{Audit, Column, Role, caught};
use crate::report::Status;

/// The label of the `i`-th alternative's column: `a`, `b`, ... `z`, then `aa`, `ab`, ...
fn letter(i: usize) -> String {
    let letters = b"abcdefghijklmnopqrstuvwxyz";
    let mut label = String::new();
    let mut n = i;
    loop {
        label.insert(0, char::from(letters[n % 26]));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    label
}

/// Writes the matrix: one row per scenario; a column for the reference, one for each
/// correct alternative, one for each mutant.
pub fn write_matrix(audit: &Audit, out: &mut dyn Write) -> std::io::Result<()> {
    let width = audit
        .scenarios
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let of =
        |role: Role| -> Vec<&Column> { audit.columns.iter().filter(|c| c.role == role).collect() };
    let (references, alternatives, mutants) =
        (of(Role::Reference), of(Role::Alternative), of(Role::Mutant));
    let Some(reference) = references.first() else {
        return Ok(());
    };
    writeln!(
        out,
        "Which scenario catches which mutant (x: caught, .: passed), and whether the reference (ref) and the correct alternatives (a, b, ...) pass it (ok) or fail it (F)"
    )?;
    writeln!(out)?;
    write!(out, "{:<width$}  ref", "scenario")?;
    for i in 0..alternatives.len() {
        write!(out, " {:>2}", letter(i))?;
    }
    if !alternatives.is_empty() {
        write!(out, " ")?;
    }
    for i in 1..=mutants.len() {
        write!(out, " {i:>2}")?;
    }
    writeln!(out)?;
    let must_pass = |c: &Column, name: &str| {
        if c.compile_errors.is_some() {
            "?"
        } else if caught(c, name) {
            "F"
        } else {
            "ok"
        }
    };
    for (name, smoke) in &audit.scenarios {
        write!(out, "{name:<width$}  {:<3}", must_pass(reference, name))?;
        for c in &alternatives {
            write!(out, " {:>2}", must_pass(c, name))?;
        }
        if !alternatives.is_empty() {
            write!(out, " ")?;
        }
        for c in &mutants {
            let cell = if c.compile_errors.is_some() {
                "?"
            } else if caught(c, name) {
                "x"
            } else {
                "."
            };
            write!(out, " {cell:>2}")?;
        }
        let mut notes = Vec::new();
        if audit.hidden.contains(name) {
            notes.push("hidden");
        }
        if *smoke {
            notes.push("smoke");
        }
        if !notes.is_empty() {
            write!(out, "  ({})", notes.join(", "))?;
        }
        writeln!(out)?;
    }
    let name_width = audit
        .columns
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0)
        .max(24);
    let total = audit.scenarios.len();
    if !alternatives.is_empty() {
        writeln!(out)?;
        writeln!(out, "Correct alternatives, which must pass every scenario:")?;
        for (i, c) in alternatives.iter().enumerate() {
            let passed = audit
                .scenarios
                .iter()
                .filter(|(s, _)| !caught(c, s))
                .count();
            writeln!(
                out,
                "{:>3}. {:<name_width$} passes {passed:>2} of {total}: {}",
                letter(i),
                c.name,
                c.title
            )?;
        }
    }
    if !mutants.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Mutants, each to be caught by two scenarios or more (or to say why one is enough):"
        )?;
    }
    for (i, c) in mutants.iter().enumerate() {
        let n = audit.scenarios.iter().filter(|(s, _)| caught(c, s)).count();
        let (hit, runs) = runs_caught(c);
        write!(
            out,
            "{:>3}. {:<name_width$} caught by {n:>2} in {hit:>2} of {runs} runs: {}",
            i + 1,
            c.name,
            c.title
        )?;
        match &c.caught_once_because {
            Some(why) => writeln!(out, " (one is enough: {why})")?,
            None => writeln!(out)?,
        }
    }
    if !mutants.is_empty() && audit.start_here_audited {
        writeln!(out)?;
        writeln!(
            out,
            "Where each mutant's report says to start, and the rule it names (hint: a scenario's own hint is shown; observed: only what differed):"
        )?;
    }
    for (i, c) in mutants
        .iter()
        .enumerate()
        .filter(|_| audit.start_here_audited)
    {
        let place = match &c.start_here {
            Some(l) => format!(
                "{} step {} ({})",
                l.scenario,
                l.step,
                match (&l.rule, &l.hint) {
                    (Some(rule), _) => format!("rule {}", rule.id),
                    (None, Some(_)) => "hint".to_owned(),
                    (None, None) => "observed".to_owned(),
                }
            ),
            None => "nowhere".to_owned(),
        };
        write!(out, "{:>3}. {:<name_width$} {place}", i + 1, c.name)?;
        match &c.start_here_elsewhere_because {
            Some(why) => writeln!(out, " (cannot name it: {why})")?,
            None => writeln!(out)?,
        }
    }
    if let Some(g) = &audit.generated {
        super::generated::write_table(g, out)?;
    }
    notes(audit, out)?;
    writeln!(out)?;
    if audit.problems.is_empty() && audit.some_mutants && !audit.some_scenarios {
        writeln!(
            out,
            "Audit of {} passed: each is caught in every run by the scenarios its caught_by names (and by two scenarios or more, or says why one is enough), the reference and every correct alternative pass every scenario, and no verdict changed between runs. Run the whole audit to check that every scenario catches a mutant.",
            match mutants.len() {
                1 => "1 mutant".to_owned(),
                n => format!("{n} mutants"),
            }
        )?;
    } else if audit.problems.is_empty() && audit.some_scenarios {
        writeln!(
            out,
            "Audit of {} passed: the reference and every correct alternative pass every scenario audited, each of those catches a mutant (or is a smoke scenario), every mutant whose caught_by names one of them is caught by it, and no verdict changed between runs. Run the whole audit to check that every mutant is caught twice.",
            grader_lab::quantity(total as u64, "scenario")
        )?;
    } else if audit.problems.is_empty() {
        writeln!(
            out,
            "Audit passed: the reference and every correct alternative pass every scenario, every mutant is caught by two scenarios or more (or says why one is enough), every scenario catches something, and no verdict changed between runs."
        )?;
    } else {
        writeln!(out, "Audit failed:")?;
        for p in &audit.problems {
            writeln!(out, "  - {p}")?;
        }
    }
    Ok(())
}

/// The notes that do not decide the verdict: what publishing the drafts would change,
/// and the scenarios that catch nothing another one does not.
fn notes(audit: &Audit, out: &mut dyn Write) -> std::io::Result<()> {
    for (head, notes) in [
        ("If the drafts were published:", &audit.publishing),
        (
            "When you publish them (the whole audit fails otherwise):",
            &audit.when_publishing,
        ),
        (
            "Scenarios that catch nothing another scenario does not also catch (worth keeping when one shows a rule on its own, or checks one no mutant breaks yet: then write that mutant):",
            &audit.overlaps,
        ),
    ] {
        if notes.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{head}")?;
        for n in notes {
            writeln!(out, "  - {n}")?;
        }
    }
    Ok(())
}

/// In how many runs some scenario caught `column`, and how many runs there were.
fn runs_caught(column: &Column) -> (usize, usize) {
    let runs = column.runs.values().map(Vec::len).max().unwrap_or(0);
    let hit = (0..runs)
        .filter(|&r| {
            column
                .runs
                .values()
                .any(|statuses| statuses.get(r).is_some_and(|s| *s != Status::Passed))
        })
        .count();
    (hit, runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternatives_are_lettered_past_z() {
        let labels: Vec<String> = [0, 1, 25, 26, 27, 52].iter().map(|i| letter(*i)).collect();
        assert_eq!(labels, ["a", "b", "z", "aa", "ab", "ba"]);
    }
}
