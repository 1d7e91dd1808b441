//! Running a grading's scenarios `jobs` at a time, each in a process of its own.
//!
//! The scenarios that need only the lab's harness can start as soon as it is linked,
//! while cargo still builds the race harness: a [`Queue`] hands them out first and holds
//! the race checks back until the race harness is there ([`Queue::race_built`]) and every
//! other scenario has started. So the ordinary scenarios' verdicts are in first, in the
//! time they take alone, and on a terminal a line says so while the race checks, each
//! many times longer than any other scenario, still run ([`first_verdicts`]); what the
//! other scenarios show of code that never ends has cut the race checks' limits by then
//! ([`lessons`]). Every scenario runs in its own process, so the order in which they start
//! changes no verdict, and the results keep the scenarios' own order.

mod lessons;

use std::path::Path;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex, MutexGuard};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{RunOptions, Selection, run_one};
use crate::build::{Harness, Race, Subject};
use crate::error::Error;
use crate::report::{ScenarioResult, Status};
use crate::scenario::Scenario;
use lessons::Lessons;

/// The scenarios of a grading, handed out to the workers one at a time.
pub struct Queue {
    /// Whether each scenario is a race check.
    races: Vec<bool>,
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    /// Whether each scenario was handed out.
    started: Vec<bool>,
    /// The race harness.
    race: Pending,
    /// Whether a scenario that is not a race check has ended (or there is none): race
    /// checks wait for it, so that what it shows of code that never ends ([`lessons`])
    /// cuts their limits too.
    probed: bool,
}

/// The race harness, as far as the build has got.
#[derive(Clone, Debug)]
enum Pending {
    /// Still building.
    Building,
    /// Built, or why there is none.
    Ready(Race),
    /// The grading stops: the build failed after all. No more scenarios start.
    Stopped,
}

/// One scenario to run: its index, and the race harness for a race check.
#[derive(Debug, PartialEq, Eq)]
enum Job {
    Plain(usize),
    Race(usize, Race),
}

impl Queue {
    /// A queue of `scenarios` whose race harness is `race`, or still building when `None`.
    pub fn new(scenarios: &[Scenario], race: Option<Race>) -> Queue {
        Queue::of(scenarios.iter().map(|s| s.race).collect(), race)
    }

    /// A queue of scenarios of which those marked in `races` are race checks.
    fn of(races: Vec<bool>, race: Option<Race>) -> Queue {
        Queue {
            state: Mutex::new(State {
                started: vec![false; races.len()],
                race: race.map_or(Pending::Building, Pending::Ready),
                probed: races.iter().all(|&race| race),
            }),
            races,
            changed: Condvar::new(),
        }
    }

