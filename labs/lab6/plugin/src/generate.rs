//! Lab 6's generated scenarios: drafts drawn from a seed, filled in from what the
//! reference did, and the rule a failed step checks.
//!
//! A draft moves every setting of a dependency off its default (slots, queue length and
//! wait, budget, attempts, backoff, jitter and its seed, the window, rate, wait and
//! probes), then plays bursts of every answer (quotes, no tariff, unavailable, refused,
//! crashing clients), holds calls so that requests queue, expire and time out, releases
//! them later, sends to several shop instances and through layers, and moves the clock to
//! one millisecond before, at and after the moments a queue wait, a budget, a pause or a
//! circuit's wait ends, measured from when requests were sent. Some drafts wake requests
//! due at the same moment newest first (the harness's `wake_order`): who gets a freed
//! slot is the rules' choice, not the scheduler's. Many others, drawn from dice of their
//! own, fill a dependency's slots and queue while a retry pauses, so that the retry comes
//! back the very millisecond after the queued requests' wait ends, turn probes away with
//! every slot held by calls whose callers gave up, or follow one
//! operation to the millisecond its second pause ends. Concurrent sends go only
//! to a dependency that holds calls, and backoffs stay above 0 so that every retry waits
//! on the fake clock: nothing drawn depends on thread timing.

use grader_lab::generate::{Moments, Released, expect_outcomes};
use grader_lab::{Dice, Difference, Draft, StepRecord, TargetPlan};
use lab6_harness::wire::{DependencySnapshot, LaneSnapshot, METRICS, Observation, Settings};
use serde_json::{Map, Value, json};
use std::time::Duration;

use crate::steps::Step;

/// The most steps a draft has, and the most requests it sends in all.
const MAX_STEPS: usize = 34;
const MAX_REQUESTS: u64 = 90;

/// What the dice of a draft's expiry story are seeded with, beside its seed: the story
/// draws from dice of its own, so that the rest of the draft is what the seed drew
/// before there were expiry stories.
const EXPIRY_STORY_DICE: u64 = 0x6578_7069_7279_2121;

/// The draft of `seed`.
pub fn draft(seed: u64, defaults: &[TargetPlan<Settings>]) -> Draft {
    drawing(seed, defaults).0
}

/// The draft of `seed`, and the dependencies its expiry, probe and pause stories were
/// told on, where they were.
fn drawing(seed: u64, defaults: &[TargetPlan<Settings>]) -> (Draft, [Option<usize>; 3]) {
    let mut dice = Dice::new(seed);
    let mut targets = Map::new();
    let mut deps = Vec::new();
    for t in defaults {
        let settings = if dice.chance(80) {
            let s = settings(&mut dice, &t.settings);
            targets.insert(t.name.clone(), overrides(&s, &t.settings));
            s
        } else {
            t.settings
        };
        deps.push(Dependency {
            name: t.name.clone(),
            s: settings,
            answer: "ok".to_owned(),
            holding: false,
            may_hold: false,
            held: 0,
            retries_until: 0,
            queue_until: 0,
        });
    }
    // A third of the drafts start with a retry whose next attempt would start one
    // millisecond before, at or after the end of the budget.
    let edge = dice.chance(35);
    if edge {
        let s = &mut deps[0].s;
        let retries = dice.range(1, s.max_attempts.saturating_sub(1).max(1));
        let until: u64 = (1..=retries).map(|r| pause(s, 1, r)).sum();
        let off = *dice.weighted(&[(1, 0), (2, 1), (1, 2)]);
        s.budget_ms = (until + off).saturating_sub(1).max(1);
        s.max_attempts = s.max_attempts.max(retries + 1);
        let changed = overrides(s, &defaults[0].settings);
        targets.insert(deps[0].name.clone(), changed);
    }
    // Some drafts start by queueing two requests at different moments behind full slots
    // and freeing one slot: it goes to the older, and the younger leaves the queue only
    // at its own deadline. Most of those wake requests newest first as well.
    let newest_first = dice.chance(40);
    let queue = dice.chance(if newest_first { 70 } else { 20 });
    if queue {
        let s = &mut deps[0].s;
        s.max_queued = s.max_queued.max(2);
        if s.max_queue_wait_ms < 3 {
            s.max_queue_wait_ms = dice.millis(3, 60);
        }
        let changed = overrides(s, &defaults[0].settings);
        targets.insert(deps[0].name.clone(), changed);
    }
    let instances = *dice.weighted(&[(6, 1), (2, 2), (1, 3)]);
    let mut g = Drawing {
        dice,
        deps,
        instances,
        moments: Moments::default(),
        steps: Vec::new(),
        requests: 0,
        extra: 0,
        extra_requests: 0,
        expiry: None,
        probed: None,
        paused: None,
    };
    // Requests woken at the same moment go on in the order the scenario sets: the rules
    // decide who gets a freed slot (the oldest queued request), not which thread runs
    // first, so either order must give the same outcomes.
    if newest_first {
        g.steps.push(json!({"wake_order": "newest_first"}));
    }
    if queue {
        g.queue_story(0);
    }
    if edge {
        g.retry_story(0, 1, false);
    }
    let mut side = Dice::new(seed ^ EXPIRY_STORY_DICE);
    let fresh = if queue || edge { 1 } else { 0 };
    if !newest_first {
        g.expiry_story(&mut side, fresh);
    }
    g.probe_story(&mut side, fresh, &[g.expiry]);
    g.pause_story(&mut side, fresh, &[g.expiry, g.probed]);
    g.play();
    let draft = Draft {
        targets,
        steps: g.steps,
    };
    (draft, [g.expiry, g.probed, g.paused])
}

