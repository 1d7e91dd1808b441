//! Lab 4's generated scenarios: drafts drawn from a seed, filled in from what the
//! reference did, and the rule a failed step checks.
//!
//! A draft moves both targets' settings off their defaults (any threshold, `retry_after`
//! to the millisecond, small bulkheads), then plays runs of every code each target
//! answers with (core banking's `B201` included, which claims never gives), crashing
//! targets, held calls released later (after the circuit may have opened and a trial
//! begun), and moves the clock to one millisecond before, at and after the end of a wait,
//! measured from when requests were sent or answered. Concurrent sends go only to a
//! target that holds calls: nothing drawn depends on thread timing.

use grader_lab::generate::{Moments, Released, expect_outcomes, kind};
use grader_lab::{Dice, Difference, Draft, StepRecord, TargetPlan};
use lab4_harness::systems;
use lab4_harness::wire::{Observation, Settings, TargetSnapshot};
use serde_json::{Map, Value, json};

use crate::steps::Step;

/// The most steps a draft has, and the most requests it sends in all.
const MAX_STEPS: usize = 30;
const MAX_REQUESTS: u64 = 100;

/// The draft of `seed`.
pub fn draft(seed: u64, defaults: &[TargetPlan<Settings>]) -> Draft {
    let mut dice = Dice::new(seed);
    let mut targets = Map::new();
    let mut lanes = Vec::new();
    for t in defaults {
        let settings = if dice.chance(80) {
            let s = Settings {
                failure_threshold: *dice.weighted(&[(3, 1), (3, 2), (3, 3), (2, 4), (1, 6)]),
                retry_after_ms: if dice.chance(5) {
                    0
                } else {
                    dice.millis(1, 40_000)
                },
                max_concurrent: *dice.weighted(&[(3, 1), (3, 2), (2, 3), (1, 5)]),
            };
            let s = if s == t.settings {
                Settings {
                    max_concurrent: 2,
                    ..s
                }
            } else {
                s
            };
            let (Value::Object(now), Value::Object(was)) = (json!(s), json!(t.settings)) else {
                continue;
            };
            let changed: Map<String, Value> = now
                .into_iter()
                .filter(|(k, v)| was.get(k) != Some(v))
                .collect();
            targets.insert(t.name.clone(), Value::Object(changed));
            s
        } else {
            t.settings
        };
        let codes: Vec<String> = systems::answers(&t.name)
            .iter()
            .map(|(code, _)| code.to_string())
            .collect();
        lanes.push(Lane {
            name: t.name.clone(),
            s: settings,
            codes,
            holding: false,
            may_hold: false,
            held: 0,
        });
    }
    let mut g = Drawing {
        dice,
        lanes,
        moments: Moments::default(),
        steps: Vec::new(),
        requests: 0,
    };
    g.play();
    Draft {
        targets,
        steps: g.steps,
    }
}

/// A target as the draft goes: its settings, the codes it answers with, and whether it
/// holds calls now or may have held some.
struct Lane {
    name: String,
    s: Settings,
    codes: Vec<String>,
    holding: bool,
    may_hold: bool,
    /// Requests sent while it held calls: at most this many are held.
    held: u64,
}

/// A draft being drawn.
struct Drawing {
    dice: Dice,
    lanes: Vec<Lane>,
    moments: Moments,
    steps: Vec<Value>,
    requests: u64,
}

impl Drawing {
    fn play(&mut self) {
        let main = self.dice.below(self.lanes.len() as u64) as usize;
        let moves = self.dice.range(5, 18);
        for _ in 0..moves {
            // The longest move takes eleven steps.
            if self.steps.len() + 11 > MAX_STEPS || self.requests >= MAX_REQUESTS {
                break;
            }
            let t = if self.dice.chance(75) {
                main
            } else {
                self.dice.below(self.lanes.len() as u64) as usize
            };
            match *self.dice.weighted(&[
                (24, 0),
                (10, 1),
                (10, 2),
                (18, 3),
                (12, 4),
                (14, 5),
                (12, 6),
            ]) {
                0 => self.burst(t),
                1 => self.hold(t),
                2 => self.release(t),
                3 => self.advance(t),
                4 => self.trial(t),
                5 => self.late_story(t),
                _ => self.slow_trial(t),
            }
        }
        if self.dice.chance(50) {
            for t in 0..self.lanes.len() {
                for _ in 0..self.lanes[t].held.min(3) {
                    if self.steps.len() < MAX_STEPS + 3 {
                        self.release(t);
                    }
                }
            }
        }
    }

