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
//! Every graded crate is a [`Column`] with a [`Role`] (`model.rs`); what a role must do
//! is decided in one place (`findings.rs`), so a new way of running the scenarios (more
//! runs, other schedules) covers the alternatives as it covers the reference. All runs
//! of all columns share one pool of `jobs` workers: most of an audit is waiting for
//! mutants that block a request to be reported as stuck, and that waiting overlaps.
//! `matrix.rs` writes the matrix people read. An audit of drafts also says what
//! publishing them would change (`draft.rs`); a whole audit names the scenarios that
//! catch nothing another one does not (`overlap.rs`).

mod draft;
mod findings;
pub mod generated;
mod matrix;
mod model;
mod overlap;

pub use matrix::write_matrix;
pub use model::{Audit, Column, Role};

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::alternatives;
use super::mutants;
use crate::build::{self, Built, Harness, Subject};
use crate::error::Error;
use crate::grade::{self, RunOptions, Selection};
use crate::lab::Lab;
use crate::report::ScenarioResult;
use crate::scenario::Visibility;

/// Runs the audit. Progress goes to `progress`.
pub fn audit(
    lab: &Lab,
    selection: &Selection,
    opts: &RunOptions,
    runs: usize,
    only: &[String],
    generated: Option<Option<u64>>,
    progress: &mut dyn Write,
) -> Result<Audit, Error> {
    let work = build::work_dir(lab);
    let mut mutants = mutants::load(lab)?;
    if let Some(unknown) = only.iter().find(|n| !mutants.iter().any(|m| &&m.name == n)) {
        let mut msg = format!("there is no mutant `{unknown}` in {}", lab.manifest.name);
        if let Some(close) =
            crate::diagnostic::did_you_mean(unknown, mutants.iter().map(|m| m.name.as_str()))
        {
            msg.push_str(&format!("\n  help: did you mean `{close}`?"));
        }
        return Err(Error::Usage(msg));
    }
    if !only.is_empty() {
        mutants.retain(|m| only.contains(&m.name));
    }
    let alternatives = alternatives::load(lab)?;
    let mut subjects: Vec<(Subject, Column)> = vec![(
        grade::solution_subject(lab),
        column("reference", "", Role::Reference),
    )];
    for a in &alternatives {
        subjects.push((
            alternatives::subject(lab, &work, a)?,
            column(&a.meta.name, &a.meta.title, Role::Alternative),
        ));
    }
    for m in &mutants {
        let mut c = column(&m.name, &m.title, Role::Mutant);
        c.rule = m.rule.clone().or_else(|| {
            let first = m.caught_by.first()?;
            let s = selection.scenarios.iter().find(|s| &s.name == first)?;
            s.rule.clone()
        });
        c.caught_once_because = m.caught_once_because.clone();
        c.start_here_elsewhere_because = m.start_here_elsewhere_because.clone();
        subjects.push((mutants::subject(lab, &work, m)?, c));
    }
    let mut harnesses: Vec<Option<Harness>> = Vec::new();
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
    let lab_scenarios = grade::select(lab, true, &[])?.scenarios;
    // Visible drafts (files outside the lab's folders) may change where each mutant's
    // report starts once published; the lab's other visible scenarios run once on each
    // mutant to tell.
    let is_draft = |s: &crate::scenario::Scenario| !lab_scenarios.iter().any(|l| l.name == s.name);
    let drafts: Vec<crate::scenario::Scenario> = selection
        .scenarios
        .iter()
        .filter(|s| is_draft(s) && s.visibility == Visibility::Visible)
        .cloned()
        .collect();
    let context: Vec<crate::scenario::Scenario> = lab_scenarios
        .iter()
        .filter(|l| !drafts.is_empty() && l.visibility == Visibility::Visible)
        .filter(|l| !selection.scenarios.iter().any(|s| s.name == l.name))
        .cloned()
        .collect();
    if !context.is_empty() {
        let _ = writeln!(
            progress,
            "and the lab's {} other visible scenarios once on each mutant, to see where its report would start once the drafts are published ...",
            context.len()
        );
    }
    let all: Vec<crate::scenario::Scenario> = selection
        .scenarios
        .iter()
        .chain(&context)
        .cloned()
        .collect();
    let audited = selection.scenarios.len();
    let results = run_pool(&subjects, &harnesses, &all, audited, selection, opts, runs)?;
    let (subjects, mut columns): (Vec<Subject>, Vec<Column>) = subjects.into_iter().unzip();
    let mut first: Vec<Vec<ScenarioResult>> = vec![Vec::new(); columns.len()];
    let mut published: Vec<Vec<ScenarioResult>> = vec![Vec::new(); columns.len()];
    for ((c, s), result) in results {
        if s >= audited {
            published[c].push(result);
            continue;
        }
        let name = selection.scenarios[s].name.clone();
        columns[c].runs.entry(name).or_default().push(result.status);
        let scenario = &selection.scenarios[s];
        let seen = first[c].iter().any(|r| r.name == scenario.name);
        if !seen && scenario.visibility == Visibility::Visible {
            first[c].push(result);
        }
    }
    // What a student's report would say first, from the first run of the visible
    // scenarios (in the selection's order, as `check` grades them).
    let first_visible = first.clone();
    for (column, mut results) in columns.iter_mut().zip(first) {
        results.sort_by_key(|r| selection.scenarios.iter().position(|s| s.name == r.name));
        column.start_here = crate::judge::lead::lead(&results, &selection.scenarios);
    }
    let scenarios: Vec<(String, bool)> = selection
        .scenarios
        .iter()
        .map(|s| (s.name.clone(), s.smoke))
        .collect();
    let some_scenarios = lab_scenarios.len() != scenarios.len()
        || lab_scenarios
            .iter()
            .any(|s| !scenarios.iter().any(|(n, _)| *n == s.name));
    let some_mutants = !only.is_empty();
    let scope = findings::Scope {
        all_scenarios: !some_scenarios,
        all_mutants: !some_mutants,
        start_here: lab.manifest.start_here_audited,
    };
    let mut problems = findings::findings(&scenarios, &columns, &mutants, scope);
    // Generated scenarios (`None`: not asked for, as when only some scenarios run).
    let generated = match generated {
        Some(extra) => generated::run(
            lab, selection, &subjects, &harnesses, &columns, opts, extra, progress,
        )?,
        None => None,
    };
    let mut generated = generated;
    if let Some(g) = &mut generated {
        for row in &mut g.mutants {
            row.excused = mutants
                .iter()
                .find(|m| m.name == row.name)
                .and_then(|m| m.generated_misses_because.clone());
        }
        problems.extend(generated::problems(g));
    }
    let overlaps = if scope.all_scenarios && scope.all_mutants {
        overlap::notes(&scenarios, &columns)
    } else {
        Vec::new()
    };
    let publishing = if drafts.is_empty() {
        draft::Publishing::default()
    } else {
        let runs: Vec<draft::Runs<'_>> = columns
            .iter()
            .zip(published)
            .zip(&first_visible)
            .map(|((column, mut on_lab), audited)| {
                let (drafts_run, lab_run): (Vec<ScenarioResult>, Vec<ScenarioResult>) = audited
                    .iter()
                    .cloned()
                    .partition(|r| drafts.iter().any(|d| d.name == r.name));
                on_lab.extend(lab_run);
                draft::Runs {
                    column,
                    published: on_lab,
                    drafts: drafts_run,
                }
            })
            .collect();
        let visible: Vec<crate::scenario::Scenario> = lab_scenarios
            .iter()
            .filter(|l| l.visibility == Visibility::Visible)
            .cloned()
            .collect();
        draft::publishing(lab, &visible, &drafts, &runs, &mutants)
    };
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
        some_mutants,
        start_here_audited: lab.manifest.start_here_audited,
        generated,
        overlaps,
        publishing: publishing.notes,
        when_publishing: publishing.to_do,
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
        start_here: None,
        rule: None,
        start_here_elsewhere_because: None,
    }
}

