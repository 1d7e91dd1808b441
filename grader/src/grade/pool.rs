//! Running a grading's scenarios `jobs` at a time, each in a process of its own.
//!
//! The scenarios that need only the lab's harness can start as soon as it is linked,
//! while cargo still builds the race harness: a [`Queue`] hands them out first and holds
//! the race checks back until the race harness is there ([`Queue::race_built`]). Once it
//! is, and once one of the other scenarios has ended (a probe: correct code ends it in
//! milliseconds, code that never ends teaches the race checks a shorter CPU limit), the
//! race checks go first, as each takes many times longer than any other scenario: with
//! more workers than race checks, started last they would finish alone while the other
//! workers sat idle (with 2 workers, the order measured neither faster nor slower).
//! Every scenario runs in its own process, so the order in which they start changes no
//! verdict, and the results keep the scenarios' own order. What a scenario shows of code
//! that never ends cuts the real-time limits of those that start after it ([`lessons`]).

mod lessons;

use std::path::Path;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex, MutexGuard};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{RunOptions, Selection, run_one};
use crate::build::{Harness, Race, Subject};
use crate::error::Error;
use crate::report::ScenarioResult;
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

    /// The next scenario to run, waiting for the race harness (and for the first other
    /// scenario to end) when only race checks are left; `None` when none is left or the
    /// grading stopped.
    fn next(&self) -> Option<Job> {
        let mut state = self.lock();
        loop {
            let left = |race: bool| {
                (0..self.races.len()).find(|&i| !state.started[i] && self.races[i] == race)
            };
            let probed = state.probed;
            let job = match (&state.race, left(true), left(false)) {
                (Pending::Stopped, _, _) => return None,
                (Pending::Ready(race), Some(i), _) if probed => Job::Race(i, race.clone()),
                (_, _, Some(i)) => Job::Plain(i),
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
        while done_rx.recv().is_ok() {
            bar.inc(1);
        }
        bar.finish_and_clear();
    });
    results.into_inner().unwrap_or_default()
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
        assert_eq!(
            all(&queue),
            [Job::Race(1, race()), Job::Race(3, race()), Job::Plain(2)]
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
}
