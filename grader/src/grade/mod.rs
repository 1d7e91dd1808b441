//! Grading one crate: build the code under test, run the scenarios, judge, report.

pub mod batch;
pub mod code_digest;
pub mod gradebook;
pub mod gradebook_csv;
mod options;
pub mod platforms;
mod pool;
pub mod race;
pub mod regrade;
pub mod roster;
mod select;
pub mod source_scan;
pub mod submission;
pub mod submit;

pub use options::RunOptions;
pub use select::{Selection, limits, select};

use std::io::Write;

use std::path::PathBuf;
use std::time::Duration;

use pool::Queue;

use crate::build::{self, Built, Harness, Subject};
use crate::error::Error;
use crate::judge;
use crate::judge::limits::explain_limits;
use crate::lab::Lab;
use crate::report::{CategoryScore, Report, SCHEMA_VERSION, ScenarioResult, Status};
use crate::run::plan;
use crate::run::runner::{self, Limits};
use crate::scenario::Scenario;

/// The crate a lab's students work in, as shipped in this kit.
pub fn student_subject(lab: &Lab) -> Subject {
    Subject {
        key: "student".into(),
        label: lab.manifest.student_crate.clone(),
        crate_dir: lab.kit.join(&lab.manifest.student_crate),
        package: lab.manifest.student_package.clone(),
        shown_dir: PathBuf::from(&lab.manifest.student_crate),
        confined: None,
    }
}

/// The lab's reference solution.
pub fn solution_subject(lab: &Lab) -> Subject {
    Subject {
        key: "solution".into(),
        label: lab.manifest.solution_crate.clone(),
        crate_dir: lab.kit.join(&lab.manifest.solution_crate),
        package: lab.manifest.solution_package.clone(),
        shown_dir: PathBuf::from(&lab.manifest.solution_crate),
        confined: None,
    }
}

/// Builds `subject` and grades it on `selection`. Progress goes to `progress`.
pub fn grade(
    lab: &Lab,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
    progress: &mut dyn Write,
) -> Result<Report, Error> {
    let _ = writeln!(progress, "building {} ...", subject.label);
    Ok(
        match build_and_run(lab, subject, selection, opts, progress)? {
            Ran::CompileFailed(diagnostics) => assemble(
                lab,
                subject,
                selection,
                not_compiled(selection),
                Some(diagnostics),
            ),
            Ran::Scenarios(results) => assemble(lab, subject, selection, results, None),
        },
    )
}

/// What building and running a crate under test came to.
#[derive(Debug)]
pub enum Ran {
    /// It does not compile: the rendered diagnostics.
    CompileFailed(String),
    /// Every scenario's result, in the selection's order.
    Scenarios(Vec<ScenarioResult>),
}

/// Builds `subject` and runs `selection` on it, counting finished scenarios on standard
/// error; `progress` is told when the scenarios start or the code does not compile. The
/// scenarios that need only the lab's harness start as soon as it is linked, while the
/// race harness may still be building ([`pool`]).
pub fn build_and_run(
    lab: &Lab,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
    progress: &mut dyn Write,
) -> Result<Ran, Error> {
    let work = build::work_dir(lab);
    let races = selection.scenarios.iter().any(|s| s.race);
    let queue = Queue::new(&selection.scenarios, None);
    let (linked_tx, linked) = std::sync::mpsc::channel();
    let (built, results) = std::thread::scope(|scope| {
        let building = scope.spawn(|| {
            // However the build ends, race checks waiting for it are let go.
            let _release = Release(&queue);
            let built = build::build_watching(lab, subject, &work, races, Some(linked_tx));
            queue.race_built(match &built {
                Ok(Built::Harness(harness)) => Some(harness.race.clone()),
                _ => None,
            });
            built
        });
        // Sent when the harness is linked; the channel closes unused when it was not.
        let results = linked.recv().ok().map(|main| {
            running(progress, selection);
            pool::run(&queue, &main, subject, selection, opts)
        });
        let built = building
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (built, results)
    });
    match built? {
        Built::CompileFailed(diagnostics) => {
            let _ = writeln!(progress, "{} does not compile", subject.label);
            Ok(Ran::CompileFailed(diagnostics))
        }
        Built::Harness(harness) => Ok(Ran::Scenarios(match results {
            Some(results) => collect(results)?,
            None => {
                running(progress, selection);
                run_all(&harness, subject, selection, opts)?
            }
        })),
    }
}

/// Stops a grading's queue when dropped, unless the build ended first.
struct Release<'q>(&'q Queue);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.race_built(None);
    }
}

/// Says that the scenarios start.
fn running(progress: &mut dyn Write, selection: &Selection) {
    let n = selection.scenarios.len();
    let _ = writeln!(
        progress,
        "running {n} scenario{} ...",
        if n == 1 { "" } else { "s" }
    );
}