/// Settings for one dependency, within the lab's ranges, most of them off the defaults.
fn settings(dice: &mut Dice, default: &Settings) -> Settings {
    let window = *dice.pick(&[1, 2, 3, 4, 5, 6, 8, 10, 12]);
    let minimum_calls = if dice.chance(35) {
        window
    } else {
        dice.range(1, window)
    };
    let any_rate = dice.range(1, 100);
    let rate = *dice.weighted(&[(3, 50), (2, 100), (2, 34), (2, 67), (1, 25), (2, any_rate)]);
    let jitter_percent = if dice.chance(35) {
        0
    } else {
        *dice.weighted(&[(1, 25), (1, 50), (2, 100), (1, any_rate)])
    };
    let drawn = Settings {
        max_active: *dice.weighted(&[(3, 1), (3, 2), (2, 3), (1, 4), (1, 8)]),
        max_queued: *dice.weighted(&[(2, 0), (3, 1), (3, 2), (2, 3), (1, 10)]),
        max_queue_wait_ms: dice.millis(0, 60),
        budget_ms: dice.millis(20, 500),
        max_attempts: *dice.weighted(&[(2, 1), (3, 2), (3, 3), (1, 4)]),
        backoff_ms: dice.millis(1, 120),
        jitter_percent,
        jitter_seed: dice.range(1, 1000),
        window,
        minimum_calls,
        failure_rate_percent: rate,
        open_for_ms: dice.millis(1, 15_000),
        probes: *dice.weighted(&[(4, 1), (3, 2), (1, 3)]),
    };
    if drawn == *default {
        Settings { probes: 2, ..drawn }
    } else {
        drawn
    }
}

/// The fields of `s` that differ from `default`, as a scenario's `targets` writes them.
fn overrides(s: &Settings, default: &Settings) -> Value {
    let (Value::Object(now), Value::Object(was)) = (json!(s), json!(default)) else {
        return json!({});
    };
    Value::Object(
        now.into_iter()
            .filter(|(k, v)| was.get(k) != Some(v))
            .collect(),
    )
}

/// A dependency as the draft goes.
struct Dependency {
    name: String,
    s: Settings,
    /// What it is scripted to answer now.
    answer: String,
    holding: bool,
    may_hold: bool,
    /// Requests sent while it held calls: at most this many are held.
    held: u64,
    /// Until when requests to it may be pausing before a retry, or waiting in its queue.
    /// The two are kept apart: a retry and a queued request's expiry due at the same
    /// instant are ordered by the harness, not by the rules (rule 4 says a request has
    /// left the queue at any instant after its wait, a retry at that instant could find
    /// it there or gone).
    retries_until: u64,
    queue_until: u64,
}

/// Where a draft was when a story began.
struct StoryStart {
    steps: usize,
    requests: u64,
    moments: Moments,
}

/// A draft being drawn.
struct Drawing {
    dice: Dice,
    deps: Vec<Dependency>,
    /// Shop instances the draft sends to.
    instances: u64,
    moments: Moments,
    steps: Vec<Value>,
    requests: u64,
    /// Steps and requests the expiry story took, beyond the draft's own `MAX_STEPS` and
    /// `MAX_REQUESTS`.
    extra: usize,
    extra_requests: u64,
    /// The dependencies the expiry, probe and pause stories were told on.
    expiry: Option<usize>,
    probed: Option<usize>,
    paused: Option<usize>,
}

impl Drawing {
    fn play(&mut self) {
        let max_steps = MAX_STEPS + self.extra;
        // Checkouts most of all; the catalog as a bystander or on its own.
        let main = if self.dice.chance(80) { 0 } else { 1 };
        let moves = self.dice.range(5, 18);
        for _ in 0..moves {
            // The longest move takes ten steps.
            if self.steps.len() + 10 > max_steps || self.room() == 0 {
                break;
            }
            let d = if self.dice.chance(75) {
                main
            } else {
                self.dice.below(self.deps.len() as u64) as usize
            };
            let weights = [(24, 0), (14, 1), (10, 2), (20, 3), (10, 4), (6, 5), (16, 6)];
            match *self.dice.weighted(&weights) {
                0 => self.burst(d),
                1 => self.hold(d),
                2 => self.release(d),
                3 => self.advance(d),
                4 => self.probe_round(d),
                5 => self.layered(d),
                _ => {
                    let count = self.dice.range(1, 2);
                    self.retry_story(d, count, true);
                }
            }
        }
        if self.dice.chance(50) {
            for d in 0..self.deps.len() {
                for _ in 0..self.deps[d].held.min(3) {
                    if self.steps.len() <= max_steps {
                        self.release(d);
                    }
                }
            }
        }
    }

