//! The properties checked on every schedule, as it runs, and what breaking each means, in
//! words.
//!
//! Each shop instance's dependencies are wrapped ([`crate::watched`]): the monitor hears
//! of every call that reaches a dependency and of the moment it is answered, and of every
//! wait on the clock, with its reason and deadline. After each step it is shown who sleeps
//! on the clock. It also reads the schedule's record: the steps, the requests, the lane
//! (instance) each acts for, the transition records the race build of `relay_kit` notes.
//! A lane is one dependency as one instance protects it. From these it checks:
//!
//! - `slot_limit`: no more calls of a lane in progress at the dependency than its
//!   `max_active` (a slot taken twice, or given back before its call ends);
//! - `queue_limit`: no more requests of a lane waiting in its queue than `max_queued`;
//! - `first_come_first_served`: a request that reaches the dependency while one sent
//!   before it still waits in the queue, and that one still waits once the step settles;
//! - `no_lost_wakeup`: once a step settles, no request sleeps in a lane's queue while one of
//!   its slots is free, and no request waits in the queue longer than it may stay;
//! - `queue_expired_on_time`: no request leaves the queue with `queue_expired` before it
//!   has waited longer than `max_queue_wait` or its budget has ended;
//! - `probe_limit`: no more calls reach a dependency in one HALF_OPEN round of a lane than
//!   its `probes` (calls let in while CLOSED, and probes of an earlier round, are late,
//!   not probes);
//! - `no_lock_during_call`: a request holds no lock of the shop while it calls the
//!   dependency or waits on the clock;
//! - `records_in_order`: each record of a lane starts where the one before it ended.
//!
//! The first property that breaks is kept; the schedule still runs to its end. A schedule
//! the runtime stops (every thread waiting, or one that never waits) is told by the
//! explorer (`race_explore::stops`) in the words of [`NEVER_HINT`] and [`BUSY_HINT`].

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use grader_protocol::Violation;
use race_explore::props::{self, Arrival, Arrivals, Calls, Rounds, Said};
use race_explore::props::{listed as requests, named as request};
use race_explore::record::{Reader, Seen};
use race_std::trace::{self, Held};
use shipping_kit::{Waiting, format_clock_time};

const SLOT_HINT: &str = "Check for a free slot and take it in one locked section: a request that sees a free slot, lets the lock go and takes the slot under the lock again can be overtaken in between by another that saw the same slot. And give a slot back only when its call really ends: hand it to the call (call.keep_until_done(slot)).";
const QUEUE_HINT: &str = "Count the queue and join it in one locked section: a request that sees room in the queue, lets the lock go and joins under the lock again can be overtaken in between by another that saw the same room.";
const FIFO_HINT: &str = "Give a freed slot to the oldest queued request under the queue's lock (it stays taken, and that request is told), or let only the head of the queue take a free slot. A slot given back to the pool, with every queued request woken, goes to whichever of them the scheduler runs first.";
const LOST_HINT: &str = "Change the queue's state first, under its lock, and wake the queue after: a wake-up sent before the change it announces can be seen, and slept through, before the change is made. And wake every queued request (notify_all) when the change is for one in particular: notify_one may wake another.";
const EARLY_HINT: &str = "A wake-up only means \"look again\": wait in a loop, and leave the queue only when the clock has reached the moment you computed (just after joined + max_queue_wait, or the budget's end). A request woken because a slot went to another one, or for any other change, looks, finds nothing for it, and waits again.";
const LATE_HINT: &str = "Leave the queue on time: wait until just after joined + max_queue_wait (shipping_kit::just_after), or until the budget's end if that comes first, and never later. A wait whose deadline is later sleeps through the moment the request had to leave.";
const PROBES_HINT: &str = "Decide \"this attempt is a probe\" and count it as handed out in one locked section: an attempt that checks the count under the lock, lets it go and adds itself under it again can be overtaken in between by another that saw the same count.";
const RECORDS_HINT: &str = "Write each transition record while you still hold the lock under which the state changed: a record written after the lock is let go can be overtaken by the next change's record.";
const LOCK_HINT: &str = "Let go of every lock of the shop before calling the vendor and before waiting on the clock: decide under the lock, drop the guard, then call or wait. A lock held across a wait holds up every request that needs it for as long as the wait lasts.";
/// The hint for a request that never returns.
pub const NEVER_HINT: &str = "A request waits for something that never comes: a lock held by a request that is itself waiting (a lock held across a wait on the clock), or a lock it already holds (a std Mutex is not re-entrant). Every wait of lab 6 goes through the injected clock, with a deadline: in the queue, in a pause, for an answer.";
/// The hint for a thread that never waits.
pub const BUSY_HINT: &str = "A thread loops without ever waiting: a queue loop that waits again until a deadline that has already come returns at once, every time. Wait until the first instant the request has waited too long (shipping_kit::just_after(joined + max_queue_wait)), and leave when the clock reaches it.";