    /// A code target `t` answers with, failures as often as the others.
    fn code(&mut self, t: usize) -> String {
        let codes = self.lanes[t].codes.clone();
        let failures: Vec<&String> = codes.iter().filter(|c| c.starts_with('E')).collect();
        let others: Vec<&String> = codes.iter().filter(|c| !c.starts_with('E')).collect();
        if self.dice.chance(55) || others.is_empty() {
            (*self.dice.pick(&failures)).clone()
        } else {
            (*self.dice.pick(&others)).clone()
        }
    }

    fn script(&mut self, t: usize, answer: &str) {
        self.lanes[t].holding = answer == "hold";
        let name = self.lanes[t].name.clone();
        self.steps
            .push(json!({"script": {"target": name, "answer": answer}}));
    }

    fn send(&mut self, t: usize, count: u64) {
        let count = count.clamp(1, MAX_REQUESTS.saturating_sub(self.requests).max(1));
        self.requests += count;
        if self.lanes[t].holding {
            self.lanes[t].may_hold = true;
            self.lanes[t].held += count;
        }
        let name = self.lanes[t].name.clone();
        let step = if count == 1 {
            json!({"send": {"target": name}})
        } else {
            json!({"send": {"target": name, "count": count}})
        };
        self.steps.push(step);
        self.moments.note(&self.lanes[t].name);
    }

    /// Sends `count` requests to target `t` at the same moment (it holds calls).
    fn send_together(&mut self, t: usize, count: u64) {
        self.requests += count;
        self.lanes[t].may_hold = true;
        self.lanes[t].held += count;
        let name = self.lanes[t].name.clone();
        self.steps
            .push(json!({"send_concurrent": {"target": name, "count": count}}));
        self.moments.note(&self.lanes[t].name);
    }

    /// A code (or a crash), then requests: around the threshold, with a second code some
    /// of the time so that a success or a business refusal falls among the failures.
    fn burst(&mut self, t: usize) {
        let threshold = u64::from(self.lanes[t].s.failure_threshold);
        let answer = if self.dice.chance(8) {
            "panic".to_owned()
        } else {
            self.code(t)
        };
        self.script(t, &answer);
        let count = self.dice.range(1, threshold + 1);
        self.send(t, count);
        if self.dice.chance(40) {
            let answer = self.code(t);
            self.script(t, &answer);
            let count = self.dice.range(1, threshold + 1);
            self.send(t, count);
        }
    }

    /// Held calls, one after the other or at once, up to a couple more than the bulkhead
    /// takes.
    fn hold(&mut self, t: usize) {
        if !self.lanes[t].holding {
            self.script(t, "hold");
        }
        let count = self.dice.range(1, self.lanes[t].s.max_concurrent + 2);
        if self.dice.chance(50) {
            self.send(t, count);
        } else {
            self.send_together(t, count);
        }
    }

    fn release(&mut self, t: usize) {
        if !self.lanes[t].may_hold {
            self.hold(t);
            return;
        }
        // One call at a time: calls released together return in whatever order their
        // threads run, which a mistaken relay could tell apart on one run and not the next.
        let name = self.lanes[t].name.clone();
        let answer = self.code(t);
        self.steps
            .push(json!({"release": {"target": name, "count": 1, "answer": answer}}));
        self.lanes[t].held = self.lanes[t].held.saturating_sub(1);
        self.moments.note(&self.lanes[t].name);
    }

    /// The clock to just before, at or just after the end of target `t`'s wait.
    fn advance(&mut self, t: usize) {
        let retry_after = self.lanes[t].s.retry_after_ms;
        let ms = if retry_after == 0 || self.dice.chance(15) {
            self.dice.millis(1, retry_after.saturating_mul(2).max(1000))
        } else {
            self.moments
                .toward(&mut self.dice, &self.lanes[t].name, retry_after)
        };
        self.advance_by(ms);
    }

    /// The end of the wait, then a trial that may be held, fail or succeed, and others
    /// behind it.
    fn trial(&mut self, t: usize) {
        self.advance(t);
        let answer = if self.dice.chance(35) {
            "hold".to_owned()
        } else {
            self.code(t)
        };
        self.script(t, &answer);
        let count = self.dice.range(1, 3);
        if answer == "hold" && self.dice.chance(50) {
            self.send_together(t, count);
        } else {
            self.send(t, count);
        }
    }