    /// How many more requests the draft may send.
    fn room(&self) -> u64 {
        (MAX_REQUESTS + self.extra_requests).saturating_sub(self.requests)
    }

    fn instance(&mut self) -> u64 {
        if self.instances > 1 && self.dice.chance(35) {
            self.dice.range(2, self.instances)
        } else {
            1
        }
    }

    fn script(&mut self, d: usize, answer: &str) {
        // A retry still due would be held, and could queue: first the clock past every
        // retry (see [`Drawing::keep_apart`]).
        let until = self.deps[d].retries_until;
        if answer == "hold" && until > self.moments.now {
            self.advance_by(until - self.moments.now);
        }
        self.deps[d].holding = answer == "hold";
        self.deps[d].answer = answer.to_owned();
        let name = self.deps[d].name.clone();
        self.steps
            .push(json!({"script": {"target": name, "answer": answer}}));
    }

    /// Before requests to dependency `d`: when they may retry (a quick failure, or outer
    /// `layers` that retry whatever failed), the clock past the moment its queue is surely
    /// empty; when they may queue, past the moment none of its requests may still be
    /// pausing or retrying. Then notes until when they may do either. (An outer layer
    /// retries a request the moment it left the queue, which correct shops place one
    /// nanosecond or one millisecond after its wait: the rules speak in milliseconds.)
    fn keep_apart(&mut self, d: usize, layers: u64) {
        let failing = layers > 1
            || matches!(
                self.deps[d].answer.as_str(),
                "unavailable" | "refused" | "panic"
            );
        let dep = &self.deps[d];
        let until = if failing {
            dep.queue_until
        } else if dep.holding {
            dep.retries_until
        } else {
            0
        };
        if until > self.moments.now {
            self.advance_by(until - self.moments.now);
        }
        // Each outer layer runs the whole operation again, each time with a budget of its
        // own: max_attempts^(layers - 1) operations, one after the other at most.
        let s = self.deps[d].s;
        let operations = s
            .max_attempts
            .saturating_pow(u32::try_from(layers.saturating_sub(1)).unwrap_or(2));
        let end = self.moments.now + s.budget_ms.saturating_mul(operations) + 1;
        let dep = &mut self.deps[d];
        if failing {
            dep.retries_until = dep.retries_until.max(end);
        } else if dep.holding {
            dep.queue_until = dep.queue_until.max(end);
        }
    }

    /// Sends `count` requests to dependency `d`, one after the other, through `layers`.
    fn send(&mut self, d: usize, count: u64, layers: u64) {
        self.keep_apart(d, layers);
        let count = count.clamp(1, self.room().max(1));
        self.requests += count;
        if self.deps[d].holding {
            self.deps[d].may_hold = true;
            self.deps[d].held += count;
        }
        let mut fields = Map::new();
        fields.insert("target".into(), Value::from(self.deps[d].name.clone()));
        if count > 1 {
            fields.insert("count".into(), Value::from(count));
        }
        let instance = self.instance();
        if instance > 1 {
            fields.insert("instance".into(), Value::from(instance));
        }
        if layers > 1 {
            fields.insert("layers".into(), Value::from(layers));
        }
        self.steps.push(json!({ "send": fields }));
        self.moments.note(&self.deps[d].name);
    }

    /// An answer, then enough requests to fill the breaker's window.
    fn burst(&mut self, d: usize) {
        let answer = answer(&mut self.dice);
        self.script(d, &answer);
        let count = self.dice.range(1, self.deps[d].s.window + 2);
        self.send(d, count, 1);
    }

    /// Held calls: enough requests to take every slot and queue, and some turned away.
    fn hold(&mut self, d: usize) {
        if !self.deps[d].holding {
            self.script(d, "hold");
        }
        let s = self.deps[d].s;
        let count = self.dice.range(1, s.max_active + s.max_queued + 2);
        if self.dice.chance(50) {
            self.send(d, count, 1);
        } else {
            self.keep_apart(d, 1);
            self.requests += count;
            self.deps[d].may_hold = true;
            self.deps[d].held += count;
            let name = self.deps[d].name.clone();
            let instance = self.instance();
            let step = if instance > 1 {
                json!({"send_concurrent": {"target": name, "count": count, "instance": instance}})
            } else {
                json!({"send_concurrent": {"target": name, "count": count}})
            };
            self.steps.push(step);
            self.moments.note(&self.deps[d].name);
        }
    }

    /// Answers held calls of dependency `d`, the oldest first.
    fn release(&mut self, d: usize) {
        if !self.deps[d].may_hold {
            self.hold(d);
            return;
        }
        // One call at a time: callers released together carry on at the same instant, in
        // whatever order their threads run, which a mistaken shop could tell apart on one
        // run and not the next. And only while the dependency holds calls: the slot a
        // released call frees goes to the oldest queued request, whose own call would
        // otherwise be answered at once on its thread while the released caller is still
        // reporting its answer to the breaker, in either order.
        if !self.deps[d].holding {
            self.script(d, "hold");
        }
        let answer = release_answer(&mut self.dice);
        self.release_with(d, &answer);
    }

