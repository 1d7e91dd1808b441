//! `grader audit`: do the scenarios tell right from wrong?
//!
//! Grades the reference solution, every correct alternative and every mutant of the lab
//! on every scenario (hidden ones too), several times each, and prints which scenario
//! catches which mutant. The audit fails when the reference or an alternative loses a
//! point, a mutant passes everything, a mutant is not caught by a scenario its file
//! names, a mutant is caught by fewer than two scenarios without saying why one is
//! enough, a scenario not marked `smoke` catches no mutant, or any verdict differs
//! between two runs of the same code.
//!
//! Every graded crate is a [`Column`] with a [`Role`]; what a role must do is decided in
//! one place, so a new way of running the scenarios (more runs, other schedules) covers
//! the alternatives as it covers the reference. All runs of all columns share one pool
//! of `jobs` workers: most of an audit is waiting for mutants that block a request to be
//! reported as stuck, and that waiting overlaps.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::build::{self, Built, Subject};
use crate::check::{self, RunOptions, Selection};
use crate::error::Error;
use crate::lab::Lab;
use crate::mutants::{self, Mutant};
use crate::report::Status;

/// What a graded crate is, and so what the audit expects of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The reference solution: must pass every scenario.
    Reference,
    /// A correct solution written differently: must pass every scenario too.
    Alternative,
    /// A known-wrong variant: must fail the scenarios its file names, and more than one.
    Mutant,
}

impl Role {
    /// Whether a crate of this role must keep full marks.
    pub fn must_pass(self) -> bool {
        matches!(self, Role::Reference | Role::Alternative)
    }
}

/// One graded crate in the audit.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// `reference`, or the alternative's or mutant's name.
    pub name: String,
    /// What it is: the alternative's design, or what is wrong with the mutant (empty for
    /// the reference).
    pub title: String,
    /// What the audit expects of it.
    pub role: Role,
    /// Per scenario name: the status of each run.
    pub runs: BTreeMap<String, Vec<Status>>,
    /// Compiler output, if it did not compile.
    pub compile_errors: Option<String>,
    /// A mutant's reason why one scenario catching it is enough.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caught_once_because: Option<String>,
}

/// The audit's findings.
#[derive(Clone, Debug, Serialize)]
pub struct Audit {
    /// Scenario names, in report order, with whether each is a smoke test.
    pub scenarios: Vec<(String, bool)>,
    /// The hidden ones among them: only submission grading runs these.
    pub hidden: Vec<String>,
    /// The reference first, then each alternative, then each mutant.
    pub columns: Vec<Column>,
    /// Everything wrong, one sentence each. Empty when the audit passes.
    pub problems: Vec<String>,
    /// Whether only some of the lab's scenarios ran (`--scenario`). How many scenarios
    /// catch each mutant is then not checked: the others may catch it.
    pub some_scenarios: bool,
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
    let alternatives = crate::alternatives::load(lab)?;
    let mut subjects: Vec<(Subject, Column)> = vec![(
        check::solution_subject(lab),
        column("reference", "", Role::Reference),
    )];
    for a in &alternatives {
        subjects.push((
            crate::alternatives::subject(lab, &work, a)?,
            column(&a.meta.name, &a.meta.title, Role::Alternative),
        ));
    }
    for m in &mutants {
        let mut c = column(&m.name, &m.title, Role::Mutant);
        c.caught_once_because = m.caught_once_because.clone();
        subjects.push((mutants::subject(lab, &work, m)?, c));
    }
    let mut harnesses: Vec<Option<PathBuf>> = Vec::new();
    for (subject, column) in &mut subjects {
        let _ = writeln!(progress, "building {} ...", subject.label);
        match build::build(lab, subject, &work)? {
            Built::CompileFailed(errors) => {
                column.compile_errors = Some(errors);
                harnesses.push(None);
            }
            Built::Harness(harness) => harnesses.push(Some(harness)),
        }
    }
    let _ = writeln!(
        progress,
        "running {} scenarios on {} crates, {runs} run{} each, {} at a time ...",
        selection.scenarios.len(),
        harnesses.iter().flatten().count(),
        if runs == 1 { "" } else { "s" },
        opts.jobs
    );
    let statuses = run_pool(&subjects, &harnesses, selection, opts, runs)?;
    let mut columns: Vec<Column> = subjects.into_iter().map(|(_, c)| c).collect();
    for ((c, s), status) in statuses {
        let name = selection.scenarios[s].name.clone();
        columns[c].runs.entry(name).or_default().push(status);
    }
    let scenarios: Vec<(String, bool)> = selection
        .scenarios
        .iter()
        .map(|s| (s.name.clone(), s.smoke))
        .collect();
    let lab_scenarios = check::select(lab, true, &[])?.scenarios;
    let some_scenarios = lab_scenarios.len() != scenarios.len()
        || lab_scenarios
            .iter()
            .any(|s| !scenarios.iter().any(|(n, _)| *n == s.name));
    let problems = findings(&scenarios, &columns, &mutants, !some_scenarios);
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
        some_scenarios,
    })
}

