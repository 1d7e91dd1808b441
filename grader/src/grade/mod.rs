//! Grading one crate: build the code under test, run the scenarios, judge, report.

pub mod batch;
pub mod gradebook;
pub mod race;
mod select;
pub mod source_scan;
pub mod submission;
pub mod submit;

pub use crate::run::RunOptions;
pub use select::{Selection, limits, select};

use std::io::Write;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

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
    let work = build::work_dir(lab);
    let _ = writeln!(progress, "building {} ...", subject.label);
    let built = build::build(lab, subject, &work)?;
    let results = match built {
        Built::CompileFailed(diagnostics) => {
            let _ = writeln!(progress, "{} does not compile", subject.label);
            return Ok(assemble(
                lab,
                subject,
                selection,
                not_compiled(selection),
                Some(diagnostics),
            ));
        }
        Built::Harness(harness) => {
            let n = selection.scenarios.len();
            let _ = writeln!(
                progress,
                "running {n} scenario{} ...",
                if n == 1 { "" } else { "s" }
            );
            run_all_showing(&harness, subject, selection, opts, true)?
        }
    };
    Ok(assemble(lab, subject, selection, results, None))
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
        })
        .collect()
}

/// Runs every scenario, `opts.jobs` at a time, and judges each.
pub fn run_all(
    harness: &Harness,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
) -> Result<Vec<ScenarioResult>, Error> {
    run_all_showing(harness, subject, selection, opts, false)
}

/// [`run_all`], counting finished scenarios on standard error when `show` (and it is a
/// terminal).
pub fn run_all_showing(
    harness: &Harness,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
    show: bool,
) -> Result<Vec<ScenarioResult>, Error> {
    let scenarios = &selection.scenarios;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<ScenarioResult, Error>>>> =
        Mutex::new((0..scenarios.len()).map(|_| None).collect());
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1).min(scenarios.len().max(1)) {
            let done_tx = done_tx.clone();
            let (next, results) = (&next, &results);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(scenario) = scenarios.get(i) else {
                        break;
                    };
                    let outcome = run_one(harness, subject, scenario, opts, &selection.limits);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(outcome);
                    }
                    let _ = done_tx.send(());
                }
            });
        }
        drop(done_tx);
        let total = scenarios.len();
        // Counts finished scenarios on standard error, redrawn in place, and clears itself
        // so the report starts on a clean line; hidden off a terminal.
        let bar = if show {
            ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("  scenario {pos} of {len} done")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        for _ in 0..total {
            if done_rx.recv().is_err() {
                break;
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
    });
    let all = results.into_inner().unwrap_or_default();
    all.into_iter()
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
        plan(scenario, opts),
        Duration::from_millis(opts.timeout_ms),
        *limits,
        opts.backtrace,
        crate::sandbox::of(subject),
    )?;
    let shown = |p: &str| subject.shown(p);
    let result = judge::judge(scenario, &run, &shown, opts.timeout_ms);
    Ok(explain_limits(result, &run, limits))
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
    Report {
        schema_version: SCHEMA_VERSION,
        lab: lab.manifest.name.clone(),
        subject: subject.label.clone(),
        score: scenarios.iter().map(|s| s.score).sum(),
        max_score: scenarios.iter().map(|s| s.max_score).sum(),
        categories,
        start_here: judge::lead::lead(&scenarios, &selection.scenarios),
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