    /// Calls held while `CLOSED`, failures that open the circuit past them, then the old
    /// calls answering late: while it is `OPEN`, or while a trial is out.
    fn late_story(&mut self, t: usize) {
        let s = self.lanes[t].s;
        self.script(t, "hold");
        let old = self
            .dice
            .range(1, s.max_concurrent.saturating_sub(1).max(1));
        self.send(t, old);
        let failure = self.failure(t);
        self.script(t, &failure);
        let count = u64::from(s.failure_threshold) + self.dice.range(0, 1);
        self.send(t, count);
        if self.dice.chance(40) {
            self.release(t);
            if self.dice.chance(50) {
                self.advance(t);
            }
            return;
        }
        self.advance(t);
        let trial = if self.dice.chance(50) {
            "hold".to_owned()
        } else {
            self.code(t)
        };
        self.script(t, &trial);
        let count = self.dice.range(1, 2);
        self.send(t, count);
        self.release(t);
        if self.dice.chance(50) {
            self.release(t);
        }
    }

    /// A trial that answers late, with a failure: the next wait starts from its answer.
    fn slow_trial(&mut self, t: usize) {
        let s = self.lanes[t].s;
        let failure = self.failure(t);
        self.script(t, &failure);
        let count = u64::from(s.failure_threshold);
        self.send(t, count);
        self.advance(t);
        self.script(t, "hold");
        self.send(t, 1);
        let later = self.dice.millis(1, s.retry_after_ms.max(2));
        self.advance_by(later);
        let answer = if self.dice.chance(75) {
            self.failure(t)
        } else {
            self.code(t)
        };
        let name = self.lanes[t].name.clone();
        self.steps
            .push(json!({"release": {"target": name, "count": 1, "answer": answer}}));
        self.lanes[t].held = self.lanes[t].held.saturating_sub(1);
        self.moments.note(&self.lanes[t].name);
        self.advance(t);
        let answer = self.code(t);
        self.script(t, &answer);
        self.send(t, 1);
    }

    /// A failure target `t` answers with.
    fn failure(&mut self, t: usize) -> String {
        let failures: Vec<String> = self.lanes[t]
            .codes
            .iter()
            .filter(|c| c.starts_with('E'))
            .cloned()
            .collect();
        self.dice.pick(&failures).clone()
    }

    fn advance_by(&mut self, ms: u64) {
        let ms = ms.clamp(1, grader_lab::limits::MAX_ADVANCE_MS);
        self.moments.now += ms;
        self.steps.push(json!({"advance": {"ms": ms}}));
    }
}

/// A step of a draft with the expectations the reference's record shows, then checks of
/// each target it touched or changed and of the records when they changed; after the
/// last step, of everything.
pub fn fill(
    step: &Value,
    r: &StepRecord<Observation>,
    before: Option<&Observation>,
    last: bool,
) -> Vec<Value> {
    let outcomes: Vec<String> = r.requests.iter().map(|q| q.outcome.clone()).collect();
    let (step, kind, touched) = expect_outcomes(step, &outcomes, "target", Released::Alike, false);
    let mut out = vec![step];
    if kind == "script" && !last {
        return out;
    }
    let o = &r.observation;
    for t in &o.targets {
        let was = before.and_then(|b| b.targets.iter().find(|x| x.name == t.name));
        let changed = match was {
            Some(was) => was != t,
            None => !(t.state.as_deref() == Some("CLOSED") && t.calls == 0 && t.in_flight == 0),
        };
        let open = t.state.as_deref().is_some_and(|s| s != "CLOSED");
        let about = touched.as_deref() == Some(t.name.as_str());
        if last || changed || about || (kind == "advance" && open) {
            out.push(expect(t));
        }
    }
    let records = o.transitions.clone().unwrap_or_default();
    let had = before
        .and_then(|b| b.transitions.clone())
        .unwrap_or_default();
    if last || records != had {
        out.push(json!({ "expect_transitions": records }));
    }
    out
}

