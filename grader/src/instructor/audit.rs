//! `grader audit`: do the scenarios tell right from wrong?
//!
//! Grades the reference solution and every mutant of the lab on every scenario (hidden
//! ones too), several times each, and prints which scenario catches which mutant. The
//! audit fails when the reference loses a point, a mutant passes everything, a mutant is
//! not caught by a scenario its file names, a scenario not marked `smoke` catches no
//! mutant, or any verdict differs between two runs of the same code.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use crate::build::{self, Built, Subject};
use crate::error::Error;
use crate::grade::{self, RunOptions, Selection};
use crate::instructor::mutants::{self, Mutant};
use crate::lab::Lab;
use crate::report::Status;

/// One graded subject in the audit.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// `reference` or the mutant's name.
    pub name: String,
    /// What is wrong with it (empty for the reference).
    pub title: String,
    /// Per scenario name: the status of each run.
    pub runs: BTreeMap<String, Vec<Status>>,
    /// Compiler output, if it did not compile.
    pub compile_errors: Option<String>,
}

/// The audit's findings.
#[derive(Clone, Debug, Serialize)]
pub struct Audit {
    /// Scenario names, in report order, with whether each is a smoke test.
    pub scenarios: Vec<(String, bool)>,
    /// The hidden ones among them: only submission grading runs these.
    pub hidden: Vec<String>,
    /// The reference first, then each mutant.
    pub columns: Vec<Column>,
    /// Everything wrong, one sentence each. Empty when the audit passes.
    pub problems: Vec<String>,
}

/// Runs the audit. Progress goes to `progress`.
pub fn audit(
    lab: &Lab,
    selection: &Selection,
    opts: &RunOptions,
    runs: usize,
    progress: &mut dyn Write,
) -> Result<Audit, Error> {
    let work = build::work_dir(&lab.kit);
    let mutants = mutants::load(lab)?;
    let mut subjects: Vec<(Subject, Option<&Mutant>)> = vec![(grade::solution_subject(lab), None)];
    for m in &mutants {
        subjects.push((mutants::subject(lab, &work, m)?, Some(m)));
    }
    let mut columns = Vec::new();
    for (subject, mutant) in &subjects {
        let _ = writeln!(progress, "building {} ...", subject.label);
        let built = build::build(lab, subject, &work)?;
        let mut column = Column {
            name: mutant.map_or_else(|| "reference".to_owned(), |m| m.name.clone()),
            title: mutant.map_or_else(String::new, |m| m.title.clone()),
            runs: BTreeMap::new(),
            compile_errors: None,
        };
        match built {
            Built::CompileFailed(errors) => column.compile_errors = Some(errors),
            Built::Harness(harness) => {
                for run in 1..=runs {
                    let _ = writeln!(
                        progress,
                        "running {} (run {run} of {runs}) ...",
                        subject.label
                    );
                    for r in grade::run_all(&harness, subject, selection, opts)? {
                        column.runs.entry(r.name).or_default().push(r.status);
                    }
                }
            }
        }
        columns.push(column);
    }
    let scenarios: Vec<(String, bool)> = selection
        .scenarios
        .iter()
        .map(|s| (s.name.clone(), s.smoke))
        .collect();
    let problems = findings(&scenarios, &columns, &mutants);
    let hidden = selection
        .scenarios
        .iter()
        .filter(|s| s.visibility == crate::scenario::Visibility::Hidden)
        .map(|s| s.name.clone())
        .collect();
    Ok(Audit {
        scenarios,
        hidden,
        columns,
        problems,
    })
}

/// Whether a column failed a scenario in its first run.
fn caught(column: &Column, scenario: &str) -> bool {
    column
        .runs
        .get(scenario)
        .and_then(|r| r.first())
        .is_some_and(|s| *s != Status::Passed)
}