/// Every scenario of `selection`, marked as not run because the code does not compile.
pub fn not_compiled(selection: &Selection) -> Vec<ScenarioResult> {
    selection
        .scenarios
        .iter()
        .map(|s| ScenarioResult {
            name: s.name.clone(),
            title: s.title.clone(),
            category: s.category.clone(),
            status: Status::Error,
            score: 0,
            max_score: s.points,
            message: "not run: the code does not compile".into(),
            failure: None,
            settings: Vec::new(),
            hint: None,
            timeline: Vec::new(),
            backtrace: None,
            stopped_at: None,
            interleaving: None,
            stuck: false,
            rule: None,
            likely_cause: None,
            pointers: Vec::new(),
            other_rule: false,
        })
        .collect()
}

/// Runs every scenario on a harness built before, `opts.jobs` at a time, counting finished
/// scenarios on standard error (when it is a terminal).
fn run_all(
    harness: &Harness,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
) -> Result<Vec<ScenarioResult>, Error> {
    let queue = Queue::new(&selection.scenarios, Some(harness.race.clone()));
    collect(pool::run(&queue, &harness.main, subject, selection, opts))
}

/// Every scenario's result, or the first error.
fn collect(
    results: Vec<Option<Result<ScenarioResult, Error>>>,
) -> Result<Vec<ScenarioResult>, Error> {
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::Usage("a scenario was not run".into()))))
        .collect()
}

/// Runs one scenario in its own process under `limits`, and judges it. Race checks run
/// on the race harness, over many schedules.
pub fn run_one(
    harness: &Harness,
    subject: &Subject,
    scenario: &Scenario,
    opts: &RunOptions,
    limits: &Limits,
) -> Result<ScenarioResult, Error> {
    let mut result = if scenario.race {
        race::run_one(&harness.race, subject, scenario, opts, limits)?
    } else {
        run_plain(harness, subject, scenario, opts, limits)?
    };
    // Everything in a result came from code under test: bounded, whatever it wrote.
    crate::report::clip::scenario_result(&mut result);
    Ok(result)
}

/// Runs one scenario that is not a race check on the lab's harness.
fn run_plain(
    harness: &Harness,
    subject: &Subject,
    scenario: &Scenario,
    opts: &RunOptions,
    limits: &Limits,
) -> Result<ScenarioResult, Error> {
    let run = runner::run(
        &harness.main,
        plan(scenario, opts.stuck_after_ms),
        Duration::from_millis(opts.timeout_ms),
        *limits,
        opts.backtrace,
        subject.sandbox(),
    )?;
    let shown = |p: &str| subject.shown(p);
    let result = explain_limits(
        judge::judge(scenario, &run, &shown, opts.timeout_ms),
        &run,
        limits,
    );
    if let Some(album) = &opts.album {
        album.keep(&subject.label, scenario, &run, &result);
    }
    Ok(result)
}

/// Puts the results together with per-category totals.
pub fn assemble(
    lab: &Lab,
    subject: &Subject,
    selection: &Selection,
    scenarios: Vec<ScenarioResult>,
    compile_errors: Option<String>,
) -> Report {
    let categories = lab
        .manifest
        .categories
        .iter()
        .filter_map(|c| {
            let mine: Vec<&ScenarioResult> =
                scenarios.iter().filter(|s| s.category == c.id).collect();
            (!mine.is_empty()).then(|| CategoryScore {
                id: c.id.clone(),
                title: c.title.clone(),
                score: mine.iter().map(|s| s.score).sum(),
                max_score: mine.iter().map(|s| s.max_score).sum(),
            })
        })
        .collect();
    let mut scenarios = scenarios;
    let start_here = judge::lead::lead(&scenarios, &selection.scenarios);
    if let Some(lead) = &start_here {
        judge::lead::side_effects(&mut scenarios, &selection.scenarios, lead);
    }
    Report {
        schema_version: SCHEMA_VERSION,
        lab: lab.manifest.name.clone(),
        subject: subject.label.clone(),
        score: scenarios.iter().map(|s| s.score).sum(),
        max_score: scenarios.iter().map(|s| s.max_score).sum(),
        categories,
        start_here,
        scenarios,
        // Points of hidden scenarios whose files are not here: their number is unknown.
        hidden_not_run: (selection.hidden_not_run > 0 || selection.hidden_points_not_run == 0)
            .then_some(selection.hidden_not_run),
        hidden_points_not_run: selection.hidden_points_not_run,
        compile_errors: compile_errors
            .map(|t| crate::report::clip::clip(&t, crate::report::clip::COMPILE_ERRORS)),
        source_warnings: crate::grade::source_scan::scan(
            subject,
            &lab.manifest.student_files,
            lab.plugin.words().real_time_fix,
        ),
        provenance: None,
    }
}

/// Wall time since the start of a grading, for the execution-time fields of result
/// formats. It is reported, never judged.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch(std::time::Instant);

impl Stopwatch {
    /// Starts now.
    // Wall time is the point here: platforms show how long grading took.
    #[allow(clippy::disallowed_methods)]
    pub fn start() -> Stopwatch {
        Stopwatch(std::time::Instant::now())
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}
