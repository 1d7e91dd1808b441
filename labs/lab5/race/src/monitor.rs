//! The properties checked on every schedule, as it runs, and what breaking each means, in
//! words.
//!
//! Partners are wrapped in [`Watched`], which notes every call that reaches a flow's
//! endpoint, and the alert sink in [`WatchedSink`], which notes every alert. Each time a
//! call or an alert arrives, and after each step, the monitor reads the schedule's record
//! up to now: the steps, the messages, and the transition records the race build of
//! `gateway_kit` notes as they are written. From these it checks:
//!
//! - no more calls reach a flow's endpoint in one HALF_OPEN round (from the record that
//!   starts it to the one that ends it) than the flow's `probes`;
//! - no more calls are inside a flow's endpoint at once than its bulkhead allows;
//! - each `Opened` alert follows a `CLOSED -> OPEN` record of its flow and each `Closed`
//!   alert a `HALF_OPEN -> CLOSED` record, one alert per record: never a second one, and
//!   (once a step's messages have returned or are held) none missing;
//! - each transition record of a flow starts where the one before it ended;
//! - the thread that calls a partner holds no lock of the code under test;
//! - an answer that comes back after the flow's state changed under its message (another
//!   message wrote a record of the flow while the call was out) writes no record: it is
//!   old news;
//! - a message gets `no_capacity` only when as many other messages of its flow as the
//!   bulkhead allows were out at once while it was: otherwise a slot was lost, given back
//!   fewer times than taken.
//!
//! The first property that breaks is kept; the schedule still runs to its end. A schedule
//! the runtime stops (every thread waiting, or one that never waits) is told by the
//! explorer (`race_explore::stops`) in the words of [`NEVER_HINT`] and [`BUSY_HINT`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use gateway_kit::{Alert, AlertLog, AlertSink, Message, Outcome, Partner};
use grader_protocol::Violation;
use race_explore::props::{self, Arrival, Arrivals, Calls, Rounds, Said};
use race_explore::record::{Reader, Seen, old_answer};
use race_std::sync::Arc;
use race_std::trace;

const PROBES_HINT: &str = "Decide \"this message is a probe\" and count it as handed out in one locked section (or one atomic compare-and-swap): a message that checks the count under the lock, lets it go, and adds itself under it again can be overtaken in between by another message that saw the same count.";
const LIMIT_HINT: &str = "Check the count and take the place in one step: under one lock (check and increment while holding it), or with one atomic compare-and-swap (or fetch_update). A load followed by a separate store or add lets two messages both see a free place.";
const ALERT_HINT: &str = "Send an alert for a change only from the message that made the change, decided under the same lock as the change: a message that checks the window, lets the lock go and then opens the circuit and alerts can do so a second time after another message already did.";
const MISSING_HINT: &str = "Every change from CLOSED to OPEN sends one Opened alert, and every change from HALF_OPEN to CLOSED one Closed alert, from the message that made the change.";
const RECORDS_HINT: &str = "Write each transition record while you still hold the lock under which the state changed, and record each outcome in the window under the same lock as the decision it feeds. A record written after the lock is let go can be overtaken by the next change's record.";
const OLD_HINT: &str = "Check the answer's ticket (the era it was admitted in) and act on it in the same locked section: a message that checks, lets the lock go and takes it again to record can find that another message changed the state in between, and then acts on an old answer.";
const SLOT_HINT: &str = "Give a slot back exactly once and in one step: a guard whose Drop does one atomic fetch_sub, or a decrement under the same lock that counts. A load followed by a separate store can overwrite a give-back that happened in between, and that slot is gone for good.";
const LOCK_HINT: &str = "Let go of every lock before calling the partner: decide under the lock, drop the guard, call, then lock again to learn from the answer. Name the guard in a block, or call drop(guard), so it ends before the call.";
/// The hint for a message that never returns.
pub const NEVER_HINT: &str = "A message waits for something that never comes: a lock held by a message that is itself waiting inside a partner (a lock held across the call), a place it waits for instead of returning no_capacity, or a lock it already holds (a std Mutex is not re-entrant).";
/// The hint for a thread that never waits.
pub const BUSY_HINT: &str = "A thread loops without ever waiting, for example spinning on an atomic until a place frees. Do not wait for a place at all: return no_capacity at once.";

/// What the monitor knows about one flow on the running schedule.
struct Watch {
    /// Its bulkhead's limit and its probes, from the plan.
    limit: u64,
    probes: u64,
    /// The calls at its endpoint.
    calls: Calls,
    /// `CLOSED -> OPEN` and `HALF_OPEN -> CLOSED` records so far.
    openings: usize,
    closings: usize,
    /// `Opened` and `Closed` alerts so far, and who sent the last of each.
    opened: usize,
    closed: usize,
    opened_by: Option<String>,
    closed_by: Option<String>,
}

