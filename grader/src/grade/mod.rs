//! Grading one crate: build the code under test, run the scenarios, judge, report.

pub mod gradebook;
pub mod source_scan;
pub mod submission;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use grader_protocol::{PROTOCOL_VERSION, Plan};

use crate::build::{self, Built, Subject};
use crate::diagnostic::did_you_mean;
use crate::error::Error;
use crate::judge;
use crate::lab::Lab;
use crate::report::{CategoryScore, Report, SCHEMA_VERSION, ScenarioResult, Status};
use crate::run::runner::{self, Ending, Limits, Run};
use crate::scenario::{Scenario, load};

/// How to run the scenarios.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Wall-clock limit per scenario, in milliseconds.
    pub timeout_ms: u64,
    /// Wall-clock limit for a request stuck inside the relay, in milliseconds.
    pub stuck_after_ms: u64,
    /// Scenarios run at once.
    pub jobs: usize,
    /// Capture backtraces of panics.
    pub backtrace: bool,
}

/// The scenarios to run, how many hidden ones were left out, and the lab's limits on
/// each scenario's process.
pub struct Selection {
    /// The scenarios, in report order.
    pub scenarios: Vec<Scenario>,
    /// Hidden scenarios present but not selected.
    pub hidden_not_run: usize,
    /// Points of the hidden scenarios not selected. In the student edition the hidden
    /// files are absent, so this is what the lab's total has beyond the visible ones.
    pub hidden_points_not_run: u32,
    /// CPU time and memory limits for each scenario's process, from the lab.
    pub limits: Limits,
}

/// The lab's CPU time and memory limits per scenario.
pub fn limits(lab: &Lab) -> Limits {
    let l = &lab.manifest.limits;
    Limits {
        cpu_seconds: l.cpu_seconds,
        memory_bytes: l.memory_mb.map(|mb| mb.saturating_mul(1024 * 1024)),
    }
}