    /// Answers the oldest held call of dependency `d` with `answer`.
    fn release_with(&mut self, d: usize, answer: &str) {
        let name = self.deps[d].name.clone();
        self.steps
            .push(json!({"release": {"target": name, "count": 1, "answer": answer}}));
        self.deps[d].held = self.deps[d].held.saturating_sub(1);
        self.moments.note(&self.deps[d].name);
    }

    /// The clock to just before, at or just after the end of a queue wait, a budget, a
    /// pause or a circuit's wait of dependency `d`.
    fn advance(&mut self, d: usize) {
        let s = self.deps[d].s;
        let durations = [
            s.max_queue_wait_ms,
            s.budget_ms,
            s.backoff_ms,
            s.backoff_ms * 3,
            s.open_for_ms,
            s.budget_ms + s.open_for_ms,
        ];
        let d_ms = *self.dice.pick(&durations);
        let ms = if self.dice.chance(15) {
            self.dice.millis(1, s.budget_ms.saturating_mul(2))
        } else {
            self.moments
                .toward(&mut self.dice, &self.deps[d].name, d_ms.max(1))
        };
        self.advance_by(ms);
    }

    /// Every slot of dependency `d` taken by held calls, a request queued, a second one
    /// queued a little later, a slot freed: the clock then to one millisecond before, at
    /// or after the moment the first one's wait would end. Half the time, when the second
    /// has surely left the queue by then, on to about the end of the budget of the first
    /// requests: the one that queued for its slot has the same deadline as those that got
    /// theirs at once.
    fn queue_story(&mut self, d: usize) {
        let s = self.deps[d].s;
        let start = self.moments.now;
        self.script(d, "hold");
        self.send(d, s.max_active + 1, 1);
        let gap = self.dice.range(1, s.max_queue_wait_ms - 2);
        self.advance_by(gap);
        self.send(d, 1, 1);
        // Answered with something that does not retry: a retry could meet the queue's
        // deadline at the same instant.
        let answer = *self.dice.pick(&["ok", "no_tariff"]);
        self.release_with(d, answer);
        let ms = self.dice.near(s.max_queue_wait_ms - gap);
        self.advance_by(ms);
        // The held calls time out only after the second request's wait has ended.
        let budget_end = start + s.budget_ms;
        if s.budget_ms > gap + s.max_queue_wait_ms + 2
            && budget_end > self.moments.now + 1
            && self.dice.chance(50)
        {
            let ms = self.dice.near(budget_end - self.moments.now);
            self.advance_by(ms);
        }
    }

    /// The dependency a story is told on: one from `first` on, not in `skip`, whose
    /// settings `fits` (most of the time, when there is one).
    fn story_dependency(
        &self,
        side: &mut Dice,
        first: usize,
        skip: &[Option<usize>],
        fits: impl Fn(&Settings) -> bool,
    ) -> Option<usize> {
        let candidates: Vec<usize> = (first..self.deps.len())
            .filter(|&d| !skip.contains(&Some(d)) && fits(&self.deps[d].s))
            .collect();
        if candidates.is_empty() || !side.chance(85) {
            return None;
        }
        Some(candidates[side.below(candidates.len() as u64) as usize])
    }

    /// Where the draft was when a story began.
    fn story_start(&self) -> StoryStart {
        StoryStart {
            steps: self.steps.len(),
            requests: self.requests,
            moments: self.moments.clone(),
        }
    }

    /// After a story told on dice of its own: its steps and requests count beyond the
    /// draft's limits, and the rest of the draft is drawn from the moments it had before
    /// the story, or, when nothing had happened then, as if the scenario started now.
    fn story_end(&mut self, start: StoryStart) {
        self.extra += self.steps.len() - start.steps;
        self.extra_requests += self.requests - start.requests;
        let now = self.moments.now;
        self.moments = if start.moments.is_empty() {
            Moments::starting_at(now)
        } else {
            let mut moments = start.moments;
            moments.now = now;
            moments
        };
    }

    /// Probes the shop's own bulkhead turns away, on a dependency from `first` on that
    /// has not been touched yet (`skip` aside): every slot taken by a held call, the
    /// callers timing out together at the end of their budget (which opens the circuit,
    /// while the calls go on holding the slots), the clock to the end of the wait, then a
    /// probe that finds no slot (turned away at once, or expiring in the queue) and
    /// another: the first is handed back, so the second is a probe too, not
    /// circuit_open. Last, the old calls are answered, one at a time.
    fn probe_story(&mut self, side: &mut Dice, first: usize, skip: &[Option<usize>]) {
        let fits = |s: &Settings| {
            s.minimum_calls <= s.max_active && s.max_queue_wait_ms + 2 <= s.budget_ms
        };
        let Some(d) = self.story_dependency(side, first, skip, fits) else {
            return;
        };
        let start = self.story_start();
        let s = self.deps[d].s;
        let name = self.deps[d].name.clone();
        self.steps
            .push(json!({"script": {"target": name, "answer": "hold"}}));
        self.steps
            .push(json!({"send": {"target": name, "count": s.max_active}}));
        self.requests += s.max_active;
        self.advance_by(s.budget_ms);
        self.advance_by(s.open_for_ms);
        for _ in 0..2 {
            self.steps.push(json!({"send": {"target": name}}));
            self.requests += 1;
            if s.max_queued > 0 {
                self.advance_by(s.max_queue_wait_ms + 1);
            }
        }
        for _ in 0..s.max_active {
            self.steps
                .push(json!({"release": {"target": name, "count": 1, "answer": "ok"}}));
        }
        let dep = &mut self.deps[d];
        dep.answer = "hold".to_owned();
        dep.holding = true;
        self.story_end(start);
        self.probed = Some(d);
    }