fn column(name: &str, title: &str, role: Role) -> Column {
    Column {
        name: name.to_owned(),
        title: title.to_owned(),
        role,
        runs: BTreeMap::new(),
        compile_errors: None,
        caught_once_because: None,
    }
}

/// One run of one scenario on one column: `(column, scenario)` indexes.
type Job = (usize, usize);

/// Runs every scenario `runs` times on every column that built, `opts.jobs` at a time
/// from one queue; the statuses in run order.
fn run_pool(
    subjects: &[(Subject, Column)],
    harnesses: &[Option<PathBuf>],
    selection: &Selection,
    opts: &RunOptions,
    runs: usize,
) -> Result<Vec<(Job, Status)>, Error> {
    // Scenario by scenario across the columns, so the few columns whose requests get
    // stuck spread their waiting over the whole audit instead of filling every worker.
    let mut jobs: Vec<Job> = Vec::new();
    for _ in 0..runs {
        for s in 0..selection.scenarios.len() {
            jobs.extend(
                harnesses
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.is_some())
                    .map(|(c, _)| (c, s)),
            );
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Status, Error>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(c, s)) = jobs.get(i) else {
                        break;
                    };
                    let (Some(harness), Some(scenario)) =
                        (&harnesses[c], selection.scenarios.get(s))
                    else {
                        continue;
                    };
                    let outcome =
                        check::run_one(harness, &subjects[c].0, scenario, opts, &selection.limits)
                            .map(|r| r.status);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(outcome);
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    jobs.into_iter()
        .zip(results)
        .map(|(job, r)| {
            let status = r.unwrap_or_else(|| Err(Error::Usage("a scenario was not run".into())))?;
            Ok((job, status))
        })
        .collect()
}

/// Whether a column failed a scenario in its first run.
fn caught(column: &Column, scenario: &str) -> bool {
    column
        .runs
        .get(scenario)
        .and_then(|r| r.first())
        .is_some_and(|s| *s != Status::Passed)
}

