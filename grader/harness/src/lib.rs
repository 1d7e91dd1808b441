//! What every lab's harness shares: the child process in which code under test runs.
//!
//! The grader builds a tiny program per crate under test (a lab's `harness/main`), starts
//! one process per scenario, writes the scenario's [`Plan`] on standard input and reads
//! [`Event`]s back from the results file the plan names. This crate is the lab-neutral
//! part of that program: reading the plan, writing events (panics included), and the loop
//! that carries out the actions and records each step. A lab's harness supplies a
//! [`Driver`]: how to build the code under test, carry out the lab's actions and observe
//! the result; [`Requests`] runs the requests its actions send, each on a thread. A
//! panic, a deadlock, an endless loop or an abort costs one scenario, never the grader.

mod adapter;
pub mod blocked;
mod events;
pub mod requests;
mod times;

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use grader_protocol::{Event, Plan, RequestOutcome, StepRecord, StepRequests, StuckRecord};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use events::emit;
pub use requests::{LookKeys, Notifier, Requests};

/// Exit status: every action ran.
const FINISHED: i32 = 0;
/// Exit status: the plan was unreadable or inconsistent (a bug in the kit, not in the
/// code under test).
const BAD_PLAN: i32 = 2;
/// Exit status: the code under test panicked.
const PANICKED: i32 = 11;
/// Exit status: requests got stuck inside the code under test.
const STUCK: i32 = 12;

/// A lab's side of the harness: its world (fake clock, scripted targets, the code under
/// test) and what each action does to it.
pub trait Driver {
    /// The lab's target settings, as the plan carries them.
    type Settings: DeserializeOwned;
    /// The lab's actions.
    type Action: DeserializeOwned;
    /// What the lab observes after each action.
    type Observation: Serialize;

    /// Fake-clock milliseconds now.
    fn now_ms(&self) -> u64;
    /// Carries out one action; returns the ids of the requests it concerns.
    fn act(&mut self, action: &Self::Action) -> Result<Vec<u64>, Failure>;
    /// How each of `ids` ended so far (`held` for one parked in a target).
    fn outcomes(&self, ids: &[u64]) -> Vec<RequestOutcome>;
    /// The observation after an action. Calls into the code under test must catch their
    /// own panics and make [`Driver::panicked`] true.
    fn observe(&self) -> Self::Observation;
    /// The observation, or why it could not be made: a driver whose look at the code
    /// under test can block (it takes the code's locks) runs it with [`Requests::read`]
    /// and reports [`Failure::Stuck`] with `reading` set when it blocked for good.
    fn try_observe(&self) -> Result<Self::Observation, Failure> {
        Ok(self.observe())
    }
    /// Whether the code under test has panicked so far.
    fn panicked(&self) -> bool;
}

/// Why an action could not finish.
#[derive(Debug)]
pub enum Failure {
    /// Requests neither returned nor parked in time (`step` and `at_ms` are filled in by
    /// the loop).
    Stuck(StuckRecord),
    /// The plan asks for something impossible: a bug in the kit.
    BadPlan(String),
}

/// Reads the plan, builds the driver with `start`, runs every action, and ends the
/// process. `scripted` tells panics that a fixture was scripted to raise (not the code
/// under test's fault) from the others.
pub fn main<D: Driver>(
    name: &str,
    start: impl FnOnce(&Plan<D::Settings, D::Action>) -> D,
    scripted: fn(&(dyn Any + Send)) -> bool,
) -> ! {
    let status = match read_plan::<D::Settings, D::Action>() {
        Ok(plan) => {
            events::install_panic_hook(scripted);
            run(name, &plan, start)
        }
        Err(why) => {
            eprintln!("{name}: {why}");
            BAD_PLAN
        }
    };
    // Leave at once, without unwinding or joining: requests still held inside a target,
    // or stuck inside the code under test, must not keep the process alive.
    #[allow(clippy::disallowed_methods)]
    std::process::exit(status)
}

fn read_plan<S: DeserializeOwned, A: DeserializeOwned>() -> Result<Plan<S, A>, String> {
    let plan = grader_protocol::read_plan::<S, A>()?;
    events::open(&plan.results_path)
        .map_err(|e| format!("cannot open {}: {e}", plan.results_path))?;
    Ok(plan)
}

/// Writes when the requests of action `step` were sent and returned, and how those still
/// out wait, if the driver's requests know the fake clock.
fn write_times<D: Driver>(driver: &D, step: usize) {
    let Some((fresh, out)) = times::take() else {
        return;
    };
    let waiting = driver.outcomes(&out);
    let word = |id: u64| {
        let o = waiting.iter().find(|o| o.id == id)?;
        Some(o.outcome.clone())
    };
    let requests = times::merge(fresh, &out, word);
    emit::<()>(&Event::Requests(StepRequests { step, requests }));
}

/// Runs every action and returns the process exit status.
fn run<D: Driver>(
    name: &str,
    plan: &Plan<D::Settings, D::Action>,
    start: impl FnOnce(&Plan<D::Settings, D::Action>) -> D,
) -> i32 {
    emit::<()>(&Event::Ready);
    let mut driver = match catch_unwind(AssertUnwindSafe(|| start(plan))) {
        Ok(driver) => driver,
        Err(_) => return PANICKED,
    };
    for (step, action) in plan.actions.iter().enumerate() {
        events::set_step(step);
        let at_ms = driver.now_ms();
        emit::<()>(&Event::Begin { step, at_ms });
        let ids = match driver.act(action) {
            Ok(ids) => ids,
            Err(Failure::Stuck(stuck)) => {
                write_times(&driver, step);
                emit::<()>(&Event::Stuck(StuckRecord {
                    step,
                    at_ms,
                    ..stuck
                }));
                return STUCK;
            }
            Err(Failure::BadPlan(why)) => {
                eprintln!("{name}: step {step}: {why}");
                return BAD_PLAN;
            }
        };
        emit::<()>(&Event::Observing { step });
        let mut ids = ids;
        ids.sort_unstable();
        let observation = match driver.try_observe() {
            Ok(observation) => observation,
            Err(Failure::Stuck(stuck)) => {
                emit::<()>(&Event::Stuck(StuckRecord {
                    step,
                    at_ms,
                    reading: true,
                    ..stuck
                }));
                return STUCK;
            }
            Err(Failure::BadPlan(why)) => {
                eprintln!("{name}: step {step}: {why}");
                return BAD_PLAN;
            }
        };
        let record = StepRecord {
            step,
            at_ms,
            requests: driver.outcomes(&ids),
            observation,
        };
        write_times(&driver, step);
        emit(&Event::Step(record));
        if driver.panicked() {
            return PANICKED;
        }
    }
    emit::<()>(&Event::Finished);
    FINISHED
}