    /// Two pauses of one operation on a dependency from `first` on that has not been
    /// touched yet (`skip` aside), each to its end: a quick failure, the clock to the
    /// moment its first pause ends (the second attempt fails too), then to one
    /// millisecond before the second pause ends and on to its end. The second pause is
    /// twice the first backoff with jitter drawn over its own length (rule 11), so the
    /// third attempt starts at that very millisecond.
    fn pause_story(&mut self, side: &mut Dice, first: usize, skip: &[Option<usize>]) {
        let id = self.requests + 1;
        let fits = |s: &Settings| {
            s.jitter_percent >= 1
                && s.max_attempts >= 3
                && s.minimum_calls >= 3
                && pause(s, id, 1) + pause(s, id, 2) + 2 <= s.budget_ms
        };
        let Some(d) = self.story_dependency(side, first, skip, fits) else {
            return;
        };
        let start = self.story_start();
        let s = self.deps[d].s;
        let name = self.deps[d].name.clone();
        let failure = *side.pick(&["unavailable", "refused"]);
        self.steps
            .push(json!({"script": {"target": name, "answer": failure}}));
        self.steps.push(json!({"send": {"target": name}}));
        self.requests += 1;
        let sent = self.moments.now;
        self.advance_by(pause(&s, id, 1));
        self.advance_by(pause(&s, id, 2) - 1);
        self.advance_by(1);
        let dep = &mut self.deps[d];
        dep.answer = failure.to_owned();
        // Its later attempts may still pause and retry until its budget ends.
        dep.retries_until = dep.retries_until.max(sent + s.budget_ms + 1);
        self.story_end(start);
        self.paused = Some(d);
    }

    /// A request due back from its pause the very millisecond after queued requests'
    /// wait ends, on a dependency from `first` on that has not been touched yet: a quick
    /// failure, then, while it pauses, held calls in every slot and requests in every
    /// place of the queue, sent `max_queue_wait + 1` ms before the retry is due. The
    /// queued ones have left by then (they waited longer than `max_queue_wait`), so the
    /// retry finds room in the queue. Only where requests due together wake oldest first:
    /// the retry, sent first, then looks at the queue before anything else due then.
    /// Last, every call is answered, one at a time.
    fn expiry_story(&mut self, side: &mut Dice, first: usize) {
        let id = self.requests + 1;
        let fits = |s: &Settings| {
            let p = pause(s, id, 1);
            s.max_attempts >= 2
                && s.minimum_calls >= 2
                && s.max_queued >= 1
                && p > s.max_queue_wait_ms
                && p + 2 <= s.budget_ms
        };
        let Some(d) = self.story_dependency(side, first, &[], fits) else {
            return;
        };
        let start = self.story_start();
        let s = self.deps[d].s;
        let name = self.deps[d].name.clone();
        let due = self.moments.now + pause(&s, id, 1);
        let failure = *side.pick(&["unavailable", "refused"]);
        self.steps
            .push(json!({"script": {"target": name, "answer": failure}}));
        self.steps.push(json!({"send": {"target": name}}));
        self.requests += 1;
        self.moments.note(&name);
        let join = due - s.max_queue_wait_ms - 1;
        if join > self.moments.now {
            self.advance_by(join - self.moments.now);
        }
        self.steps
            .push(json!({"script": {"target": name, "answer": "hold"}}));
        let count = s.max_active + s.max_queued;
        self.steps
            .push(json!({"send": {"target": name, "count": count}}));
        self.requests += count;
        self.moments.note(&name);
        self.advance_by(due - self.moments.now);
        // Then every call answered, the oldest first, so that nothing of the story is
        // left to time out: the retry, queued, takes the first slot freed.
        for _ in 0..=s.max_active {
            self.steps
                .push(json!({"release": {"target": name, "count": 1, "answer": "ok"}}));
        }
        let dep = &mut self.deps[d];
        dep.answer = "hold".to_owned();
        dep.holding = true;
        self.story_end(start);
        self.expiry = Some(d);
    }