impl Watch {
    fn new(limit: u64, probes: u64) -> Self {
        Self {
            limit,
            probes,
            calls: Calls::default(),
            openings: 0,
            closings: 0,
            opened: 0,
            closed: 0,
            opened_by: None,
            closed_by: None,
        }
    }
}

#[derive(Default)]
struct Monitor {
    /// The schedule's record, read as it grows.
    record: Reader,
    flows: BTreeMap<String, Watch>,
    /// For each message, its flow's state (as recorded) when the message first touched a
    /// lock or atomic of the code under test (about when the breaker decided on it), and
    /// the HALF_OPEN round it could be a probe of.
    arrived_in: Arrivals,
    found: Option<Violation>,
}

thread_local! {
    static MONITOR: RefCell<Monitor> = RefCell::new(Monitor::default());
    /// Each flow's bulkhead limit and probes, from the plan: the same on every schedule.
    static LIMITS: RefCell<BTreeMap<String, (u64, u64)>> = const { RefCell::new(BTreeMap::new()) };
}

/// Forgets the last schedule.
pub fn reset() {
    MONITOR.with_borrow_mut(|m| *m = Monitor::default());
}

/// The first property the running schedule broke, if any.
pub fn take() -> Option<Violation> {
    MONITOR.with_borrow_mut(|m| m.found.take())
}

/// Each flow's bulkhead limit and probes, by name.
pub fn set_limits(limits: BTreeMap<String, (u64, u64)>) {
    LIMITS.set(limits);
}

/// Checks what the last step wrote; with `settled`, also that every change so far has its
/// alert (every message of the step has returned or is held, and none panicked).
pub fn after_step(settled: bool) {
    MONITOR.with_borrow_mut(|m| {
        m.read_record();
        if settled {
            m.alerts_complete();
        }
    });
}

impl Monitor {
    fn report(&mut self, violation: Violation) {
        if self.found.is_none() {
            self.found = Some(violation);
        }
    }

    fn watch(&mut self, flow: &str) -> &mut Watch {
        self.flows.entry(flow.to_owned()).or_insert_with(|| {
            let (limit, probes) =
                LIMITS.with_borrow(|l| l.get(flow).copied().unwrap_or((u64::MAX, u64::MAX)));
            Watch::new(limit, probes)
        })
    }