/// A lane's limits, from the plan.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// `max_active`.
    pub max_active: u64,
    /// `max_queued`.
    pub max_queued: u64,
    /// `max_queue_wait_ms`.
    pub max_queue_wait: Duration,
    /// `budget_ms`.
    pub budget: Duration,
    /// `probes`.
    pub probes: u64,
}

/// What the monitor knows about one lane on the running schedule.
struct Lane {
    /// The dependency's name.
    target: String,
    limits: Limits,
    /// Calls at the dependency: in progress now, and in this HALF_OPEN round.
    calls: Calls,
}

/// What the monitor knows about one request.
struct Request {
    lane: String,
    /// When it was sent: its budget starts then.
    sent_at: Duration,
    /// Requests of its lane asleep in the queue when it was sent: ahead of it.
    ahead: Vec<u64>,
    /// Since when it waits in the queue, in its current attempt.
    queued_since: Option<Duration>,
    /// Calls it has made so far.
    calls: u64,
}

/// A request that reached the dependency while others, ahead of it, still waited in the
/// queue: who, ahead of whom (with their calls then), and where the story ends.
struct Overtaking {
    by: u64,
    ahead: Vec<(u64, u64)>,
    step: usize,
    until: usize,
}

#[derive(Default)]
struct Monitor {
    /// The schedule's record, read as it grows.
    record: Reader,
    lanes: BTreeMap<String, Lane>,
    requests: BTreeMap<u64, Request>,
    /// For each request, its lane's state (as recorded) when it first touched a lock or
    /// atomic of the code under test, and the HALF_OPEN round it could be a probe of.
    arrived_in: Arrivals,
    /// Overtakings to judge once the step settles.
    overtakings: Vec<Overtaking>,
    /// Fake time, as the world moves it.
    now: Duration,
    found: Option<Violation>,
}

thread_local! {
    static MONITOR: RefCell<Monitor> = RefCell::new(Monitor::default());
}

/// Forgets the last schedule.
pub fn reset() {
    MONITOR.with_borrow_mut(|m| *m = Monitor::default());
}

/// The first property the running schedule broke, if any.
pub fn take() -> Option<Violation> {
    MONITOR.with_borrow_mut(|m| m.found.take())
}

/// The lanes of this schedule: each one's name (as records chain it), dependency and
/// limits.
pub fn lanes(lanes: Vec<(String, String, Limits)>) {
    MONITOR.with_borrow_mut(|m| {
        for (name, target, limits) in lanes {
            let lane = Lane {
                target,
                limits,
                calls: Calls::default(),
            };
            m.lanes.insert(name, lane);
        }
    });
}

/// Request `id` was sent on `lane` at `at`, while `ahead` waited in that lane's queue.
pub fn sent(id: u64, lane: &str, at: Duration, ahead: Vec<u64>) {
    MONITOR.with_borrow_mut(|m| {
        let request = Request {
            lane: lane.to_owned(),
            sent_at: at,
            ahead,
            queued_since: None,
            calls: 0,
        };
        m.requests.insert(id, request);
    });
}

/// The world moved the clock to `now`.
pub fn time_is(now: Duration) {
    MONITOR.with_borrow_mut(|m| m.now = m.now.max(now));
}

/// Request `id` calls `lane`'s dependency.
pub fn calling(lane: &str, id: u64) {
    let held = trace::held_by_me();
    MONITOR.with_borrow_mut(|m| m.calling(lane, id, &held));
}

/// Request `id`'s call at `lane`'s dependency has its answer.
pub fn answered(lane: &str, id: u64) {
    MONITOR.with_borrow_mut(|m| {
        if let Some(lane) = m.lanes.get_mut(lane) {
            lane.calls.left(id);
        }
    });
}

/// The running task starts to wait on the clock for `why` until `deadline`, while
/// `queued[lane]` others sleep in each lane's queue.
pub fn waits(why: Waiting, deadline: Duration, queued: &BTreeMap<String, usize>) {
    let held = trace::held_by_me();
    let task = trace::me();
    MONITOR.with_borrow_mut(|m| {
        m.read_record();
        if let Some(id) = m.record.carried(task) {
            m.waits(id, why, deadline, &held, queued);
        }
    });
}

/// Request `id` returned `outcome` (in the scenario's words).
pub fn returned(id: u64, outcome: &str) {
    if outcome == "queue_expired" {
        MONITOR.with_borrow_mut(|m| m.expired(id));
    }
}

