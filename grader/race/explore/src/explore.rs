//! Exploring the schedules of one plan.
//!
//! Shuttle's PCT scheduler, seeded with the plan's seed, picks each schedule; the same
//! seed and the same code explore the same schedules in the same order, so "schedule 14"
//! names one interleaving for good. Each schedule runs the whole plan (the lab's
//! [`World`]).
//!
//! Written to the results file, per schedule, only when worth it: the first schedule whose
//! steps came out as no earlier one did (the grader judges each such outcome), and the
//! schedule that broke a property, with its story. That schedule is then run a second time
//! from the start with call stacks recorded, so the story can say which function took
//! each lock; the replay of a schedule someone asked for (`only`) has them at once.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use grader_protocol::{RacePlan, TraceEvent, Violation};
use race_std::trace::{self, What};
use shuttle::scheduler::{PctScheduler, Schedule, Scheduler, Task, TaskId};
use shuttle::{Config, FailurePersistence, MaxSteps, Runner};

use crate::output::Event;
use crate::{Lab, output, stops, story};

/// Exit status: every schedule explored, or the asked-for one replayed.
const EXPLORED: i32 = 0;

/// How one exploration went.
#[derive(Default)]
struct Progress {
    /// The number of the schedule running (1-based).
    index: u64,
    /// Record call stacks on this schedule.
    stacks_on: Option<u64>,
    /// Stop before the next schedule.
    stop: bool,
    /// The outcomes seen, as keys.
    seen: BTreeSet<u64>,
    /// The schedule that broke a property: its number, what broke, its events and story.
    broke: Option<(u64, Violation, Vec<Event>, Vec<TraceEvent>)>,
    /// Outcomes to write: schedule number and events.
    outcomes: Vec<(u64, Vec<Event>)>,
    /// The story of the schedule recorded with call stacks.
    told: Option<Vec<TraceEvent>>,
}

thread_local! {
    static PROGRESS: RefCell<Progress> = RefCell::new(Progress::default());
}

/// The PCT scheduler, stopping early when a schedule broke a property, and numbering the
/// schedules as they start.
struct Explorer {
    pct: PctScheduler,
    left: u64,
}

impl Scheduler for Explorer {
    fn new_execution(&mut self) -> Option<Schedule> {
        let stop = PROGRESS.with_borrow(|p| p.stop);
        if stop || self.left == 0 {
            return None;
        }
        self.left -= 1;
        PROGRESS.with_borrow_mut(|p| p.index += 1);
        self.pct.new_execution()
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        self.pct.next_task(runnable, current, is_yielding)
    }

    fn next_u64(&mut self) -> u64 {
        self.pct.next_u64()
    }
}

/// One schedule of the plan: the lab's world, start to end.
pub type World = Arc<dyn Fn() + Send + Sync>;

/// Explores the plan's schedules, writes what the grader needs, and returns the exit status.
pub fn run(lab: &'static Lab, race: &RacePlan, world: World) -> i32 {
    let ran = match race.only {
        Some(only) => {
            let ran = explore(lab, &world, race, only, Some(only));
            write_only(only);
            ran
        }
        None => {
            let ran = explore(lab, &world, race, race.schedules, None);
            let broke_on = PROGRESS.with_borrow(|p| p.broke.as_ref().map(|b| b.0));
            write_outcomes();
            if let Some(index) = broke_on {
                explain(lab, &world, race, index);
            }
            ran
        }
    };
    output::write(&[Event::Explored { schedules: ran }]);
    EXPLORED
}

/// Runs up to `count` schedules (stopping at the first that breaks a property), recording
/// call stacks on schedule `stacks_on`. Returns how many ran.
fn explore(
    lab: &'static Lab,
    world: &World,
    race: &RacePlan,
    count: u64,
    stacks_on: Option<u64>,
) -> u64 {
    PROGRESS.with_borrow_mut(|p| {
        *p = Progress {
            stacks_on,
            ..Progress::default()
        }
    });
    let explorer = Explorer {
        pct: PctScheduler::new_from_seed(
            race.seed,
            race.depth.max(1) as usize,
            usize::try_from(count).unwrap_or(usize::MAX),
        ),
        left: count,
    };
    let mut config = Config::new();
    // Deep code under test must not overflow a task's stack: a megabyte, as a small thread.
    config.stack_size = 1 << 20;
    config.failure_persistence = FailurePersistence::None;
    config.max_steps = MaxSteps::FailAfter(usize::try_from(race.max_steps).unwrap_or(usize::MAX));
    config.silence_warnings = true;
    let runner = Runner::new(explorer, config);
    let body = Arc::clone(world);
    let failed = catch_unwind(AssertUnwindSafe(|| {
        runner.run(move || schedule(lab, &body));
    }));
    if let Err(payload) = failed {
        // The runtime stopped a schedule: every thread was waiting, or one never stopped.
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        stopped(lab, &message, race.max_steps);
    }
    PROGRESS.with_borrow(|p| p.index)
}