/// One run of one scenario on one column: `(column, scenario)` indexes.
type Job = (usize, usize);

/// Runs every scenario `runs` times on every column that built, `opts.jobs` at a time
/// from one queue; the results in run order. The scenarios from `audited` on are not
/// audited: they run once, on the mutants only.
fn run_pool(
    subjects: &[(Subject, Column)],
    harnesses: &[Option<Harness>],
    scenarios: &[crate::scenario::Scenario],
    audited: usize,
    selection: &Selection,
    opts: &RunOptions,
    runs: usize,
) -> Result<Vec<(Job, ScenarioResult)>, Error> {
    // Scenario by scenario across the columns, so the few columns whose requests get
    // stuck spread their waiting over the whole audit instead of filling every worker.
    let mut jobs: Vec<Job> = Vec::new();
    for run in 0..runs {
        for s in 0..scenarios.len() {
            if s >= audited && run > 0 {
                continue;
            }
            jobs.extend(
                harnesses
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.is_some())
                    .filter(|(c, _)| s < audited || subjects[*c].1.role == Role::Mutant)
                    .map(|(c, _)| (c, s)),
            );
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<ScenarioResult, Error>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(c, s)) = jobs.get(i) else {
                        break;
                    };
                    let (Some(harness), Some(scenario)) = (&harnesses[c], scenarios.get(s)) else {
                        continue;
                    };
                    let outcome =
                        grade::run_one(harness, &subjects[c].0, scenario, opts, &selection.limits);
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
            let result = r.unwrap_or_else(|| Err(Error::Usage("a scenario was not run".into())))?;
            Ok((job, result))
        })
        .collect()
}