    /// Reads the record from where it last stopped: steps, messages, transition records,
    /// and the first touch of each message on the code under test's locks and atomics.
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
                    let rounds = self.flows.get(&target).map_or(0, |w| w.calls.rounds());
                    self.arrived_in.insert(id, Arrival::new(state, rounds));
                }
            }
        }
        for stale in self.record.stale() {
            self.report(old_answer(&stale, format!("an answer to a message admitted before {}'s state last changed changes nothing", stale.target), OLD_HINT));
        }
        let limit = |flow: &str| LIMITS.with_borrow(|l| l.get(flow).map_or(u64::MAX, |l| l.0));
        for v in props::lost_slots(&mut self.record, limit, "no_capacity", SLOT_HINT) {
            self.report(v);
        }
    }

    /// A transition record `flow FROM TO`: a new round of probes, an opening or a closing.
    fn recorded(&mut self, flow: &str, from: &str, to: &str) {
        let watch = self.watch(flow);
        watch.calls.recorded(from, to);
        match (from, to) {
            ("CLOSED", "OPEN") => watch.openings += 1,
            ("HALF_OPEN", "CLOSED") => watch.closings += 1,
            _ => {}
        }
    }

    /// Message `id` reached `flow`'s endpoint.
    fn entered(&mut self, flow: &str, id: u64) {
        self.read_record();
        let step = self.record.step();
        let held = trace::held_by_me();
        // A message the breaker let through while CLOSED may reach the endpoint late,
        // after the circuit opened and a round of probes began: it is not a probe. Nor is
        // one of an earlier round's (with `open_for_ms` 0, a round can end and the next
        // begin before a probe of the first reaches the partner).
        let half_open = self.record.state(flow) == "HALF_OPEN";
        let arrived = self.arrived_in.get(&id).cloned();
        let watch = self.watch(flow);
        let (limit, probes) = (watch.limit, watch.probes);
        let (inside, probe_calls) =
            watch
                .calls
                .entered(id, half_open, arrived.as_ref(), Rounds::Counted);
        if !held.is_empty() {
            let partner = format!("{flow}'s partner");
            let v = props::called_holding(("gateway", &partner), step, id, &held, LOCK_HINT);
            self.report(v);
        }
        if inside.len() as u64 > limit {
            let v = props::bulkhead_limit(step, flow, limit, &inside, LIMIT_HINT);
            self.report(v);
        }
        if probe_calls.len() as u64 > probes {
            let said = Said {
                property: "probe_limit",
                expected: format!(
                    "at most {probes} probe{} reach {flow} in one HALF_OPEN round (its probes)",
                    if probes == 1 { "" } else { "s" }
                ),
                mark: format!("one probe too many at {flow}"),
                hint: PROBES_HINT,
            };
            let during = "in one HALF_OPEN round";
            let v = props::too_many_probes(said, step, (flow, during), &probe_calls);
            self.report(v);
        }
    }

    fn left(&mut self, flow: &str, id: u64) {
        if let Some(watch) = self.flows.get_mut(flow) {
            watch.calls.left(id);
        }
    }

    /// The gateway sent `alert`, from `task`.
    fn alerted(&mut self, alert: &Alert, task: Option<usize>) {
        self.read_record();
        let step = self.record.step();
        let writer = self.record.who(task);
        let flow = alert.flow().to_string();
        let watch = self.watch(&flow);
        let (kind, sent, changes, change, before) = match alert {
            Alert::Opened { .. } => {
                watch.opened += 1;
                let before = watch.opened_by.replace(writer.clone());
                (
                    "Opened",
                    watch.opened,
                    watch.openings,
                    "CLOSED -> OPEN",
                    before,
                )
            }
            Alert::Closed { .. } => {
                watch.closed += 1;
                let before = watch.closed_by.replace(writer.clone());
                (
                    "Closed",
                    watch.closed,
                    watch.closings,
                    "HALF_OPEN -> CLOSED",
                    before,
                )
            }
        };
        if sent <= changes {
            return;
        }
        // The story shows who sent the alert before this one, too.
        let mut about: Vec<String> = before.into_iter().collect();
        if !about.contains(&writer) {
            about.push(writer.clone());
        }
        self.report(Violation {
            property: "one_alert_per_change".into(),
            step: Some(step),
            expected: format!("one {kind} alert for each `{change}` record of {flow}"),
            observed: format!(
                "{writer} sent {kind} alert number {sent} for {flow}, which has {changes} `{change}` record{}",
                if changes == 1 { "" } else { "s" }
            ),
            hint: ALERT_HINT.into(),
            unexplorable: false,
            about,
            until: Some(trace::len()),
            mark: format!("{kind} alert number {sent}"),
        });
    }

    /// Every opening and closing so far has had its alert.
    fn alerts_complete(&mut self) {
        let step = self.record.step();
        let missing = self.flows.iter().find_map(|(flow, w)| {
            if w.opened < w.openings {
                Some((
                    flow.clone(),
                    "Opened",
                    w.opened,
                    w.openings,
                    "CLOSED -> OPEN",
                ))
            } else if w.closed < w.closings {
                Some((
                    flow.clone(),
                    "Closed",
                    w.closed,
                    w.closings,
                    "HALF_OPEN -> CLOSED",
                ))
            } else {
                None
            }
        });
        let Some((flow, kind, sent, changes, change)) = missing else {
            return;
        };
        self.report(Violation {
            property: "one_alert_per_change".into(),
            step: Some(step),
            expected: format!("one {kind} alert for each `{change}` record of {flow}"),
            observed: format!(
                "{flow} has {changes} `{change}` record{} but {sent} {kind} alert{}, and every message of the step has returned or is held",
                if changes == 1 { "" } else { "s" },
                if sent == 1 { "" } else { "s" }
            ),
            hint: MISSING_HINT.into(),
            unexplorable: false,
            about: Vec::new(),
            until: None,
            mark: String::new(),
        });
    }
}

/// A partner whose calls the monitor watches.
pub struct Watched {
    inner: Arc<dyn Partner>,
}

impl Watched {
    /// Watches `inner`.
    pub fn new(inner: Arc<dyn Partner>) -> Self {
        Self { inner }
    }
}

/// A call inside an endpoint: dropping it, however the call ends, notes that it left.
struct Inside {
    flow: String,
    id: u64,
}

impl Drop for Inside {
    fn drop(&mut self) {
        trace::note("leave", self.id, self.flow.clone());
        MONITOR.with_borrow_mut(|m| m.left(&self.flow, self.id));
    }
}

impl Partner for Watched {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn send(&self, message: &Message) -> Outcome {
        let flow = message.flow.to_string();
        trace::note("enter", message.id, flow.clone());
        MONITOR.with_borrow_mut(|m| m.entered(&flow, message.id));
        let _inside = Inside {
            flow,
            id: message.id,
        };
        self.inner.send(message)
    }
}

/// The alert log, with every alert noted in the schedule's record and checked.
pub struct WatchedSink {
    log: AlertLog,
}

impl WatchedSink {
    /// Watches the alerts that go into `log`.
    pub fn new(log: AlertLog) -> Self {
        Self { log }
    }
}

impl AlertSink for WatchedSink {
    fn notify(&self, alert: Alert) {
        let what = match &alert {
            Alert::Opened { flow, .. } => format!("{flow} opened"),
            Alert::Closed { flow, .. } => format!("{flow} closed"),
        };
        trace::note("alert", 0, what);
        let task = trace::me();
        MONITOR.with_borrow_mut(|m| m.alerted(&alert, task));
        self.log.notify(alert);
    }
}
