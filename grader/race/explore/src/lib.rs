//! The part of a race harness that is the same for every lab.
//!
//! A lab's race harness is a child process that speaks the normal harness's protocol (a
//! plan on standard input, events in the results file it names) and has the same entry
//! point, so the grader links the lab's harness program file with it. What this crate does
//! for every lab:
//!
//! - reads the plan ([`main`]) and explores its schedules on shuttle's PCT scheduler with
//!   the plan's seed ([`explore`]): the same code and seed run the same schedules in the same
//!   order, so a schedule's number names it for good;
//! - keeps each schedule's events ([`output`]) and writes the outcomes no earlier schedule
//!   had, for the grader to judge, and the first schedule that broke a property;
//! - tells that schedule's story ([`story`]: who took which lock where, with the call
//!   stacks of a second run of it), and words the schedules the runtime itself stopped
//!   ([`stops`]: every thread waiting, or one never waiting);
//! - checks the properties more than one lab has ([`props`]: calls at once per target,
//!   probes per HALF_OPEN round, no lock held during a call, slots given back once), in
//!   the words a lab gives it.
//!
//! What is the lab's: the world of one schedule (its fixtures, its fake clock, the code
//! under test, its steps), its monitor (asked for what broke after each schedule), which
//! names the shared properties it checks and adds its own, and its words ([`Lab`]).

pub mod explore;
pub mod output;
pub mod props;
pub mod record;
pub mod requests;
pub mod stops;
pub mod story;

use std::sync::Arc;

use grader_protocol::{Plan, Violation};
use serde::de::DeserializeOwned;

pub use stops::Stops;
pub use story::Kit;

/// What the explorer needs from a lab's race harness besides the world of a schedule.
#[derive(Clone, Copy, Debug)]
pub struct Lab {
    /// The harness's name, for the messages of a plan it cannot read (its package name).
    pub name: &'static str,
    /// Which source files are the kit's, not the code under test's.
    pub kit: Kit,
    /// Its words for a schedule the runtime stopped.
    pub stops: Stops,
    /// Whether a panic's payload is one a fixture was scripted to raise (not the code under
    /// test's fault).
    pub scripted_panic: fn(&(dyn std::any::Any + Send)) -> bool,
    /// Forgets what the monitor saw on the last schedule.
    pub reset: fn(),
    /// The first property the schedule that just ran broke, if any.
    pub take: fn() -> Option<Violation>,
}

/// Reads the plan, explores its schedules (each one runs `world` on the plan), and ends the
/// process.
pub fn main<S, A, W>(lab: &'static Lab, world: W) -> !
where
    S: DeserializeOwned + Send + Sync + 'static,
    A: DeserializeOwned + Send + Sync + 'static,
    W: Fn(&Plan<S, A>) + Send + Sync + 'static,
{
    let status = match read_plan::<S, A>() {
        Ok(plan) => {
            story::set_kit(lab.kit);
            output::install_panic_hook(lab.scripted_panic);
            match plan.race.clone() {
                Some(race) => {
                    let plan = Arc::new(plan);
                    explore::run(lab, &race, Arc::new(move || world(&plan)))
                }
                None => 2,
            }
        }
        Err(why) => {
            eprintln!("{}: {why}", lab.name);
            2
        }
    };
    #[allow(clippy::disallowed_methods)]
    std::process::exit(status)
}

fn read_plan<S: DeserializeOwned, A: DeserializeOwned>() -> Result<Plan<S, A>, String> {
    let plan = grader_protocol::read_plan::<S, A>()?;
    if plan.race.is_none() {
        return Err("the plan has no race settings: it is for the normal harness".into());
    }
    output::open(&plan.results_path)
        .map_err(|e| format!("cannot open {}: {e}", plan.results_path))?;
    Ok(plan)
}