fn findings(scenarios: &[(String, bool)], columns: &[Column], mutants: &[Mutant]) -> Vec<String> {
    let mut problems = Vec::new();
    for column in columns {
        if let Some(errors) = &column.compile_errors {
            let first = errors.lines().next().unwrap_or("");
            problems.push(format!("{} does not compile: {first}", column.name));
            continue;
        }
        for (name, statuses) in &column.runs {
            if statuses.windows(2).any(|w| w[0] != w[1]) {
                let list: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
                problems.push(format!(
                    "{name} is flaky on {}: its runs gave {}",
                    column.name,
                    list.join(", ")
                ));
            }
        }
    }
    let Some((reference, mutant_columns)) = columns.split_first() else {
        return problems;
    };
    for (name, _) in scenarios {
        if caught(reference, name) {
            problems.push(format!(
                "the reference solution fails {name}: fix the scenario or the reference"
            ));
        }
    }
    for (column, mutant) in mutant_columns.iter().zip(mutants) {
        if column.compile_errors.is_some() {
            continue;
        }
        if !scenarios.iter().any(|(name, _)| caught(column, name)) {
            problems.push(format!(
                "mutant {} ({}) passes every scenario: nothing catches it",
                column.name, column.title
            ));
        }
        for name in &mutant.caught_by {
            if !scenarios.iter().any(|(s, _)| s == name) {
                problems.push(format!(
                    "mutant {} names {name} in caught_by, but there is no such scenario",
                    column.name
                ));
            } else if !caught(column, name) {
                problems.push(format!(
                    "mutant {} should be caught by {name}, but passes it",
                    column.name
                ));
            }
        }
    }
    for (name, smoke) in scenarios {
        let catches = mutant_columns.iter().any(|c| caught(c, name));
        if !catches && !smoke {
            problems.push(format!(
                "{name} catches no mutant: make it sharper, or mark it \"smoke\": true if it only checks that things work"
            ));
        }
    }
    problems
}

/// Writes the matrix: one row per scenario, one column per mutant.
pub fn write_matrix(audit: &Audit, out: &mut dyn Write) -> std::io::Result<()> {
    let width = audit
        .scenarios
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let Some((reference, mutants)) = audit.columns.split_first() else {
        return Ok(());
    };
    writeln!(
        out,
        "Which scenario catches which mutant (x: caught, .: passed; ref: the reference must pass)"
    )?;
    writeln!(out)?;
    write!(out, "{:<width$}  ref", "scenario")?;
    for i in 1..=mutants.len() {
        write!(out, " {i:>2}")?;
    }
    writeln!(out)?;
    for (name, smoke) in &audit.scenarios {
        let r = if caught(reference, name) {
            "FAIL"
        } else {
            "ok"
        };
        write!(out, "{name:<width$}  {r:<3}")?;
        for c in mutants {
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
    writeln!(out)?;
    for (i, c) in mutants.iter().enumerate() {
        let n = audit.scenarios.iter().filter(|(s, _)| caught(c, s)).count();
        writeln!(
            out,
            "{:>3}. {:<24} caught by {n:>2}: {}",
            i + 1,
            c.name,
            c.title
        )?;
    }
    writeln!(out)?;
    if audit.problems.is_empty() {
        writeln!(
            out,
            "Audit passed: the reference passes every scenario, every mutant is caught, every scenario catches something, and no verdict changed between runs."
        )?;
    } else {
        writeln!(out, "Audit failed:")?;
        for p in &audit.problems {
            writeln!(out, "  - {p}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, failed: &[&str], scenarios: &[&str]) -> Column {
        Column {
            name: name.into(),
            title: format!("{name} title"),
            runs: scenarios
                .iter()
                .map(|s| {
                    let status = if failed.contains(s) {
                        Status::Failed
                    } else {
                        Status::Passed
                    };
                    ((*s).to_owned(), vec![status, status])
                })
                .collect(),
            compile_errors: None,
        }
    }

    fn mutant(name: &str, caught_by: &[&str]) -> Mutant {
        Mutant {
            format_version: 1,
            name: name.into(),
            title: format!("{name} title"),
            mistake: String::new(),
            caught_by: caught_by.iter().map(|s| (*s).to_owned()).collect(),
            edits: Vec::new(),
        }
    }

    #[test]
    fn a_scenario_that_stopped_catching_its_mutant_is_named() {
        let names = ["sharp", "weakened"];
        let scenarios: Vec<(String, bool)> =
            names.iter().map(|n| ((*n).to_owned(), false)).collect();
        let columns = [
            column("reference", &[], &names),
            column("m1", &["sharp"], &names),
        ];
        let problems = findings(&scenarios, &columns, &[mutant("m1", &["weakened"])]);
        assert_eq!(
            problems,
            [
                "mutant m1 should be caught by weakened, but passes it",
                "weakened catches no mutant: make it sharper, or mark it \"smoke\": true if it only checks that things work",
            ]
        );
    }

    #[test]
    fn a_verdict_that_changes_between_runs_is_flaky() {
        let names = ["racy"];
        let scenarios = vec![("racy".to_owned(), false)];
        let mut m1 = column("m1", &["racy"], &names);
        m1.runs
            .insert("racy".into(), vec![Status::Failed, Status::Passed]);
        let columns = [column("reference", &[], &names), m1];
        let problems = findings(&scenarios, &columns, &[mutant("m1", &["racy"])]);
        assert_eq!(
            problems,
            ["racy is flaky on m1: its runs gave failed, passed"]
        );
    }
}
