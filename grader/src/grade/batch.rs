//! The batch behind a gradebook ([`super::gradebook`]): one thread builds the submissions
//! a chunk per cargo call, a pool of threads runs the scenarios of those already built,
//! oldest submission first, and each finished submission becomes its row.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, mpsc};

use super::Selection;
use super::code_digest;
use super::gradebook::{
    Batch, CategoryColumn, Gradebook, Progress, Row, error_row, error_row_for, file_names,
    max_score, scenario_columns, write,
};
use crate::build::{self, Built, Subject};
use crate::error::Error;
use crate::grade::submission::Outcome;
use crate::grade::submit::{self, Ready};
use crate::grade::{self, Stopwatch};
use crate::lab::Lab;
use crate::report::provenance::Provenance;
use crate::report::{SCHEMA_VERSION, ScenarioResult};

/// Grades every submission and returns the gradebook; `progress` hears about each step.
pub fn grade(
    batch: &Batch<'_>,
    submissions: &[(String, PathBuf)],
    reproduce: &str,
    progress: &mut dyn FnMut(Progress),
) -> Result<Gradebook, Error> {
    let folder = batch.results_dir.join("submissions");
    std::fs::create_dir_all(&folder).map_err(|e| Error::io("create", &folder, e))?;
    let files = &file_names(submissions, batch.extension);
    let pool = Pool {
        state: Mutex::new(PoolState::default()),
        changed: Condvar::new(),
    };
    let (done_tx, done_rx) = mpsc::channel::<Progress>();
    let mut rows: Vec<Option<Row>> = vec![None; submissions.len()];
    std::thread::scope(|scope| {
        // One builder, building a few submissions per cargo call (see `batch_build`),
        // while the pool below runs the scenarios of those already built.
        let done = done_tx.clone();
        let pool = &pool;
        scope.spawn(move || {
            let indices: Vec<usize> = (0..submissions.len()).collect();
            for chunk in indices.chunks(batch.chunk.max(1)) {
                let clock = Stopwatch::start();
                let finish = |index: usize, row: Row| {
                    let _ = done.send(Progress::Done {
                        index,
                        row: Box::new(row),
                        took: clock.elapsed(),
                    });
                };
                let mut ready = Vec::new();
                for &index in chunk {
                    let (name, dir) = &submissions[index];
                    let prepared =
                        submit::prepare(batch.lab, dir, batch.selection, batch.work, reproduce);
                    match prepared {
                        Err(e) => finish(index, error_row(name, batch, &e)),
                        Ok(Err(rejected)) => {
                            let outcome = Outcome::CouldNotGrade(rejected);
                            let row =
                                write(batch, name, &files[index], &outcome, clock.elapsed(), None);
                            finish(index, row);
                        }
                        Ok(Ok(mut r)) => {
                            r.confine(&batch.opts.confinement);
                            ready.push((index, r));
                        }
                    }
                }
                if ready.is_empty() {
                    continue;
                }
                let _ = done.send(Progress::Building {
                    indices: ready.iter().map(|(i, _)| *i).collect(),
                });
                let refs: Vec<&Subject> = ready.iter().map(|(_, r)| &r.subject).collect();
                let built = build::batch::build_many(batch.lab, batch.work, &refs);
                let _ = done.send(Progress::Building {
                    indices: Vec::new(),
                });
                let built = match built {
                    Ok(built) => built,
                    Err(e) => {
                        for (index, _) in &ready {
                            finish(*index, error_row(&submissions[*index].0, batch, &e));
                        }
                        continue;
                    }
                };
                for ((index, ready), built) in ready.into_iter().zip(built) {
                    let name = &submissions[index].0;
                    match built {
                        Err(e) => finish(index, error_row(name, batch, &e)),
                        Ok(Built::CompileFailed(diagnostics)) => {
                            let report = submit::report_from(
                                batch.lab,
                                &ready,
                                batch.selection,
                                grade::not_compiled(batch.selection),
                                Some(diagnostics),
                            );
                            let outcome = Outcome::Graded(report);
                            let code = Some(code_digest::digest(&ready.submission.files));
                            let row =
                                write(batch, name, &files[index], &outcome, clock.elapsed(), code);
                            finish(index, row);
                        }
                        Ok(Built::Harness(harness)) => pool.add(Open {
                            index,
                            ready,
                            harness,
                            clock,
                            results: Vec::new(),
                            next: 0,
                            running: 0,
                        }),
                    }
                }
            }
            pool.close();
        });
        for _ in 0..batch.pool.max(1) {
            let done = done_tx.clone();
            scope.spawn(move || pool.work(batch, submissions, files, &done));
        }
        drop(done_tx);
        for event in done_rx {
            if let Progress::Done { index, row, .. } = &event {
                rows[*index] = Some((**row).clone());
            }
            progress(event);
        }
    });
    let submissions = rows
        .into_iter()
        .zip(submissions)
        .map(|(row, (name, _))| {
            row.unwrap_or_else(|| {
                error_row(
                    name,
                    batch,
                    &Error::Usage("the grader stopped before grading it".into()),
                )
            })
        })
        .collect();
    let sandbox = batch.opts.confinement.as_ref().map(|c| c.describe());
    book(batch.lab, batch.selection, submissions, sandbox)
}

