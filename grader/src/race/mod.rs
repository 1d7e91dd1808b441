//! Race checks: scenarios (`"race": true`) whose steps run on a schedule-exploring
//! runtime, once per explored schedule, so that a race shows up on every grading run
//! instead of on the runs where the threads happen to interleave badly.
//!
//! - [`build`]: the crate under test built a second time against `race_std` (the kit's
//!   `std` on the runtime), beside the normal harness, in the same cargo call;
//! - [`scan`]: code the runtime cannot run (a `static` lock), named by line before building;
//! - the race harness (`grader/race/lab4`) explores the schedules of one scenario and
//!   writes each new outcome, and the first schedule that breaks a property with its story;
//! - [`verdict`]: every outcome judged as a normal run, the broken property in words;
//! - [`story`]: the schedule that failed, as a few lines of who locked what, where.
//!
//! The explorer is shuttle's PCT scheduler with the lab's fixed seed, so the same code
//! explores the same schedules in the same order: "schedule 14" always names the same
//! interleaving, and `grader check lab4 --scenario NAME --schedule 14` runs exactly it.

pub mod build;
pub mod scan;
pub mod story;
pub mod verdict;

use std::time::Duration;

pub use build::Race;
use grader_protocol::RacePlan;

use crate::build::Subject;
use crate::check::RunOptions;
use crate::error::Error;
use crate::lab::RaceSettings;
use crate::report::{ScenarioResult, Status};
use crate::runner::{self, Limits};
use crate::scenario::Scenario;

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
    let (exe, Some(Settings { lab, settings })) = (race, &opts.race) else {
        return Ok(cannot_map(
            scenario,
            &["the lab has no race settings".into()],
        ));
    };
    let exe = match exe {
        Race::Ready(exe) => exe,
        Race::CannotMap(problems) => return Ok(cannot_map(scenario, problems)),
        Race::None => {
            return Ok(cannot_map(
                scenario,
                &[format!("{lab} has no race harness")],
            ));
        }
    };
    let explore = |only: Option<u64>| {
        let mut plan = crate::check::plan(scenario, opts);
        plan.race = Some(RacePlan {
            schedules: settings.schedules,
            depth: settings.depth,
            seed: settings.seed,
            max_steps: settings.max_steps,
            only,
        });
        runner::run(
            exe,
            plan,
            Duration::from_millis(opts.timeout_ms),
            *limits,
            false,
        )
    };
    let run = explore(opts.schedule)?;
    let shown = |p: &str| subject.shown(p);
    let context = verdict::Context {
        scenario,
        subject,
        lab,
        timeout_ms: opts.timeout_ms,
        shown: &shown,
    };
    let mut judged = verdict::judge(&context, &run);
    if let Some(index) = judged.untold {
        // An expectation failed on a schedule written without its story: run exactly that
        // schedule again to tell it.
        let again = explore(Some(index))?;
        judged = verdict::judge(&context, &again);
    }
    Ok(crate::check::explain_limits(judged.result, &run, limits))
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
        hint: None,
        timeline: Vec::new(),
        backtrace: None,
        stopped_at: None,
        interleaving: None,
    }
}