/// Loads the lab's scenarios: visible ones, plus hidden ones when `with_hidden`, narrowed
/// to `only` (names or paths of scenario files) when it is not empty.
pub fn select(lab: &Lab, with_hidden: bool, only: &[String]) -> Result<Selection, Error> {
    let mut scenarios = load::load_dir(lab, &lab.scenarios_dir()).map_err(Error::Invalid)?;
    let hidden_dir = lab.hidden_dir();
    let mut hidden_not_run = 0;
    let mut hidden_points_not_run = 0;
    if hidden_dir.is_dir() {
        let hidden = load::load_dir(lab, &hidden_dir).map_err(Error::Invalid)?;
        if with_hidden {
            scenarios.extend(hidden);
        } else {
            hidden_not_run = hidden.len();
            hidden_points_not_run = hidden.iter().map(|s| s.points).sum();
        }
    } else {
        let visible: u32 = scenarios.iter().map(|s| s.points).sum();
        hidden_points_not_run = lab.manifest.total_points.saturating_sub(visible);
    }
    let problems = crate::scenario::validate::check_set(&scenarios);
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    if !only.is_empty() {
        let mut chosen = Vec::new();
        for wanted in only {
            let path = Path::new(wanted);
            if wanted.ends_with(".json") && path.is_file() {
                let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                let mut loaded = load::load_files(lab, &[abs]).map_err(Error::Invalid)?;
                chosen.append(&mut loaded);
                continue;
            }
            match scenarios.iter().find(|s| &s.name == wanted) {
                Some(s) => chosen.push(s.clone()),
                None => {
                    let mut msg =
                        format!("there is no scenario `{wanted}` in {}", lab.manifest.name);
                    match did_you_mean(wanted, scenarios.iter().map(|s| s.name.as_str())) {
                        Some(close) => msg.push_str(&format!("\n  help: did you mean `{close}`?")),
                        None => msg.push_str(&format!(
                            "\n  help: `grader list {}` shows every scenario; a path to a .json file runs that file",
                            lab.manifest.name
                        )),
                    }
                    return Err(Error::Usage(msg));
                }
            }
        }
        scenarios = chosen;
        hidden_not_run = 0;
        hidden_points_not_run = 0;
    }
    let order = |s: &Scenario| {
        lab.manifest
            .categories
            .iter()
            .position(|c| c.id == s.category)
            .unwrap_or(usize::MAX)
    };
    // By category, visible before hidden, then by file.
    let hidden = |s: &Scenario| s.visibility == crate::scenario::Visibility::Hidden;
    scenarios.sort_by(|a, b| {
        (order(a), hidden(a))
            .cmp(&(order(b), hidden(b)))
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(Selection {
        scenarios,
        hidden_not_run,
        hidden_points_not_run,
        limits: limits(lab),
    })
}

/// The crate a lab's students work in, as shipped in this kit.
pub fn student_subject(lab: &Lab) -> Subject {
    Subject {
        key: "student".into(),
        label: lab.manifest.student_crate.clone(),
        crate_dir: lab.kit.join(&lab.manifest.student_crate),
        package: lab.manifest.student_package.clone(),
        shown_dir: PathBuf::from(&lab.manifest.student_crate),
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
    let work = build::work_dir(&lab.kit);
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
            let live = std::io::IsTerminal::is_terminal(&std::io::stderr());
            run_all_showing(&harness, subject, selection, opts, live.then_some(progress))?
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
            hint: None,
            timeline: Vec::new(),
            backtrace: None,
            stopped_at: None,
        })
        .collect()
}

/// The plan the harness runs for `scenario`: the lab's actions for its steps.
pub fn plan(scenario: &Scenario, opts: &RunOptions) -> Plan {
    Plan {
        protocol: PROTOCOL_VERSION,
        results_path: String::new(),
        stuck_after_ms: opts.stuck_after_ms,
        targets: scenario.targets.clone(),
        actions: scenario
            .steps
            .iter()
            .map(|p| scenario.plugin.action(&p.step))
            .collect(),
    }
}

/// Runs every scenario, `opts.jobs` at a time, and judges each.
pub fn run_all(
    harness: &Path,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
) -> Result<Vec<ScenarioResult>, Error> {
    run_all_showing(harness, subject, selection, opts, None)
}

/// [`run_all`], counting finished scenarios on one rewritten line of `live` (a terminal).
pub fn run_all_showing(
    harness: &Path,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
    mut live: Option<&mut dyn Write>,
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
        for finished in 1..=total {
            if done_rx.recv().is_err() {
                break;
            }
            if let Some(out) = live.as_mut() {
                let _ = write!(out, "\r  scenario {finished} of {total} done");
                let _ = out.flush();
            }
        }
        if let Some(out) = live.as_mut() {
            // Clear the progress line so the report starts on a clean one.
            let _ = write!(out, "\r\x1b[2K");
            let _ = out.flush();
        }
    });
    let all = results.into_inner().unwrap_or_default();
    all.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::Usage("a scenario was not run".into()))))
        .collect()
}

/// Runs one scenario in its own process under `limits`, and judges it.
pub fn run_one(
    harness: &Path,
    subject: &Subject,
    scenario: &Scenario,
    opts: &RunOptions,
    limits: &Limits,
) -> Result<ScenarioResult, Error> {
    let run = runner::run(
        harness,
        plan(scenario, opts),
        Duration::from_millis(opts.timeout_ms),
        *limits,
        opts.backtrace,
    )?;
    let shown = |p: &str| subject.shown(p);
    let result = judge::judge(scenario, &run, &shown, opts.timeout_ms);
    Ok(explain_limits(result, &run, limits))
}