    /// Sometimes failures enough to open the circuit first; then the end of its wait, and
    /// probes that may be held, fail, succeed or be answered without a tariff (an answer
    /// all the same).
    fn probe_round(&mut self, d: usize) {
        let s = self.deps[d].s;
        if self.dice.chance(40) && !self.deps[d].holding {
            let failure = *self.dice.pick(&["unavailable", "refused"]);
            self.script(d, failure);
            let count = s.minimum_calls.max(1);
            self.send(d, count, 1);
        }
        let from = *self
            .dice
            .pick(&[s.open_for_ms, s.open_for_ms + s.budget_ms]);
        let ms = self
            .moments
            .toward(&mut self.dice, &self.deps[d].name, from);
        self.advance_by(ms);
        let answer = match self.dice.below(10) {
            0..=2 => "hold".to_owned(),
            3 | 4 => "no_tariff".to_owned(),
            _ => answer(&mut self.dice),
        };
        self.script(d, &answer);
        let count = self.dice.range(1, s.probes + 2);
        self.send(d, count, 1);
    }

    /// Requests that fail quickly and retry: the clock to one millisecond before, at or
    /// after the end of the first request's pauses (computed as rule 11 says, with its
    /// seeded jitter), with the dependency answering another way meanwhile, then to the
    /// end of its budget. The dependency keeps failing unless `change` lets the story
    /// script it another way between attempts.
    fn retry_story(&mut self, d: usize, count: u64, change: bool) {
        let s = self.deps[d].s;
        let answer = *self
            .dice
            .pick(&["unavailable", "refused", "unavailable", "panic"]);
        self.script(d, answer);
        self.keep_apart(d, 1);
        let start = self.moments.now;
        let id = self.requests + 1;
        self.send(d, count, 1);
        let mut at = start;
        for r in 1..s.max_attempts.min(4) {
            at += pause(&s, id, r);
            if self.steps.len() + 4 > MAX_STEPS || (change && self.dice.chance(30)) {
                break;
            }
            let target = (at + self.dice.range(0, 2)).saturating_sub(1);
            if target > self.moments.now {
                self.advance_by(target - self.moments.now);
            }
            if change && self.dice.chance(40) {
                let next = *self
                    .dice
                    .pick(&["hold", "ok", "no_tariff", "unavailable", "refused"]);
                // A retry held now can be released only after a send while holding:
                // the lab's checks follow sends, not retries.
                self.script(d, next);
            }
        }
        let end = (start + s.budget_ms + self.dice.range(0, 2)).saturating_sub(1);
        if end > self.moments.now && self.dice.chance(60) {
            self.advance_by(end - self.moments.now);
        }
    }

    /// A request through two or three layers that all retry.
    /// Only with no call held, so that it never queues (see [`Drawing::keep_apart`]).
    fn layered(&mut self, d: usize) {
        for _ in 0..self.deps[d].held.min(3) {
            self.release(d);
        }
        let answer = answer(&mut self.dice);
        self.script(d, &answer);
        let layers = if self.deps[d].held == 0 {
            self.dice.range(2, 3)
        } else {
            1
        };
        self.send(d, 1, layers);
    }

    fn advance_by(&mut self, ms: u64) {
        let ms = ms.clamp(1, grader_lab::limits::MAX_ADVANCE_MS);
        self.moments.now += ms;
        self.steps.push(json!({"advance": {"ms": ms}}));
    }
}

/// The pause before retry `r` of operation `id` under settings `s`, as rule 11 states
/// it: `backoff × 2^(r − 1)` plus the seeded jitter of up to `jitter_percent` of that.
fn pause(s: &Settings, id: u64, r: u64) -> u64 {
    let fixed = s.backoff_ms.saturating_mul(1 << (r - 1).min(20));
    let spread = fixed.saturating_mul(s.jitter_percent) / 100;
    let retry = u32::try_from(r).unwrap_or(u32::MAX);
    let jitter = shipping_kit::jitter(s.jitter_seed, id, retry, Duration::from_millis(spread));
    fixed + u64::try_from(jitter.as_millis()).unwrap_or(0)
}

/// An answer a dependency may be scripted with, `hold` aside.
fn answer(dice: &mut Dice) -> String {
    dice.weighted(&[
        (6, "ok"),
        (2, "no_tariff"),
        (5, "unavailable"),
        (3, "refused"),
        (1, "panic"),
    ])
    .to_string()
}

/// What held calls are answered with.
fn release_answer(dice: &mut Dice) -> String {
    dice.weighted(&[
        (5, "ok"),
        (2, "no_tariff"),
        (3, "unavailable"),
        (2, "refused"),
    ])
    .to_string()
}