/// The first step whose outcome the rules leave open: a release that answers a call let
/// through before the circuit last closed again, which may be counted like any answer in
/// `CLOSED` or ignored as belonging to an earlier period (rule 21 of the handout: both
/// get full marks).
pub fn unpinned(steps: &[Value], records: &[StepRecord<Observation>]) -> Option<usize> {
    let closings = |o: &Observation, target: &str| {
        let change = format!(" {target} HALF_OPEN -> CLOSED");
        o.transitions
            .iter()
            .flatten()
            .filter(|l| l.ends_with(&change))
            .count()
    };
    // Each held request: its target, and how often that circuit had closed when it was let
    // through (at most as often as after its step).
    let mut held: std::collections::HashMap<u64, (String, usize)> = Default::default();
    for (i, (step, r)) in steps.iter().zip(records).enumerate() {
        let kind = kind(step);
        let target = step
            .get(kind)
            .and_then(|f| f.get("target"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "send" | "send_concurrent" => {
                for q in r.requests.iter().filter(|q| q.outcome == "held") {
                    held.insert(q.id, (target.to_owned(), closings(&r.observation, target)));
                }
            }
            "release" => {
                let now = i
                    .checked_sub(1)
                    .map_or(0, |b| closings(&records[b].observation, target));
                let late = r.requests.iter().any(|q| {
                    held.get(&q.id)
                        .is_some_and(|(t, closed)| t == target && *closed < now)
                });
                if late {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A check of everything observed of a target.
fn expect(t: &TargetSnapshot) -> Value {
    let mut fields = Map::new();
    fields.insert("target".into(), Value::from(t.name.clone()));
    if let Some(state) = &t.state {
        fields.insert("state".into(), Value::from(state.clone()));
    }
    fields.insert("calls".into(), Value::from(t.calls));
    fields.insert("in_flight".into(), Value::from(t.in_flight));
    fields.insert("peak".into(), Value::from(t.peak));
    if !t.answered.is_empty() {
        fields.insert("answered".into(), json!(t.answered));
    }
    json!({ "expect": fields })
}

/// The rule of the handout that a failed expectation of `step` checks.
pub fn rule_hint(step: &Step, d: &Difference) -> Option<String> {
    let text = format!("{} {}", d.expected, d.observed);
    let has = |w: &str| text.contains(w);
    let hint = match step {
        Step::Send(_) | Step::SendConcurrent(_) | Step::Release(_) => {
            if has("E904") {
                RULE_OPEN
            } else if has("E905") || has("held") {
                RULE_BULKHEAD
            } else {
                RULE_ANSWER
            }
        }
        Step::Expect(_) => {
            if has(" circuit ") || has("state") {
                RULE_STATES
            } else if has("in progress") || has("at once at most") {
                RULE_BULKHEAD
            } else {
                RULE_CALLS
            }
        }
        Step::ExpectTransitions(_) => RULE_RECORDS,
        Step::Script(_) | Step::Advance(_) => return None,
    };
    Some(hint.to_owned())
}

const RULE_OPEN: &str = "An OPEN breaker answers E904 at once until retry_after has elapsed since it opened (or since the failed trial), to the millisecond; then the next request is the one trial, and everyone else gets E904 while it runs; late answers change nothing.";
const RULE_BULKHEAD: &str = "At most max_concurrent calls of a target run at once; one more gets E905 at once, never a wait; the slot comes back when the call ends, whatever it answered; the breaker decides first.";
const RULE_ANSWER: &str = "A request the relay lets through ends with what the target answered (a panicking target is E500); only E500, E901 and E902 are failures, B201 is a healthy answer.";
const RULE_STATES: &str = "failure_threshold counted failures in a row open the breaker (a success or B201 resets the count); OPEN turns to HALF_OPEN on the first request once retry_after has elapsed; the trial's success closes it, its failure opens it again with a fresh wait; time alone changes nothing.";
const RULE_CALLS: &str = "A request reaches the target only when the breaker lets it through and the bulkhead has a slot: always while CLOSED, never while OPEN, one trial in HALF_OPEN.";
const RULE_RECORDS: &str = "Every change of state is recorded once, with the clock time when it happened and the target's name, in the relay's one log; nothing else is recorded.";

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<TargetPlan<Settings>> {
        grader_lab::generate::targets_of(include_str!("../../lab.json"))
    }

    #[test]
    fn a_seed_draws_the_same_draft_every_time_and_claims_never_answers_b201() {
        let d = defaults();
        assert_eq!(draft(5, &d), draft(5, &d));
        assert_ne!(draft(5, &d), draft(6, &d));
        for seed in 1..300 {
            let steps = draft(seed, &d).steps;
            assert!(steps.len() <= MAX_STEPS + 3, "seed {seed}");
            for step in steps {
                let claims = step
                    .pointer("/script/target")
                    .or(step.pointer("/release/target"))
                    == Some(&json!("claims"));
                let answer = step
                    .pointer("/script/answer")
                    .or(step.pointer("/release/answer"));
                assert!(!(claims && answer == Some(&json!("B201"))), "seed {seed}");
            }
        }
    }
}