    /// The build ended: with the race harness (or why there is none), or, on `None`, in a
    /// way that stops the grading. Only the first call counts.
    pub fn race_built(&self, race: Option<Race>) {
        let mut state = self.lock();
        if matches!(state.race, Pending::Building) {
            state.race = race.map_or(Pending::Stopped, Pending::Ready);
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Scenario `i` ended. The first one that is not a race check lets the race checks
    /// start.
    fn ended(&self, i: usize) {
        if self.races.get(i) == Some(&false) {
            let mut state = self.lock();
            state.probed = true;
            drop(state);
            self.changed.notify_all();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next scenario to run: the others before the race checks; when only race checks
    /// are left, waiting for the race harness and for the first other scenario to end.
    /// `None` when none is left or the grading stopped.
    fn next(&self) -> Option<Job> {
        let mut state = self.lock();
        loop {
            let left = |race: bool| {
                (0..self.races.len()).find(|&i| !state.started[i] && self.races[i] == race)
            };
            let probed = state.probed;
            let job = match (&state.race, left(true), left(false)) {
                (Pending::Stopped, _, _) => return None,
                (_, _, Some(i)) => Job::Plain(i),
                (Pending::Ready(race), Some(i), None) if probed => Job::Race(i, race.clone()),
                (_, Some(_), None) => {
                    state = self
                        .changed
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    continue;
                }
                (_, None, None) => return None,
            };
            let (Job::Plain(i) | Job::Race(i, _)) = &job;
            state.started[*i] = true;
            return Some(job);
        }
    }
}

/// Runs the scenarios of `selection` as `queue` (made of them) hands them out, on `main`
/// or the race harness, `opts.jobs` at a time, counting finished scenarios on standard
/// error (when it is a terminal). One result per scenario, in order; `None` for a
/// scenario that was not run because the grading stopped.
pub fn run(
    queue: &Queue,
    main: &Path,
    subject: &Subject,
    selection: &Selection,
    opts: &RunOptions,
) -> Vec<Option<Result<ScenarioResult, Error>>> {
    let scenarios = &selection.scenarios;
    let results: Mutex<Vec<Option<Result<ScenarioResult, Error>>>> =
        Mutex::new((0..scenarios.len()).map(|_| None).collect());
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let lessons = Lessons::default();
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1).min(scenarios.len().max(1)) {
            let done_tx = done_tx.clone();
            let results = &results;
            let lessons = &lessons;
            scope.spawn(move || {
                while let Some(job) = queue.next() {
                    let (i, race) = match job {
                        Job::Plain(i) => (i, Race::None),
                        Job::Race(i, race) => (i, race),
                    };
                    let harness = Harness {
                        main: main.to_path_buf(),
                        race,
                    };
                    let scenario = &scenarios[i];
                    let limits = &selection.limits;
                    let plan = lessons.plan(scenario, opts, limits);
                    let outcome = run_one(&harness, subject, scenario, &plan.opts, &plan.limits)
                        .and_then(|result| {
                            match lessons.learn(scenario, &plan, (opts, limits), result) {
                                Some(result) => Ok(result),
                                None => run_one(&harness, subject, scenario, opts, limits),
                            }
                        });
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(outcome);
                    }
                    queue.ended(i);
                    let _ = done_tx.send(());
                }
            });
        }
        drop(done_tx);
        // Counts finished scenarios on standard error, redrawn in place, and clears itself
        // so the report starts on a clean line; hidden off a terminal.
        let bar = ProgressBar::with_draw_target(
            Some(scenarios.len() as u64),
            ProgressDrawTarget::stderr(),
        );
        bar.set_style(
            ProgressStyle::with_template("  scenario {pos} of {len} done")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        // Ends when every worker has ended, however many scenarios ran.
        let mut told = false;
        while done_rx.recv().is_ok() {
            bar.inc(1);
            if !told && let Ok(all) = results.lock() {
                if let Some(line) = first_verdicts(scenarios, &all) {
                    bar.println(line);
                    told = true;
                }
            }
        }
        bar.finish_and_clear();
    });
    results.into_inner().unwrap_or_default()
}

/// Once every scenario but the race checks has a result and a race check has none: a
/// line that gives those verdicts while the race checks run (shown on a terminal only,
/// above the progress count). The report that follows is the same either way.
fn first_verdicts(
    scenarios: &[Scenario],
    results: &[Option<Result<ScenarioResult, Error>>],
) -> Option<String> {
    let done = |i: usize| results.get(i).is_some_and(Option::is_some);
    let races = (0..scenarios.len()).filter(|&i| scenarios[i].race);
    let running = races.filter(|&i| !done(i)).count();
    let plain: Vec<usize> = (0..scenarios.len())
        .filter(|&i| !scenarios[i].race)
        .collect();
    if running == 0 || plain.is_empty() || !plain.iter().all(|&i| done(i)) {
        return None;
    }
    let mut points = (0, 0);
    let mut failed = Vec::new();
    for &i in &plain {
        match results.get(i) {
            Some(Some(Ok(r))) => {
                points.0 += r.score;
                points.1 += r.max_score;
                if r.status != Status::Passed {
                    failed.push(r.name.as_str());
                }
            }
            _ => failed.push(scenarios[i].name.as_str()),
        }
    }
    let checks = if running == 1 {
        "race check"
    } else {
        "race checks"
    };
    let verdict = match failed.as_slice() {
        [] => format!("all {} passed", plain.len()),
        some => {
            let shown: Vec<&str> = some.iter().take(3).copied().collect();
            let more = some.len() - shown.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "{} of {} passed; not passed: {}{more}",
                plain.len() - some.len(),
                plain.len(),
                shown.join(", ")
            )
        }
    };
    Some(format!(
        "  first verdicts: scenarios {verdict} ({} of {} points); {running} {checks} still running, the report follows when they end",
        points.0, points.1
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn race() -> Race {
        Race::Ready(PathBuf::from("/race"))
    }

    fn all(queue: &Queue) -> Vec<Job> {
        std::iter::from_fn(|| queue.next()).collect()
    }

    #[test]
    fn with_the_race_harness_built_every_scenario_is_handed_out_once_race_checks_after_a_probe() {
        let queue = Queue::of(vec![false, true, false, true], Some(race()));
        assert_eq!(queue.next(), Some(Job::Plain(0)));
        // A race check ending is no probe; the first other scenario ending is.
        queue.ended(1);
        assert_eq!(queue.next(), Some(Job::Plain(2)));
        std::thread::scope(|s| {
            // Only race checks are left and no probe has ended: the worker waits.
            let waiting = s.spawn(|| queue.next());
            queue.ended(0);
            assert_eq!(waiting.join().ok().flatten(), Some(Job::Race(1, race())));
        });
        assert_eq!(all(&queue), [Job::Race(3, race())]);
        let queue = Queue::of(vec![false, true, false, true], Some(race()));
        assert_eq!(queue.next(), Some(Job::Plain(0)));
        queue.ended(0);
        // The other scenarios go before the race checks, whose verdicts come last.
        assert_eq!(
            all(&queue),
            [Job::Plain(2), Job::Race(1, race()), Job::Race(3, race())]
        );
        // Race checks alone need no probe.
        let queue = Queue::of(vec![true, true], Some(race()));
        assert_eq!(all(&queue), [Job::Race(0, race()), Job::Race(1, race())]);
    }

    #[test]
    fn while_the_race_harness_builds_the_others_start_and_race_checks_wait_for_it() {
        let queue = Queue::of(vec![true, false, true, false], None);
        assert_eq!(queue.next(), Some(Job::Plain(1)));
        assert_eq!(queue.next(), Some(Job::Plain(3)));
        queue.ended(1);
        std::thread::scope(|s| {
            // Only race checks are left: the worker waits for the race harness rather
            // than end (which would leave them unrun).
            let waiting = s.spawn(|| queue.next());
            queue.race_built(Some(race()));
            assert_eq!(waiting.join().ok().flatten(), Some(Job::Race(0, race())));
        });
        assert_eq!(queue.next(), Some(Job::Race(2, race())));
        assert_eq!(queue.next(), None);
    }

    #[test]
    fn a_build_that_fails_late_stops_the_queue_and_releases_waiting_workers() {
        let queue = Queue::of(vec![true, false, false], None);
        assert_eq!(queue.next(), Some(Job::Plain(1)));
        queue.race_built(None);
        assert_eq!(
            queue.next(),
            None,
            "no scenario starts after the build failed"
        );
        // A later report of the race harness changes nothing.
        queue.race_built(Some(race()));
        assert_eq!(queue.next(), None);
        let queue = Queue::of(vec![true], None);
        std::thread::scope(|s| {
            let waiting = s.spawn(|| queue.next());
            queue.race_built(None);
            assert_eq!(waiting.join().ok().flatten(), None);
        });
    }

    #[test]
    fn the_first_verdicts_are_told_once_every_other_scenario_is_in_and_a_race_check_is_not() {
        let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let labs = crate::labs::registered();
        // Whichever lab the kit holds first (a student edition holds one).
        let mut names: Vec<String> = std::fs::read_dir(kit.join("labs"))
            .expect("the kit's labs")
            .flatten()
            .filter(|e| e.path().join("lab.json").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let lab = names
            .iter()
            .find_map(|name| crate::lab::Lab::load(&labs, &kit, name).ok())
            .expect("a lab of the kit loads");
        let selection = crate::grade::select(&lab, false, &[]).expect("its scenarios");
        let scenarios = &selection.scenarios;
        assert!(scenarios.iter().any(|s| s.race) && scenarios.iter().any(|s| !s.race));
        let passed = |i: usize| {
            let mut r = super::super::not_compiled(&selection).swap_remove(i);
            r.status = Status::Passed;
            r.score = r.max_score;
            Some(Ok(r))
        };
        let mut results: Vec<Option<Result<ScenarioResult, Error>>> =
            (0..scenarios.len()).map(|_| None).collect();
        let plain: Vec<usize> = (0..scenarios.len())
            .filter(|&i| !scenarios[i].race)
            .collect();
        let (last, others) = plain.split_last().expect("ordinary scenarios");
        for &i in others {
            results[i] = passed(i);
        }
        assert_eq!(
            first_verdicts(scenarios, &results),
            None,
            "one is still running"
        );
        results[*last] = passed(*last);
        let total: u32 = plain.iter().map(|&i| scenarios[i].points).sum();
        let races = scenarios.iter().filter(|s| s.race).count();
        assert_eq!(
            first_verdicts(scenarios, &results).as_deref(),
            Some(
                format!(
                    "  first verdicts: scenarios all {} passed ({total} of {total} points); {races} race checks still running, the report follows when they end",
                    plain.len()
                )
                .as_str()
            )
        );
        // A failure is named; once the race checks are in too, nothing is told early.
        let mut failing = passed(*last);
        if let Some(Ok(r)) = &mut failing {
            r.status = Status::Failed;
            r.score = 0;
        }
        results[*last] = failing;
        let line = first_verdicts(scenarios, &results).expect("a line");
        assert!(
            line.contains(&format!(
                "{} of {} passed; not passed: {}",
                plain.len() - 1,
                plain.len(),
                scenarios[*last].name
            )),
            "{line}"
        );
        for i in (0..scenarios.len()).filter(|&i| scenarios[i].race) {
            results[i] = passed(i);
        }
        assert_eq!(first_verdicts(scenarios, &results), None);
    }
}