/// One schedule, start to end.
fn schedule(lab: &Lab, world: &World) {
    let (index, stacks) = PROGRESS.with_borrow(|p| (p.index, p.stacks_on == Some(p.index)));
    (lab.reset)();
    let _ = output::take();
    // A story tells only the locks and atomics of the code under test: only theirs need
    // the stack that names the function that took them.
    trace::start(stacks.then_some(|o: &trace::Object| !story::kit_made(o)));
    world();
    let events = output::take();
    let record = trace::finish();
    let found = (lab.take)();
    PROGRESS.with_borrow_mut(|p| {
        if let Some(violation) = found {
            p.broke = Some(broken(index, violation, events, &record));
            p.stop = true;
            return;
        }
        if p.stacks_on == Some(index) {
            p.told = Some(story::tell(&record, None).0);
        }
        // A panic of the code under test ends its verdict: no need to look further.
        if events.iter().any(|e| matches!(e, Event::Panic(_))) {
            p.stop = true;
        }
        if p.stacks_on == Some(index) || p.seen.insert(key(&events)) {
            p.outcomes.push((index, events));
        }
    });
    trace::recycle(record);
}

/// The schedule `index` broke `violation`: its events, and the violation with its story
/// cut where it broke.
fn broken(
    index: u64,
    mut violation: Violation,
    events: Vec<Event>,
    record: &[trace::Event],
) -> (u64, Violation, Vec<Event>, Vec<TraceEvent>) {
    let (story, until) = story::tell(record, violation.until);
    violation.until = until;
    (index, violation, events, story)
}

/// The runtime stopped the running schedule with `message`: a deadlock (threads waiting
/// that nothing will wake), a thread that ran `max_steps` steps without waiting, or a panic
/// that escaped a thread.
fn stopped(lab: &Lab, message: &str, max_steps: u64) {
    let mut events = output::take();
    let record = trace::finish();
    let found = (lab.take)();
    let step = record.iter().rev().find_map(|e| match &e.what {
        What::Note {
            kind: "step", id, ..
        } => usize::try_from(*id).ok(),
        _ => None,
    });
    let violation = found.or_else(|| {
        if message.contains("max_steps") {
            Some(stops::busy_loop(&record, step, max_steps, &lab.stops))
        } else if message.starts_with("deadlock") {
            Some(stops::never_returns(&record, step, &lab.stops))
        } else {
            None
        }
    });
    PROGRESS.with_borrow_mut(|p| {
        let index = p.index;
        p.stop = true;
        match violation {
            Some(violation) => p.broke = Some(broken(index, violation, events, &record)),
            None => {
                // Not the code under test's doing as far as the runtime can tell: report it
                // as a panic of that schedule.
                events.push(Event::Panic(grader_protocol::PanicRecord {
                    step,
                    message: format!("the schedule explorer stopped: {message}"),
                    location: None,
                    thread: "main".into(),
                    backtrace: None,
                }));
                p.outcomes.push((index, events));
            }
        }
    });
}

/// A schedule's outcome as far as the grader judges it: the steps' records with the
/// outcomes of simultaneous requests counted, not numbered, and any panic. Hashed with
/// the standard library's fixed-key hasher: the same outcome has the same key in every run.
fn key(events: &[Event]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    for e in events {
        match e {
            Event::Step(r) => {
                let mut outcomes: Vec<&str> =
                    r.requests.iter().map(|o| o.outcome.as_str()).collect();
                outcomes.sort_unstable();
                (r.step, r.at_ms, outcomes, &r.observation).hash(&mut h);
            }
            Event::Panic(p) => (&p.message, &p.location).hash(&mut h),
            Event::Finished => "finished".hash(&mut h),
            _ => {}
        }
    }
    h.finish()
}

/// Writes every outcome found, and the schedule that broke a property.
fn write_outcomes() {
    PROGRESS.with_borrow(|p| {
        for (index, events) in &p.outcomes {
            let mut out = vec![Event::Schedule { index: *index }];
            out.extend(events.iter().cloned());
            output::write(&out);
        }
        if let Some((index, violation, events, story)) = &p.broke {
            let mut out = vec![Event::Schedule { index: *index }];
            out.extend(events.iter().cloned());
            out.push(Event::Violation(violation.clone()));
            out.push(Event::Trace(story.clone()));
            output::write(&out);
        }
    });
}

/// Runs the schedules again up to the one that broke a property, recording everything and
/// call stacks on it, and writes that story and what broke (they replace the first: the
/// same schedule, told in more detail).
fn explain(lab: &'static Lab, world: &World, race: &RacePlan, index: u64) {
    explore(lab, world, race, index, Some(index));
    PROGRESS.with_borrow(|p| {
        if let Some((again, violation, _, story)) = &p.broke {
            if *again == index {
                // The detailed record has more events: the violation's cut follows it.
                output::write(&[
                    Event::Violation(violation.clone()),
                    Event::Trace(story.clone()),
                ]);
            }
        }
    });
}

/// Writes the schedule asked for: its outcome, or what broke on it (or on an earlier
/// schedule, which stopped the replay), with its story.
fn write_only(index: u64) {
    PROGRESS.with_borrow(|p| {
        if let Some((at, violation, events, story)) = &p.broke {
            let mut out = vec![Event::Schedule { index: *at }];
            out.extend(events.iter().cloned());
            out.push(Event::Violation(violation.clone()));
            out.push(Event::Trace(story.clone()));
            output::write(&out);
            return;
        }
        if let Some((_, events)) = p.outcomes.iter().find(|(at, _)| *at == index) {
            let mut out = vec![Event::Schedule { index }];
            out.extend(events.iter().cloned());
            if let Some(story) = &p.told {
                out.push(Event::Trace(story.clone()));
            }
            output::write(&out);
        }
    });
}