/// Says so when a process was stopped by the CPU time or memory limit, which the judge
/// only sees as a signal.
pub fn explain_limits(mut result: ScenarioResult, run: &Run, limits: &Limits) -> ScenarioResult {
    const KILLED: &str = "the process was killed by signal ";
    if result.status == Status::Passed || !result.message.contains(KILLED) {
        return result;
    }
    let Ending::Signaled(signal) = run.ending else {
        return result;
    };
    let out_of_memory = run.stderr.contains("memory allocation of");
    let why = match (limits.memory_bytes, limits.cpu_seconds) {
        (Some(bytes), _) if out_of_memory => format!(
            "the process ran out of memory (the limit is {} MB per scenario): it allocates without bound?",
            bytes / (1024 * 1024)
        ),
        (_, Some(seconds)) if signal == libc::SIGXCPU || signal == libc::SIGKILL => {
            result.status = Status::Timeout;
            format!(
                "the process used up its CPU time (the limit is {seconds} s per scenario, all threads together): an endless loop, or busy waiting?"
            )
        }
        _ => return result,
    };
    // The judge's text is "...killed by signal N <place> (an abort?)": keep the place.
    let Some(start) = result.message.find(KILLED) else {
        return result;
    };
    let rest = &result.message[start + KILLED.len()..];
    let place = rest
        .split_once(' ')
        .map_or("", |(_, p)| p)
        .trim_end_matches(" (an abort?)");
    let (why, question) = why.split_once(": ").unwrap_or((&why, ""));
    result.message = format!("{}{why} {place}: {question}", &result.message[..start]);
    result
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
        scenarios,
        hidden_not_run: selection.hidden_not_run,
        hidden_points_not_run: selection.hidden_points_not_run,
        compile_errors,
        source_warnings: crate::grade::source_scan::scan(subject, &lab.manifest.student_files),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn crashed(message: &str) -> ScenarioResult {
        ScenarioResult {
            name: "x".into(),
            title: "x".into(),
            category: "x".into(),
            status: Status::Error,
            score: 0,
            max_score: 1,
            message: message.into(),
            failure: None,
            hint: None,
            timeline: Vec::new(),
            backtrace: None,
            stopped_at: None,
        }
    }

    fn run(ending: Ending, stderr: &str) -> Run {
        Run {
            events: Vec::new(),
            ending,
            stderr: stderr.into(),
        }
    }

    const LIMITS: Limits = Limits {
        cpu_seconds: Some(10),
        memory_bytes: Some(512 * 1024 * 1024),
    };

    #[test]
    fn the_cpu_limit_is_named_and_counts_as_a_timeout() {
        let judged = crashed("the process was killed by signal 24 during step 2 (an abort?)");
        let r = explain_limits(judged, &run(Ending::Signaled(libc::SIGXCPU), ""), &LIMITS);
        assert_eq!(r.status, Status::Timeout);
        assert_eq!(
            r.message,
            "the process used up its CPU time (the limit is 10 s per scenario, all threads together) during step 2: an endless loop, or busy waiting?"
        );
    }

    #[test]
    fn the_memory_limit_is_named() {
        let judged = crashed("the process was killed by signal 6 during step 1 (an abort?)");
        let stderr = "memory allocation of 67108864 bytes failed\n";
        let r = explain_limits(
            judged,
            &run(Ending::Signaled(libc::SIGABRT), stderr),
            &LIMITS,
        );
        assert_eq!(r.status, Status::Error);
        assert!(
            r.message.starts_with(
                "the process ran out of memory (the limit is 512 MB per scenario) during step 1"
            ),
            "{}",
            r.message
        );
    }

    #[test]
    fn other_crashes_are_left_alone() {
        let judged = crashed("the process was killed by signal 11 during step 1 (an abort?)");
        let r = explain_limits(judged.clone(), &run(Ending::Signaled(11), ""), &LIMITS);
        assert_eq!(r.message, judged.message);
        let r = explain_limits(
            judged.clone(),
            &run(Ending::Signaled(libc::SIGXCPU), ""),
            &Limits::default(),
        );
        assert_eq!(r.message, judged.message);
    }
}
