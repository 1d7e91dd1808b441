//! The audit's generated scenarios: fairness first, then what they catch.
//!
//! Every seed (those graded in CI, then seeds 1 to N) is filled in from the reference
//! and run on the reference again (a verdict of the reference against itself that fails
//! is a scenario whose outcome depends on something the lab does not fix) and on every
//! correct alternative: any divergence fails the audit, since either the generator drew
//! an input the rules do not decide or the reference decides something the handout does
//! not say. Each mutant runs the graded seeds, and the other seeds one after the other
//! until one catches it; its first divergence is shrunk to a file. A mutant that only
//! race checks catch among the hand-written scenarios is racy: deterministic scenarios
//! cannot reach it, and the table says so rather than counting it missed.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use super::model::{AlternativeRow, Column, GeneratedAudit, MutantRow, Role, caught};
use crate::build::{Harness, Subject};
use crate::error::Error;
use crate::generate::shrink::{self, Subjected};
use crate::generate::{self, Filled, Oracle, Seeds};
use crate::grade::{self, RunOptions, Selection};
use crate::lab::Lab;
use crate::report::Status;

/// Runs the generated scenarios of the audit: the graded seeds and seeds 1 to `extra`
/// (the lab's practice seeds when `None`), on the crates the audit built. `None` for a
/// lab without generated scenarios.
#[allow(clippy::too_many_arguments)]
pub fn run(
    lab: &Lab,
    selection: &Selection,
    subjects: &[Subject],
    harnesses: &[Option<Harness>],
    columns: &[Column],
    opts: &RunOptions,
    extra: Option<u64>,
    progress: &mut dyn Write,
) -> Result<Option<GeneratedAudit>, Error> {
    let Some(seeds) = Seeds::of(lab)? else {
        return Ok(None);
    };
    let graded: Vec<u64> = seeds.graded.clone().into_iter().flatten().collect();
    let extra = extra.unwrap_or(seeds.settings.practice);
    let mut list = graded.clone();
    list.extend((1..=extra).filter(|s| !graded.contains(s)));
    let oracle = Oracle::build(lab, opts, selection.limits, progress)?;
    let _ = writeln!(
        progress,
        "generated scenarios: filling in {} seeds from the reference ...",
        list.len()
    );
    let points = seeds.settings.points;
    let category = seeds.settings.category.clone();
    let filled: Vec<Filled> = generate::each(&list, opts.jobs, |&seed| {
        oracle.seed(seed, graded.contains(&seed), points, &category)
    })
    .into_iter()
    .collect::<Result<_, _>>()?;
    let run_on = |c: usize, f: &Filled| -> Result<Status, Error> {
        let Some(harness) = &harnesses[c] else {
            return Ok(Status::Passed);
        };
        let r = grade::run_one(harness, &subjects[c], &f.scenario, opts, &selection.limits)?;
        Ok(r.status)
    };
    // The reference and every alternative on every seed.
    let must_pass: Vec<usize> = (0..subjects.len())
        .filter(|&c| columns[c].role.must_pass())
        .collect();
    let _ = writeln!(
        progress,
        "generated scenarios: {} seeds on the reference and {} alternatives ...",
        list.len(),
        must_pass.len().saturating_sub(1)
    );
    let jobs: Vec<(usize, usize)> = must_pass
        .iter()
        .flat_map(|&c| (0..filled.len()).map(move |s| (c, s)))
        .collect();
    let statuses = generate::each(&jobs, opts.jobs, |&(c, s)| run_on(c, &filled[s]));
    let mut failed: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (&(c, s), status) in jobs.iter().zip(statuses) {
        if status? != Status::Passed {
            failed.entry(c).or_default().push(s);
        }
    }
    let on = |c: usize| -> Option<Subjected<'_>> {
        Some(Subjected {
            harness: harnesses[c].as_ref()?,
            subject: &subjects[c],
            opts,
            limits: selection.limits,
        })
    };
    type Found = Option<((usize, PathBuf), Option<crate::report::Failure>)>;
    let shrink_one = |c: usize, seed: u64| -> Result<Found, Error> {
        let Some(subject) = on(c) else {
            return Ok(None);
        };
        let name = format!("{}_{}", generate::name(seed), columns[c].name);
        let shown = generate::work_folder(lab)
            .join("shrunk")
            .join(format!("{name}.json"));
        // A mutant's shrunk file must stay fair: every alternative passes it.
        let fair: Vec<Subjected<'_>> = if columns[c].role == Role::Mutant {
            must_pass
                .iter()
                .filter(|&&a| columns[a].role == Role::Alternative)
                .filter_map(|&a| on(a))
                .collect()
        } else {
            Vec::new()
        };
        let Some(shrunk) = shrink::shrink(&oracle, &subject, &fair, seed, &name, &shown)? else {
            return Ok(None);
        };
        generate::write_file(lab, &shown, &shrunk.text)?;
        Ok(Some(((shrunk.steps, shown), shrunk.result.failure)))
    };
    let mut reference_flaky = Vec::new();
    let mut alternatives = Vec::new();
    for &c in &must_pass {
        let diverged: Vec<u64> = failed
            .get(&c)
            .map(|s| s.iter().map(|&i| list[i]).collect())
            .unwrap_or_default();
        if columns[c].role == Role::Reference {
            reference_flaky = diverged;
            continue;
        }
        let shrunk = match diverged.first() {
            Some(&seed) => shrink_one(c, seed)?.map(|((_, p), _)| p),
            None => None,
        };
        alternatives.push(AlternativeRow {
            name: columns[c].name.clone(),
            diverged,
            shrunk,
        });
    }
    // Mutants: every graded seed, then the others until one catches it.
    let mutants: Vec<usize> = (0..subjects.len())
        .filter(|&c| columns[c].role == Role::Mutant && harnesses[c].is_some())
        .collect();
    let _ = writeln!(
        progress,
        "generated scenarios: {} mutants ...",
        mutants.len()
    );
    let graded_jobs: Vec<(usize, usize)> = mutants
        .iter()
        .flat_map(|&c| (0..graded.len()).map(move |s| (c, s)))
        .collect();
    let statuses = generate::each(&graded_jobs, opts.jobs, |&(c, s)| run_on(c, &filled[s]));
    let mut caught_by: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (&(c, s), status) in graded_jobs.iter().zip(statuses) {
        if status? != Status::Passed {
            caught_by.entry(c).or_default().push(s);
        }
    }
    let rows = generate::each(&mutants, opts.jobs, |&c| -> Result<MutantRow, Error> {
        let graded_caught = caught_by.get(&c).map_or(0, Vec::len);
        let mut tried = graded.len();
        let mut first = caught_by.get(&c).and_then(|s| s.first()).map(|&i| list[i]);
        if first.is_none() {
            for f in &filled[graded.len()..] {
                tried += 1;
                if run_on(c, f)? != Status::Passed {
                    first = generate::seed_of(&f.scenario.name);
                    break;
                }
            }
        }
        let (shrunk, failure) = match first {
            Some(seed) => match shrink_one(c, seed)? {
                Some((shrunk, failure)) => (Some(shrunk), failure),
                None => (None, None),
            },
            None => (None, None),
        };
        let column = &columns[c];
        let catching: Vec<&crate::scenario::Scenario> = selection
            .scenarios
            .iter()
            .filter(|s| caught(column, &s.name))
            .collect();
        Ok(MutantRow {
            name: column.name.clone(),
            racy: !catching.is_empty() && catching.iter().all(|s| s.race),
            hand_written: catching.len(),
            graded_caught,
            first,
            tried,
            shrunk,
            failure,
            excused: None,
        })
    });
    let mutants = rows.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(Some(GeneratedAudit {
        graded,
        seeds: list.len(),
        alternatives,
        mutants,
        reference_flaky,
    }))
}