/// The gradebook of a batch that could not be graded at all (no sandbox could be set
/// up, say): every submission is its row, marked as failed in the grader, with why.
pub fn none_graded(
    lab: &Lab,
    selection: &Selection,
    submissions: &[(String, PathBuf)],
    why: &Error,
) -> Result<Gradebook, Error> {
    let rows = submissions
        .iter()
        .map(|(name, _)| error_row_for(name, selection, why))
        .collect();
    book(lab, selection, rows, None)
}

/// The gradebook around its rows.
fn book(
    lab: &Lab,
    selection: &Selection,
    submissions: Vec<Row>,
    sandbox: Option<String>,
) -> Result<Gradebook, Error> {
    let provenance = Provenance::new(lab, &selection.scenarios, &[], String::new())?;
    let categories = lab
        .manifest
        .categories
        .iter()
        .map(|c| CategoryColumn {
            id: c.id.clone(),
            title: c.title.clone(),
            max_score: selection
                .scenarios
                .iter()
                .filter(|s| s.category == c.id)
                .map(|s| s.points)
                .sum(),
        })
        .filter(|c| c.max_score > 0)
        .collect();
    Ok(Gradebook {
        schema_version: SCHEMA_VERSION,
        lab: lab.manifest.name.clone(),
        kit_version: provenance.kit_version,
        scenarios: provenance.scenarios,
        scenarios_sha256: provenance.scenarios_sha256,
        max_score: max_score(selection),
        sandbox,
        categories,
        scenario_columns: scenario_columns(selection),
        submissions,
    })
}

/// A built submission whose scenarios are being run.
struct Open {
    index: usize,
    ready: Ready,
    harness: crate::build::Harness,
    clock: Stopwatch,
    /// One per scenario, filled as they finish.
    results: Vec<Option<Result<ScenarioResult, Error>>>,
    /// The next scenario to hand out.
    next: usize,
    /// Scenarios handed out and not finished.
    running: usize,
}

#[derive(Default)]
struct PoolState {
    /// Built, not yet open.
    waiting: VecDeque<Open>,
    /// Being run: at most `jobs`, oldest first.
    open: Vec<Open>,
    /// The builder has handed over every submission.
    closed: bool,
}

/// Scenarios of the open submissions, run by a fixed number of threads. Scenarios are
/// handed out oldest submission first, so a submission whose scenarios wait out stuck
/// requests or time limits gets every idle thread rather than holding the batch back.
struct Pool {
    state: Mutex<PoolState>,
    changed: Condvar,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A submission is built and ready to run.
    fn add(&self, open: Open) {
        self.lock().waiting.push_back(open);
        self.changed.notify_all();
    }

    /// No more submissions will come.
    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// One thread of the pool: runs scenarios until every submission is finished, and
    /// finishes (reports, writes) each submission whose last scenario it ran.
    fn work(
        &self,
        batch: &Batch<'_>,
        submissions: &[(String, PathBuf)],
        files: &[String],
        done: &mpsc::Sender<Progress>,
    ) {
        let scenarios = &batch.selection.scenarios;
        let mut state = self.lock();
        loop {
            while state.open.len() < batch.jobs.max(1) {
                let Some(mut next) = state.waiting.pop_front() else {
                    break;
                };
                next.results = (0..scenarios.len()).map(|_| None).collect();
                state.open.push(next);
            }
            let task = state.open.iter_mut().find(|o| o.next < scenarios.len());
            let Some(open) = task else {
                let finished = state.closed && state.open.is_empty() && state.waiting.is_empty();
                if finished {
                    return;
                }
                state = self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            let (index, i) = (open.index, open.next);
            open.next += 1;
            open.running += 1;
            let harness = open.harness.clone();
            let subject = open.ready.subject.clone();
            drop(state);
            let result = grade::run_one(
                &harness,
                &subject,
                &scenarios[i],
                batch.opts,
                &batch.selection.limits,
            );
            state = self.lock();
            let Some(pos) = state.open.iter().position(|o| o.index == index) else {
                continue;
            };
            let open = &mut state.open[pos];
            open.results[i] = Some(result);
            open.running -= 1;
            if open.next < scenarios.len() || open.running > 0 {
                continue;
            }
            let finished = state.open.remove(pos);
            self.changed.notify_all();
            drop(state);
            let name = &submissions[finished.index].0;
            let results: Result<Vec<ScenarioResult>, Error> = finished
                .results
                .into_iter()
                .map(|r| r.unwrap_or_else(|| Err(Error::Usage("a scenario was not run".into()))))
                .collect();
            let row = match results {
                Ok(results) => {
                    let report = submit::report_from(
                        batch.lab,
                        &finished.ready,
                        batch.selection,
                        results,
                        None,
                    );
                    write(
                        batch,
                        name,
                        &files[finished.index],
                        &Outcome::Graded(report),
                        finished.clock.elapsed(),
                        Some(code_digest::digest(&finished.ready.submission.files)),
                    )
                }
                Err(e) => error_row(name, batch, &e),
            };
            let _ = done.send(Progress::Done {
                index: finished.index,
                row: Box::new(row),
                took: finished.clock.elapsed(),
            });
            state = self.lock();
        }
    }
}