/// Everything wrong. With `whole` false only some of the lab's scenarios ran, so how
/// many of them catch a mutant, and `caught_by` names that did not run, prove nothing.
fn findings(
    scenarios: &[(String, bool)],
    columns: &[Column],
    mutants: &[Mutant],
    whole: bool,
) -> Vec<String> {
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
    for column in columns.iter().filter(|c| c.role.must_pass()) {
        for (name, _) in scenarios {
            if !caught(column, name) {
                continue;
            }
            problems.push(match column.role {
                Role::Alternative => format!(
                    "the correct alternative {} ({}) fails {name}: the scenario asks for more than the rules, or the alternative has a bug",
                    column.name, column.title
                ),
                _ => format!(
                    "the reference solution fails {name}: fix the scenario or the reference"
                ),
            });
        }
    }
    for column in columns.iter().filter(|c| c.role == Role::Mutant) {
        let Some(mutant) = mutants.iter().find(|m| m.name == column.name) else {
            continue;
        };
        if column.compile_errors.is_some() {
            continue;
        }
        let catching: Vec<&str> = scenarios
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| caught(column, name))
            .collect();
        match (catching.as_slice(), &mutant.caught_once_because) {
            _ if !whole => {}
            ([], _) => problems.push(format!(
                "mutant {} ({}) passes every scenario: nothing catches it",
                column.name, column.title
            )),
            ([only], None) => problems.push(format!(
                "mutant {} ({}) is caught by {only} alone: add a second scenario that catches it, or say in its file why one is enough (caught_once_because)",
                column.name, column.title
            )),
            ([_, _, ..], Some(_)) => problems.push(format!(
                "mutant {} is caught by {} scenarios, but its file says why one is enough: remove caught_once_because",
                column.name,
                catching.len()
            )),
            _ => {}
        }
        for name in &mutant.caught_by {
            if !scenarios.iter().any(|(s, _)| s == name) {
                if !whole {
                    continue;
                }
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
        let catches = columns
            .iter()
            .filter(|c| c.role == Role::Mutant)
            .any(|c| caught(c, name));
        if !catches && !smoke {
            problems.push(format!(
                "{name} catches no mutant: make it sharper, or mark it \"smoke\": true if it only checks that things work"
            ));
        }
    }
    problems
}

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
        write!(
            out,
            "{:>3}. {:<name_width$} caught by {n:>2}: {}",
            i + 1,
            c.name,
            c.title
        )?;
        match &c.caught_once_because {
            Some(why) => writeln!(out, " (one is enough: {why})")?,
            None => writeln!(out)?,
        }
    }
    writeln!(out)?;
    if audit.problems.is_empty() && audit.some_scenarios {
        writeln!(
            out,
            "Audit passed on the scenarios that ran: the reference and every correct alternative pass them, each catches a mutant, and no verdict changed between runs. Run the whole audit to check that every mutant is caught twice."
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

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, role: Role, failed: &[&str], scenarios: &[&str]) -> Column {
        Column {
            name: name.into(),
            title: format!("{name} title"),
            role,
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
            caught_once_because: None,
        }
    }

    fn mutant(name: &str, caught_by: &[&str], once: Option<&str>) -> Mutant {
        Mutant {
            format_version: 1,
            name: name.into(),
            title: format!("{name} title"),
            mistake: String::new(),
            caught_by: caught_by.iter().map(|s| (*s).to_owned()).collect(),
            caught_once_because: once.map(str::to_owned),
            edits: Vec::new(),
        }
    }

    fn scenarios(names: &[&str]) -> Vec<(String, bool)> {
        names.iter().map(|n| ((*n).to_owned(), false)).collect()
    }

    #[test]
    fn a_scenario_that_stopped_catching_its_mutant_is_named() {
        let names = ["sharp", "weakened", "other"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("m1", Role::Mutant, &["sharp", "other"], &names),
        ];
        let problems = findings(
            &scenarios(&names),
            &columns,
            &[mutant("m1", &["weakened"], None)],
            true,
        );
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
        let names = ["racy", "steady"];
        let mut m1 = column("m1", Role::Mutant, &["racy", "steady"], &names);
        m1.runs
            .insert("racy".into(), vec![Status::Failed, Status::Passed]);
        let columns = [column("reference", Role::Reference, &[], &names), m1];
        let problems = findings(
            &scenarios(&names),
            &columns,
            &[mutant("m1", &["racy"], None)],
            true,
        );
        assert_eq!(
            problems,
            ["racy is flaky on m1: its runs gave failed, passed"]
        );
    }

    #[test]
    fn a_correct_alternative_that_loses_a_point_fails_the_audit() {
        let names = ["strict", "fair"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("rwlock", Role::Alternative, &["strict"], &names),
            column("m1", Role::Mutant, &["strict", "fair"], &names),
        ];
        let problems = findings(
            &scenarios(&names),
            &columns,
            &[mutant("m1", &["strict", "fair"], None)],
            true,
        );
        assert_eq!(
            problems,
            [
                "the correct alternative rwlock (rwlock title) fails strict: the scenario asks for more than the rules, or the alternative has a bug"
            ]
        );
    }

    #[test]
    fn a_mutant_caught_once_must_say_why_that_is_enough() {
        let names = ["only", "other"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("once", Role::Mutant, &["only"], &names),
            column("explained", Role::Mutant, &["only"], &names),
            column("twice", Role::Mutant, &["only", "other"], &names),
        ];
        let mutants = [
            mutant("once", &["only"], None),
            mutant("explained", &["only"], Some("it needs one exact setting")),
            mutant("twice", &["only"], Some("stale")),
        ];
        let problems = findings(&scenarios(&names), &columns, &mutants, true);
        assert_eq!(
            problems,
            [
                "mutant once (once title) is caught by only alone: add a second scenario that catches it, or say in its file why one is enough (caught_once_because)",
                "mutant twice is caught by 2 scenarios, but its file says why one is enough: remove caught_once_because",
            ]
        );
    }

    #[test]
    fn an_audit_of_some_scenarios_does_not_count_catches() {
        let names = ["new"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("caught", Role::Mutant, &["new"], &names),
            column("elsewhere", Role::Mutant, &[], &names),
        ];
        let mutants = [
            mutant("caught", &["new", "old"], None),
            mutant("elsewhere", &["old"], None),
        ];
        assert_eq!(
            findings(&scenarios(&names), &columns, &mutants, false),
            Vec::<String>::new()
        );
        assert_eq!(
            findings(&scenarios(&names), &columns, &mutants, true).len(),
            4
        );
    }

    #[test]
    fn alternatives_are_lettered_past_z() {
        let labels: Vec<String> = [0, 1, 25, 26, 27, 52].iter().map(|i| letter(*i)).collect();
        assert_eq!(labels, ["a", "b", "z", "aa", "ab", "ba"]);
    }
}