/// The lane request `id` was sent on, if it was sent.
pub fn lane_of(id: u64) -> Option<String> {
    MONITOR.with_borrow(|m| m.requests.get(&id).map(|r| r.lane.clone()))
}

/// The step has settled: `asleep` are the requests that wait on the clock now, and what
/// for.
pub fn settled(asleep: &[(u64, Waiting)]) {
    MONITOR.with_borrow_mut(|m| {
        m.read_record();
        m.settled(asleep);
    });
}

/// Every held call was answered and the clock moved through every deadline, and `asleep`
/// still wait on it, at `now`.
pub fn keeps_waiting(asleep: &[(u64, Waiting)], now: Duration) {
    MONITOR.with_borrow_mut(|m| {
        let Some(&(first, why)) = asleep.first() else {
            return;
        };
        let ids: Vec<u64> = asleep.iter().map(|(id, _)| *id).collect();
        let target = m
            .requests
            .get(&first)
            .and_then(|r| m.lanes.get(&r.lane))
            .map_or(String::new(), |l| l.target.clone());
        let words = (
            "every request returns once every held call is answered and every deadline has passed".to_owned(),
            format!(
                "at {} {} still waited on the clock (request #{first} {}), after every held call was answered and the clock had moved through {WIND_DOWN} deadlines",
                format_clock_time(now),
                requests(&ids),
                waiting_for(why, &target)
            ),
        );
        let about = ids.iter().map(|&i| request(i)).collect();
        let mut v = m.violation("every_request_returns", words, NEVER_HINT, about, String::new());
        v.until = None;
        m.report(v);
    });
}

/// How many deadlines the end of a schedule moves through before it gives up on requests
/// that keep waiting.
pub const WIND_DOWN: usize = 1000;

/// ` of instance 2` for a lane of a scenario with several instances, nothing otherwise.
fn of(lane: &str, target: &str) -> String {
    match lane.strip_prefix(target).map(str::trim) {
        Some(rest) if !rest.is_empty() => {
            format!(" of {}", rest.trim_start_matches('(').trim_end_matches(')'))
        }
        _ => String::new(),
    }
}

/// `2 calls`, `1 call`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What a wait is for, in words.
fn waiting_for(why: Waiting, target: &str) -> String {
    match why {
        Waiting::Queue => "in the queue".to_owned(),
        Waiting::Answer => format!("for {target}'s answer"),
        Waiting::Pause => "in a pause before a retry".to_owned(),
    }
}

impl Monitor {
    fn report(&mut self, violation: Violation) {
        if self.found.is_none() {
            self.found = Some(violation);
        }
    }

    /// A violation of `property` found during the running step, about `about`, its story
    /// ending now.
    fn violation(
        &self,
        property: &str,
        words: (String, String),
        hint: &str,
        about: Vec<String>,
        mark: String,
    ) -> Violation {
        props::broken(property, self.record.step(), words, hint, about, mark)
    }

    /// Reads the record from where it last stopped: steps, requests, lanes, transition
    /// records, and the first touch of each request on the code under test.
    fn read_record(&mut self) {
        for seen in self.record.read() {
            if let Some(v) = seen.out_of_order(self.record.step(), RECORDS_HINT) {
                self.report(v);
            }
            match seen {
                Seen::Record {
                    target, from, to, ..
                } => self.recorded(&target, &from, &to),
                Seen::FirstTouch { id, target, state } => {
                    // The round it could be a probe of: the one running, or the next if
                    // the circuit is OPEN.
                    let rounds = self.lanes.get(&target).map_or(0, |l| l.calls.rounds());
                    self.arrived_in.insert(id, Arrival::new(state, rounds));
                }
            }
        }
    }

    /// A transition record of `lane`: a new round of probes begins, or one ends.
    fn recorded(&mut self, lane: &str, from: &str, to: &str) {
        if let Some(lane) = self.lanes.get_mut(lane) {
            lane.calls.recorded(from, to);
        }
    }