/// A step of a draft with the expectations the reference's record shows, then checks of
/// what changed: each instance's view of each dependency and the dependency's counts,
/// and instance 1's records; after the last step, of everything.
pub fn fill(
    step: &Value,
    r: &StepRecord<Observation>,
    before: Option<&Observation>,
    last: bool,
) -> Vec<Value> {
    let outcomes: Vec<String> = r.requests.iter().map(|q| q.outcome.clone()).collect();
    let (step, kind, touched) = expect_outcomes(step, &outcomes, "target", Released::Counted, true);
    let mut out = vec![step];
    if kind == "script" && !last {
        return out;
    }
    let o = &r.observation;
    for dep in &o.dependencies {
        for (i, instance) in o.instances.iter().enumerate() {
            let Some(lane) = instance.lanes.iter().find(|l| l.name == dep.name) else {
                continue;
            };
            let was = before.and_then(|b| {
                let d = b.dependencies.iter().find(|d| d.name == dep.name)?;
                let l = b
                    .instances
                    .get(i)?
                    .lanes
                    .iter()
                    .find(|l| l.name == dep.name)?;
                Some((d, l))
            });
            let changed = match was {
                Some((d, l)) => d != dep || l != lane,
                None => !untouched(dep, lane),
            };
            let about = touched.as_deref() == Some(dep.name.as_str());
            if last || changed || (about && i == 0) {
                out.push(expect(dep, lane, i + 1));
            }
        }
    }
    let records = o.transitions.first().cloned().flatten().unwrap_or_default();
    let had = before
        .and_then(|b| b.transitions.first().cloned().flatten())
        .unwrap_or_default();
    if last || records != had {
        out.push(json!({ "expect_transitions": records }));
    }
    out
}

/// Whether a dependency and an instance's view of it are as every scenario starts.
fn untouched(d: &DependencySnapshot, l: &LaneSnapshot) -> bool {
    d.calls == 0
        && d.in_flight == 0
        && l.state.as_deref() == Some("CLOSED")
        && l.held + l.queued + l.pausing == 0
        && l.metrics
            .as_ref()
            .is_some_and(|m| m.values().all(|n| *n == 0))
}

/// A check of everything observed of a dependency and an instance's view of it.
fn expect(d: &DependencySnapshot, l: &LaneSnapshot, instance: usize) -> Value {
    let mut fields = Map::new();
    fields.insert("target".into(), Value::from(d.name.clone()));
    if instance > 1 {
        fields.insert("instance".into(), Value::from(instance));
    }
    if let Some(state) = &l.state {
        fields.insert("state".into(), Value::from(state.clone()));
    }
    fields.insert("held".into(), Value::from(l.held));
    fields.insert("queued".into(), Value::from(l.queued));
    fields.insert("pausing".into(), Value::from(l.pausing));
    if let Some(metrics) = &l.metrics {
        let all: Map<String, Value> = METRICS
            .iter()
            .map(|m| {
                (
                    (*m).to_owned(),
                    Value::from(metrics.get(*m).copied().unwrap_or(0)),
                )
            })
            .collect();
        fields.insert("metrics".into(), Value::Object(all));
    }
    fields.insert("calls".into(), Value::from(d.calls));
    fields.insert("in_flight".into(), Value::from(d.in_flight));
    fields.insert("peak".into(), Value::from(d.peak));
    if !d.answered.is_empty() {
        fields.insert("answered".into(), json!(d.answered));
    }
    json!({ "expect": fields })
}

/// The rule of section 8 of the handout that a failed expectation of `step` checks.
pub fn rule_hint(step: &Step, d: &Difference) -> Option<String> {
    let text = format!("{} {}", d.expected, d.observed);
    let has = |w: &str| text.contains(w);
    let hint = match step {
        Step::Send(_) | Step::SendConcurrent(_) | Step::Release(_) | Step::Advance(_) => {
            if has("queue_expired") || has("queued") {
                RULE_QUEUE
            } else if has("no_capacity") {
                RULE_ADMISSION
            } else if has("timeout") || has("held") {
                RULE_BUDGET
            } else if has("pausing") {
                RULE_RETRIES
            } else if has("circuit_open") {
                RULE_BREAKER
            } else {
                RULE_DEGRADATION
            }
        }
        Step::Expect(_) => {
            if has(" circuit ") {
                RULE_BREAKER
            } else if has("metric") {
                RULE_METRICS
            } else if has("queued for") {
                RULE_QUEUE
            } else if has("pausing") {
                RULE_RETRIES
            } else if has("waiting for an answer") || has("in progress") || has("at once at most") {
                RULE_ADMISSION
            } else {
                RULE_CALLS
            }
        }
        Step::ExpectTransitions(_) => RULE_RECORDS,
        Step::Script(_) | Step::WakeOrder(_) => return None,
    };
    Some(hint.to_owned())
}