/// What the generated scenarios found wrong, one sentence each.
pub fn problems(g: &GeneratedAudit) -> Vec<String> {
    let mut problems = Vec::new();
    if !g.reference_flaky.is_empty() {
        problems.push(format!(
            "the reference fails the scenarios filled in from its own runs for seeds {}: their outcome depends on something the lab does not fix",
            seed_list(&g.reference_flaky)
        ));
    }
    for a in &g.alternatives {
        if let Some(&first) = a.diverged.first() {
            let file = a
                .shrunk
                .as_ref()
                .map(|p| format!(" (shrunk: {})", p.display()))
                .unwrap_or_default();
            problems.push(format!(
                "correct alternative {} differs from the reference on generated seeds {}{file}: either the generator draws an input the rules do not decide, or the reference decides something the handout does not say (seed {first} first)",
                a.name,
                seed_list(&a.diverged)
            ));
        }
    }
    for m in g.mutants.iter().filter(|m| !m.racy) {
        if m.excused.is_some() {
            if m.graded_caught > 0 {
                problems.push(format!(
                    "mutant {} is caught by {} of the seeds graded in CI, but its file says why none does: remove generated_misses_because",
                    m.name, m.graded_caught
                ));
            }
            continue;
        }
        if m.first.is_none() {
            problems.push(format!(
                "mutant {} is caught by none of the {} generated scenarios run",
                m.name, m.tried
            ));
        } else if m.graded_caught == 0 && !g.graded.is_empty() {
            problems.push(format!(
                "mutant {} is caught by none of the {} seeds graded in CI (seed {} catches it)",
                m.name,
                g.graded.len(),
                m.first.unwrap_or_default()
            ));
        }
    }
    problems
}