    /// Request `id` calls `name`'s dependency, holding `held`.
    fn calling(&mut self, name: &str, id: u64, held: &[Held]) {
        self.read_record();
        let half_open = self.record.state(name) == "HALF_OPEN";
        let arrived = self.arrived_in.get(&id).cloned();
        let Some(lane) = self.lanes.get_mut(name) else {
            return;
        };
        // A request the breaker let through while CLOSED may reach the dependency late,
        // after waiting in the queue while the circuit opened and half-opened: it is not a
        // probe. Nor is one of an earlier round.
        let (in_flight, probe_calls) =
            lane.calls
                .entered(id, half_open, arrived.as_ref(), Rounds::Counted);
        let (limits, target) = (lane.limits, lane.target.clone());
        let ahead = match self.requests.get_mut(&id) {
            Some(r) => {
                r.calls += 1;
                r.queued_since = None;
                r.ahead.clone()
            }
            None => Vec::new(),
        };
        let step = self.record.step();
        if !held.is_empty() {
            let v = props::called_holding(("shop", &target), step, id, held, LOCK_HINT);
            self.report(v);
        }
        let of = of(name, &target);
        if in_flight.len() as u64 > limits.max_active {
            let said = Said {
                property: "slot_limit",
                expected: format!(
                    "at most {}{of} in progress at {target} (max_active)",
                    counted(limits.max_active as usize, "call", "calls"),
                ),
                mark: format!(
                    "{} calls in progress; the limit is {}",
                    in_flight.len(),
                    limits.max_active
                ),
                hint: SLOT_HINT,
            };
            self.report(props::crowded(said, step, (&target, &of), &in_flight));
        }
        if probe_calls.len() as u64 > limits.probes {
            let said = Said {
                property: "probe_limit",
                expected: format!(
                    "at most {}{of} reach {target} in one HALF_OPEN round (probes)",
                    counted(limits.probes as usize, "probe", "probes"),
                ),
                mark: format!("one probe too many at {target}"),
                hint: PROBES_HINT,
            };
            let during = "in one HALF_OPEN round";
            let v = props::too_many_probes(said, step, (&target, during), &probe_calls);
            self.report(v);
        }
        // Those sent before it that still wait in the queue, with the calls they had made.
        let ahead: Vec<(u64, u64)> = ahead
            .iter()
            .filter_map(|a| {
                let r = self.requests.get(a)?;
                r.queued_since.is_some().then_some((*a, r.calls))
            })
            .collect();
        if !ahead.is_empty() {
            self.overtakings.push(Overtaking {
                by: id,
                ahead,
                step: self.record.step(),
                until: trace::len(),
            });
        }
    }

    /// Request `id` starts to wait on the clock for `why` until `deadline`, holding `held`,
    /// while `queued[lane]` others sleep in each lane's queue.
    fn waits(
        &mut self,
        id: u64,
        why: Waiting,
        deadline: Duration,
        held: &[Held],
        queued: &BTreeMap<String, usize>,
    ) {
        let now = self.now;
        let Some(r) = self.requests.get_mut(&id) else {
            return;
        };
        if why == Waiting::Queue {
            r.queued_since.get_or_insert(now);
        } else {
            r.queued_since = None;
        }
        if deadline <= now {
            // It returns at once: no wait at all.
            return;
        }
        let (name, sent_at, joined) = (r.lane.clone(), r.sent_at, r.queued_since.unwrap_or(now));
        let Some(lane) = self.lanes.get(&name) else {
            return;
        };
        let (limits, target) = (lane.limits, lane.target.clone());
        if !held.is_empty() {
            let during = "a request waits on the clock";
            let did = format!("waited {}", waiting_for(why, &target));
            let mark = "waits, still holding a lock";
            let step = self.record.step();
            let v = props::lock_held(("shop", during), step, id, &did, held, LOCK_HINT, mark);
            self.report(v);
        }
        if why != Waiting::Queue {
            return;
        }
        let others = queued.get(&name).copied().unwrap_or(0);
        if others as u64 >= limits.max_queued {
            let words = (
                format!(
                    "at most {} waiting in the queue for {target}{} (max_queued)",
                    counted(limits.max_queued as usize, "request", "requests"),
                    of(&name, &target)
                ),
                format!(
                    "request #{id} began to wait in the queue while {} already waited there",
                    counted(others, "other", "others")
                ),
            );
            let mark = "one request too many in the queue".to_owned();
            let v = self.violation("queue_limit", words, QUEUE_HINT, vec![request(id)], mark);
            self.report(v);
        }
        // The grader's clock moves in whole milliseconds: still in time after exactly
        // max_queue_wait, gone by the next millisecond, and by the budget's end.
        let leave_by = (joined + limits.max_queue_wait + Duration::from_millis(1))
            .min(sent_at + limits.budget);
        if deadline > leave_by {
            let words = (
                format!(
                    "a request that joined the queue for {target}{} at {} has left it by {} (max_queue_wait, or its budget's end)",
                    of(&name, &target),
                    format_clock_time(joined),
                    format_clock_time(leave_by),
                ),
                format!(
                    "request #{id} waits in the queue until {}",
                    format_clock_time(deadline)
                ),
            );
            let mark = "sleeps past the moment it must leave".to_owned();
            let v = self.violation("no_lost_wakeup", words, LATE_HINT, vec![request(id)], mark);
            self.report(v);
        }
    }