const RULE_ADMISSION: &str = "At most max_active calls of a dependency run at once per instance, and a slot stays taken until the vendor answers, even when the caller gave up; one more request queues if fewer than max_queued wait, else gets no_capacity at once (rules 1, 2 and 5).";
const RULE_QUEUE: &str = "The queue is first come, first served; a request queued at T may still get a slot at T + max_queue_wait and has left with queue_expired at any later instant, or when the budget ends while it waits (rules 3 and 4).";
const RULE_BUDGET: &str = "One budget per operation, from the start of Client::call: the queue, every attempt and every pause spend it; a caller waits for an answer until the budget's end, then the attempt is a timeout, and an attempt that would start at or after the end does not start (rules 6 to 8).";
const RULE_RETRIES: &str = "max_attempts counts the first attempt; only unavailable and refused are retried, after a pause of backoff x 2^(r-1) plus the seeded jitter of that operation and retry; only the client retries (rules 9 to 12).";
const RULE_BREAKER: &str = "The breaker is lab 5's without max_age: the window of the latest `window` observations opens it at failures x 100 >= rate x outcomes with at least minimum_calls; OPEN turns attempts away until open_for has elapsed; probes in all per round; timeouts fail, no_tariff succeeds, the shop's own rejections count for nothing (rules 13 to 15).";
const RULE_DEGRADATION: &str = "checkout confirms only with the price the vendor quoted; no_tariff is NoTariff; anything else is Unavailable with the last attempt's cause; browsing uses the catalog's client only (rules 17 and 18).";
const RULE_METRICS: &str = "Each attempt that ends in timeout, no_capacity, queue_expired, circuit_open or no_tariff adds one to that count of its dependency's metrics, and nothing else does (rule 19).";
const RULE_CALLS: &str = "A call reaches the vendor once per attempt the breaker and the bulkhead let through: max_attempts in all, the first included, only after quick failures, and only the client retries (rules 9 to 15).";
const RULE_RECORDS: &str = "Every change of state goes to the shop's one TransitionLog with the clock's time and the dependency's name, and nothing else does (rule 16).";

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<TargetPlan<Settings>> {
        grader_lab::generate::targets_of(include_str!("../../lab.json"))
    }

    #[test]
    fn a_seed_draws_the_same_draft_every_time() {
        let d = defaults();
        assert_eq!(draft(7, &d), draft(7, &d));
        assert_ne!(draft(7, &d), draft(8, &d));
    }

    #[test]
    fn drafts_keep_the_settings_valid_and_every_retry_on_the_fake_clock() {
        let d = defaults();
        for seed in 1..300 {
            let draft = draft(seed, &d);
            // Two stories at most (one per dependency), each of sixteen steps at most
            // (an expiry story or a probe story with eight slots).
            assert!(draft.steps.len() <= MAX_STEPS + 3 + 2 * 16, "seed {seed}");
            for (name, o) in &draft.targets {
                let mut v = json!(d[0].settings);
                if let (Value::Object(v), Value::Object(o)) = (&mut v, o) {
                    v.extend(o.clone());
                }
                let s: Settings = serde_json::from_value(v).expect("settings");
                assert!(
                    crate::validate::settings(&s).is_empty(),
                    "seed {seed} {name}"
                );
                assert!(s.backoff_ms >= 1, "seed {seed} {name}: a pause of 0 races");
            }
        }
    }

    /// Whether a draft wakes the newest first and frees a slot while requests sent at
    /// different moments may queue behind held calls; and whether it answers probes
    /// without a tariff (a no_tariff script after a failing send and a clock advance).
    fn newest_first_and_no_tariff_probes(draft: &Draft) -> (bool, bool) {
        let newest = draft
            .steps
            .iter()
            .any(|s| s.get("wake_order") == Some(&json!("newest_first")));
        let (mut failed, mut waited, mut probed) = (false, false, false);
        // Sends while holding, and whether the clock moved between two of them.
        let (mut held_sends, mut moved, mut apart, mut freed) = (0, false, false, false);
        let mut answer = "ok";
        for step in &draft.steps {
            if let Some(a) = step.pointer("/script/answer").and_then(Value::as_str) {
                answer = a;
                probed |= a == "no_tariff" && failed && waited;
            } else if step.get("send").is_some() {
                failed |= ["unavailable", "refused", "panic"].contains(&answer);
                waited = false;
                if answer == "hold" {
                    apart |= moved && step.pointer("/send/count").is_none();
                    held_sends += 1;
                }
            } else if step.get("advance").is_some() {
                waited = true;
                moved |= held_sends > 0;
            } else if step.get("release").is_some() {
                freed |= apart;
            }
        }
        (newest && freed, probed)
    }

    /// Over the seeds CI grades, how many tell each story: an expiry story (a retry back
    /// the millisecond after a full queue's wait ends, where a shop that lets queued
    /// requests leave a millisecond late turns it away), a probe story (probes turned
    /// away with every slot held, where a shop that does not hand them back answers
    /// circuit_open) and a pause story (an operation followed to the millisecond its
    /// second pause ends, where a shop that draws that jitter over the backoff, or does
    /// not double the pause, starts the third attempt at another moment).
    #[test]
    fn ci_seeds_tell_every_story() {
        let d = defaults();
        for (story, name) in ["an expiry", "a probe", "a pause"].iter().enumerate() {
            let told = (61409..61409 + 40)
                .filter(|&seed| drawing(seed, &d).1[story].is_some())
                .count();
            assert!(told >= 6, "{told} of 40 tell {name} story");
        }
    }

    #[test]
    fn ci_seeds_wake_the_newest_first_and_answer_probes_without_a_tariff() {
        let d = defaults();
        let (mut newest, mut probes) = (0, 0);
        for seed in 61409..61409 + 40 {
            let (n, p) = newest_first_and_no_tariff_probes(&draft(seed, &d));
            newest += usize::from(n);
            probes += usize::from(p);
        }
        assert!(
            newest >= 8,
            "{newest} of 40 wake the newest first and free a slot for requests queued apart"
        );
        assert!(
            probes >= 8,
            "{probes} of 40 answer a probe without a tariff"
        );
    }
}