fn seed_list(seeds: &[u64]) -> String {
    let shown: Vec<String> = seeds.iter().take(8).map(u64::to_string).collect();
    let more = seeds.len().saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The table people read: the alternatives against the reference, then each mutant.
pub fn write_table(g: &GeneratedAudit, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Generated scenarios: {} seeds ({} graded in CI) filled in from the reference and run on the reference and every correct alternative:",
        g.seeds,
        g.graded.len()
    )?;
    if g.reference_flaky.is_empty() {
        writeln!(out, "  reference  agrees with itself on every seed")?;
    } else {
        writeln!(
            out,
            "  reference  FAILS seeds {}",
            seed_list(&g.reference_flaky)
        )?;
    }
    let width = g
        .mutants
        .iter()
        .map(|m| m.name.len())
        .chain(g.alternatives.iter().map(|a| a.name.len()))
        .max()
        .unwrap_or(10)
        .max(10);
    for a in &g.alternatives {
        match a.diverged.first() {
            None => writeln!(
                out,
                "  {:<width$} agrees with the reference on every seed",
                a.name
            )?,
            Some(_) => writeln!(
                out,
                "  {:<width$} DIFFERS on seeds {}",
                a.name,
                seed_list(&a.diverged)
            )?,
        }
    }
    if g.mutants.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "Mutants against generated scenarios (graded: seeds graded in CI that catch it; first: the first seed that does; shrunk: its steps; hand: hand-written scenarios that catch it):"
    )?;
    writeln!(
        out,
        "  {:<width$} {:>7} {:>7} {:>7} {:>5}",
        "mutant", "graded", "first", "shrunk", "hand"
    )?;
    for m in &g.mutants {
        let first = m.first.map_or("-".to_owned(), |s| s.to_string());
        let shrunk = m
            .shrunk
            .as_ref()
            .map_or("-".to_owned(), |(n, _)| n.to_string());
        let excused = m
            .excused
            .as_ref()
            .filter(|_| m.graded_caught == 0)
            .map(|why| format!("  not reached: {why}"));
        let note = if let Some(excused) = &excused {
            excused.as_str()
        } else if m.first.is_none() && m.racy {
            "  racy: only race checks reach it"
        } else if m.first.is_none() {
            "  MISSED"
        } else if m.hand_written == 0 {
            "  only generated scenarios catch it"
        } else {
            ""
        };
        writeln!(
            out,
            "  {:<width$} {:>3}/{:<3} {first:>7} {shrunk:>7} {:>5}{note}",
            m.name,
            m.graded_caught,
            g.graded.len(),
            m.hand_written
        )?;
    }
    let files: Vec<&(usize, PathBuf)> =
        g.mutants.iter().filter_map(|m| m.shrunk.as_ref()).collect();
    if let Some((_, first)) = files.first() {
        writeln!(
            out,
            "  shrunk files: {}/ (replay one with grader audit LAB --mutant NAME --scenario FILE)",
            first
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        )?;
    }
    Ok(())
}