    /// Request `id` returned `queue_expired`.
    fn expired(&mut self, id: u64) {
        let now = self.now;
        let Some(r) = self.requests.get(&id) else {
            return;
        };
        let Some(lane) = self.lanes.get(&r.lane) else {
            return;
        };
        let (limits, target, of) = (lane.limits, lane.target.clone(), of(&r.lane, &lane.target));
        let budget_ended = now >= r.sent_at + limits.budget;
        let waited = r.queued_since.map(|t| now.saturating_sub(t));
        if budget_ended || waited.is_some_and(|w| w > limits.max_queue_wait) {
            return;
        }
        let words = (
            format!(
                "a request leaves the queue for {target}{of} with queue_expired only once it has waited longer than max_queue_wait ({} ms) or its budget has ended",
                limits.max_queue_wait.as_millis()
            ),
            match waited {
                Some(w) => format!(
                    "request #{id} got queue_expired at {}, {} ms after it joined the queue",
                    format_clock_time(now),
                    w.as_millis()
                ),
                None => format!(
                    "request #{id} got queue_expired at {} without waiting in the queue",
                    format_clock_time(now)
                ),
            },
        );
        let mark = "leaves the queue too early".to_owned();
        let v = self.violation(
            "queue_expired_on_time",
            words,
            EARLY_HINT,
            vec![request(id)],
            mark,
        );
        self.report(v);
    }

    /// The step has settled, with `asleep` waiting on the clock.
    fn settled(&mut self, asleep: &[(u64, Waiting)]) {
        let queued: Vec<u64> = asleep
            .iter()
            .filter(|(_, why)| *why == Waiting::Queue)
            .map(|(id, _)| *id)
            .collect();
        for overtaking in std::mem::take(&mut self.overtakings) {
            let passed: Vec<u64> = overtaking
                .ahead
                .iter()
                .filter(|(a, calls)| {
                    queued.contains(a) && self.requests.get(a).is_some_and(|r| r.calls == *calls)
                })
                .map(|(a, _)| *a)
                .collect();
            let Some(&first) = passed.first() else {
                continue;
            };
            let by = overtaking.by;
            let Some(lane) = self.requests.get(&by).map(|r| r.lane.clone()) else {
                continue;
            };
            let target = self
                .lanes
                .get(&lane)
                .map_or(String::new(), |l| l.target.clone());
            let mut about: Vec<String> = passed.iter().map(|&a| request(a)).collect();
            about.extend([request(by), "the grader".to_owned()]);
            self.report(Violation {
                property: "first_come_first_served".into(),
                step: Some(overtaking.step),
                expected: format!(
                    "a slot{} that frees at {target} while requests wait in the queue goes to the one that has waited longest",
                    of(&lane, &target)
                ),
                observed: format!(
                    "request #{by} reached {target} while {}, queued before #{by} was sent, waited in the queue, and still waits",
                    requests(&passed)
                ),
                hint: FIFO_HINT.into(),
                unexplorable: false,
                about,
                until: Some(overtaking.until),
                mark: format!("reaches {target} ahead of request #{first}"),
            });
        }
        let lost = self.lanes.iter().find_map(|(name, lane)| {
            let sleeping: Vec<u64> = queued
                .iter()
                .copied()
                .filter(|id| self.requests.get(id).is_some_and(|r| &r.lane == name))
                .collect();
            let busy = lane.calls.busy() as u64;
            (!sleeping.is_empty() && busy < lane.limits.max_active).then(|| {
                (
                    name.clone(),
                    lane.target.clone(),
                    sleeping,
                    busy,
                    lane.limits,
                )
            })
        });
        if let Some((name, target, mut sleeping, busy, limits)) = lost {
            sleeping.sort_unstable();
            let words = (
                format!(
                    "no request sleeps in the queue for {target}{} while one of its slots is free",
                    of(&name, &target)
                ),
                format!(
                    "once the step had settled, {} still slept in the queue while {target} had {busy} calls{} in progress (max_active {})",
                    requests(&sleeping),
                    of(&name, &target),
                    limits.max_active
                ),
            );
            // The grader's task answers held calls: its part (a slot coming back) is part
            // of the story.
            let mut about: Vec<String> = sleeping.iter().map(|&i| request(i)).collect();
            about.push("the grader".to_owned());
            let v = self.violation("no_lost_wakeup", words, LOST_HINT, about, String::new());
            self.report(v);
        }
    }
}
