//! Race checks: scenarios (`"race": true`) whose steps run on a schedule-exploring
//! runtime, once per explored schedule, so that a race shows up on every grading run
//! instead of on the runs where the threads happen to interleave badly.
//!
//! - [`crate::build::race`]: the crate under test built a second time on the kit's `std`
//!   for the explorer (`grader/race/std`), beside the normal harness, in the same cargo
//!   call; [`crate::build::statics`]: code the explorer cannot run, found by line;
//! - the lab's race harness (its plug-in's `race_harness`) explores the schedules of one
//!   scenario and writes each new outcome, and the first schedule that breaks a property
//!   with its story;
//! - [`crate::judge::race`]: every outcome judged as a normal run, the broken property
//!   reported; [`crate::judge::story`]: the schedule told as who locked what, where.
//!
//! The explorer starts from the lab's fixed seed, so the same code explores the same
//! schedules in the same order: "schedule 14" always names the same interleaving, and
//! `grader check <lab> --scenario NAME --schedule 14` runs exactly it.

use std::time::Duration;

use grader_protocol::RacePlan;

use super::RunOptions;
use crate::build::{Race, Subject};
use crate::error::Error;
use crate::judge::limits::explain_limits;
use crate::judge::race::{Context, judge_race};
use crate::lab::RaceSettings;
use crate::report::{ScenarioResult, Status};
use crate::run::plan;
use crate::run::runner::{self, Limits};
use crate::scenario::Scenario;

/// How many times the lab's wall-clock limit a race run may take. The explorer ends a
/// stuck schedule itself (every task blocked is a deadlock, too many steps a busy loop)
/// and the CPU limit ends a loop that never touches a lock, so the wall clock is only the
/// last safety net here: loose, so that a loaded machine (an audit running many
/// scenarios at once) cannot turn a verdict into a timeout.
const WALL_CLOCK_FACTOR: u64 = 4;

/// What race scenarios need from the lab.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The lab's name, for the replay command.
    pub lab: String,
    /// How to explore.
    pub settings: RaceSettings,
}

/// Runs race scenario `scenario` with the race harness `race`, and judges it.
pub fn run_one(
    race: &Race,
    subject: &Subject,
    scenario: &Scenario,
    opts: &RunOptions,
    limits: &Limits,
) -> Result<ScenarioResult, Error> {
    let Some(Settings { lab, settings }) = &opts.race else {
        return Ok(cannot_map(
            scenario,
            &["the lab has no race settings".into()],
        ));
    };
    let exe = match race {
        Race::Ready(exe) => exe,
        Race::CannotMap(problems) => return Ok(cannot_map(scenario, problems)),
        Race::None => {
            return Ok(cannot_map(
                scenario,
                &[format!("{lab} has no race harness")],
            ));
        }
    };
    let timeout_ms = opts.timeout_ms.saturating_mul(WALL_CLOCK_FACTOR);
    let explore = |only: Option<u64>| {
        let mut plan = plan(scenario, opts.stuck_after_ms);
        plan.race = Some(RacePlan {
            schedules: settings.schedules,
            depth: settings.depth,
            seed: settings.seed,
            max_steps: settings.max_steps,
            only,
        });
        let sandbox = subject.sandbox();
        runner::run(
            exe,
            plan,
            Duration::from_millis(timeout_ms),
            *limits,
            false,
            sandbox,
        )
    };
    let run = explore(opts.schedule)?;
    let shown = |p: &str| subject.shown(p);
    let context = Context {
        scenario,
        crate_dir: &subject.crate_dir,
        lab,
        timeout_ms,
        shown: &shown,
        replay: opts.schedule,
    };
    let mut judged = judge_race(&context, &run);
    let mut told = None;
    if let Some(index) = judged.untold {
        // An expectation failed on a schedule written without its story: run exactly that
        // schedule again to tell it.
        let again = explore(Some(index))?;
        judged = judge_race(&context, &again);
        told = Some(again);
    }
    let result = explain_limits(judged.result, &run, limits);
    if let Some(album) = &opts.album {
        album.keep_race(
            &subject.label,
            &context,
            told.as_ref().unwrap_or(&run),
            &result,
        );
    }
    Ok(result)
}

/// The result of a race scenario for code the runtime cannot run.
fn cannot_map(scenario: &Scenario, problems: &[String]) -> ScenarioResult {
    let first = problems.first().map_or("", String::as_str);
    let more = match problems.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    ScenarioResult {
        name: scenario.name.clone(),
        title: scenario.title.clone(),
        category: scenario.category.clone(),
        status: Status::Error,
        score: 0,
        max_score: scenario.points,
        message: format!("the race checks cannot run this code: {first}{more}"),
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
    }
}
