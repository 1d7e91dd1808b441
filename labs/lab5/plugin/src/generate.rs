//! Lab 5's generated scenarios: drafts drawn from a seed, filled in from what the
//! reference did, and the rule a failed step checks.
//!
//! A draft sets up to three flows with settings off their defaults (any window and
//! minimum sample, rates such as 34 % or 67 %, `max_age` and `open_for` to the
//! millisecond, several probes, small bulkheads), then plays bursts of answers drawn
//! from every class the rules know (2xx, the business refusals 400, 422 and any other
//! 4xx, 1xx and 3xx, 429, every 5xx up to 599, timeouts, refused connections, crashing
//! clients), holds calls and releases them later, after the circuit may have opened and
//! closed again, and moves the clock to just before, at and just after the moment an
//! outcome ages out or a wait ends, measured from the moments messages were answered.
//! Some drafts start with a whole outage and recovery while every circuit is CLOSED: a
//! message held from before it and answered after the circuit closed again, or the
//! round's last probe held across a clock advance. Many start with an age story on a
//! bystander flow, drawn from dice of its own: failures one short of the sample, the
//! clock to one millisecond short of `max_age` after their answer, at it or past it, and
//! the failure that completes the sample, some of them answered late; and with a probe
//! story on another: a half-open round in which one probe came back and more messages
//! come than probes are left, while the partner holds them. A third of the
//! flows sit their rate just above a share their minimum sample can hold (67 % over 2
//! of 3).
//! Concurrent sends go only to an endpoint that holds calls, as the lab's checks demand:
//! nothing drawn depends on thread timing.

use grader_lab::generate::{Moments, Released, expect_outcomes};
use grader_lab::{Dice, Difference, Draft, StepRecord, TargetPlan};
use lab5_harness::wire::{FlowSnapshot, Observation, Settings};
use serde_json::{Map, Value, json};

use crate::steps::Step;

/// The most steps a draft has (its last releases aside), and the most messages it sends
/// in all: a few milliseconds of a harness's time.
const MAX_STEPS: usize = 36;
const MAX_MESSAGES: u64 = 140;

/// What the dice of a draft's age story are seeded with, beside its seed: the story
/// draws from dice of its own, so that the rest of the draft is what the seed drew
/// before there were age stories.
const AGE_STORY_DICE: u64 = 0x6167_6520_7374_6f72;

/// The draft of `seed`.
pub fn draft(seed: u64, defaults: &[TargetPlan<Settings>]) -> Draft {
    drawing(seed, defaults).0
}

/// The draft of `seed`, the age story it told and the flow of its probe story, where
/// it told them.
fn drawing(seed: u64, defaults: &[TargetPlan<Settings>]) -> (Draft, Stories) {
    let mut dice = Dice::new(seed);
    let mut targets = Map::new();
    let mut flows = Vec::new();
    for t in defaults {
        let settings = if dice.chance(75) {
            let s = settings(&mut dice, &t.settings);
            targets.insert(t.name.clone(), overrides(&s, &t.settings));
            s
        } else {
            t.settings
        };
        flows.push(FlowDraft {
            name: t.name.clone(),
            s: settings,
            holding: false,
            may_hold: false,
            held: 0,
        });
    }
    let mut g = Drawing {
        dice,
        side: Dice::new(seed ^ AGE_STORY_DICE),
        flows,
        moments: Moments::default(),
        steps: Vec::new(),
        messages: 0,
        extra: 0,
        age: None,
        probe: None,
    };
    g.play();
    let draft = Draft {
        targets,
        steps: g.steps,
    };
    (draft, (g.age, g.probe))
}

/// The stories a draft told: its age story, and the flow of its probe story.
type Stories = (Option<AgeStory>, Option<usize>);

/// Settings for one flow: within the lab's ranges, most of them off the defaults.
fn settings(dice: &mut Dice, default: &Settings) -> Settings {
    let window = *dice.pick(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20]);
    let minimum_calls = match dice.below(10) {
        0..=2 => window,
        3..=5 => dice.range(1, 3).min(window),
        _ => dice.range(1, window),
    };
    // A third of the flows sit a rate just above a share their minimum sample can
    // hold (34 % over 1 of 3, 67 % over 2 of 3, 43 % over 3 of 7): one failure fewer than
    // the rate asks must not open them, however close the share comes.
    if dice.chance(35) && window >= 2 {
        let sample = dice.range(2, window.min(12));
        let fails = dice.range(1, sample - 1);
        let failure_rate_percent = (fails * 100 / sample + 1).min(100);
        return finish(dice, default, window, sample, failure_rate_percent);
    }
    let any_rate = dice.range(1, 100);
    let failure_rate_percent = *dice.weighted(&[
        (3, 50),
        (2, 100),
        (1, 1),
        (2, 25),
        (2, 34),
        (2, 67),
        (1, 75),
        (1, 20),
        (1, 60),
        (2, any_rate),
    ]);
    finish(dice, default, window, minimum_calls, failure_rate_percent)
}

/// The rest of a flow's settings, drawn after its window, sample and rate.
fn finish(
    dice: &mut Dice,
    default: &Settings,
    window: u64,
    minimum_calls: u64,
    failure_rate_percent: u64,
) -> Settings {
    let max_age_ms = dice.chance(55).then(|| dice.millis(1, 40_000));
    let open_for_ms = if dice.chance(5) {
        0
    } else {
        dice.millis(1, 30_000)
    };
    let probes = *dice.weighted(&[(4, 1), (4, 2), (3, 3), (1, 4)]);
    let max_concurrent = *dice.weighted(&[(4, 1), (4, 2), (3, 3), (1, 5), (1, 6)]);
    let drawn = Settings {
        window,
        minimum_calls,
        failure_rate_percent,
        max_age_ms,
        open_for_ms,
        probes,
        max_concurrent,
    };
    if drawn == *default {
        Settings { probes: 2, ..drawn }
    } else {
        drawn
    }
}

/// The fields of `s` that differ from `default`, as a scenario's `targets` writes them.
fn overrides(s: &Settings, default: &Settings) -> Value {
    let mut o = Map::new();
    let mut put = |key: &str, value: u64, was: u64| {
        if value != was {
            o.insert(key.to_owned(), Value::from(value));
        }
    };
    put("window", s.window, default.window);
    put("minimum_calls", s.minimum_calls, default.minimum_calls);
    put(
        "failure_rate_percent",
        s.failure_rate_percent,
        default.failure_rate_percent,
    );
    put("open_for_ms", s.open_for_ms, default.open_for_ms);
    put("probes", s.probes, default.probes);
    put("max_concurrent", s.max_concurrent, default.max_concurrent);
    if s.max_age_ms != default.max_age_ms {
        if let Some(ms) = s.max_age_ms {
            o.insert("max_age_ms".to_owned(), Value::from(ms));
        }
    }
    Value::Object(o)
}

/// A flow as the draft goes: its settings, and whether its endpoint holds calls now or
/// may have held some.
struct FlowDraft {
    name: String,
    s: Settings,
    holding: bool,
    may_hold: bool,
    /// Messages sent while it held calls: at most this many are held.
    held: u64,
}

/// A draft being drawn.
struct Drawing {
    dice: Dice,
    /// The age story's dice.
    side: Dice,
    flows: Vec<FlowDraft>,
    /// The clock, and when messages of each flow were sent or answered: where its
    /// outcomes age and its waits start from.
    moments: Moments,
    steps: Vec<Value>,
    messages: u64,
    /// Steps the stories took, beyond the draft's own `MAX_STEPS`.
    extra: usize,
    /// The age story told, if one was.
    age: Option<AgeStory>,
    /// The flow the probe story was told on.
    probe: Option<usize>,
}

/// What an age story drew: when its last failure was decided, from the answer of the
/// old ones, against the flow's `max_age`, and which of its answers came late.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AgeStory {
    flow: usize,
    max_age: u64,
    decided: u64,
    slow_first: bool,
    slow_last: bool,
}

impl Drawing {
    fn play(&mut self) {
        // Most scenarios are about one flow, with the others as bystanders.
        let main = self.dice.below(self.flows.len() as u64) as usize;
        // Many start with an age story on a bystander, before anything else happens.
        self.age_story(main);
        self.probe_story(main);
        let max_steps = MAX_STEPS + self.extra;
        // Some start with a whole outage and recovery, while every circuit is still
        // CLOSED, so that what comes after is known to happen.
        if self.dice.chance(40) {
            self.recovery_story(main);
        }
        let moves = self.dice.range(6, 22);
        for _ in 0..moves {
            // The longest move takes ten steps.
            if self.steps.len() + 10 > max_steps || self.messages >= MAX_MESSAGES {
                break;
            }
            let f = if self.dice.chance(70) {
                main
            } else {
                self.dice.below(self.flows.len() as u64) as usize
            };
            match *self.dice.weighted(&[
                (20, 0),
                (10, 1),
                (8, 2),
                (14, 3),
                (14, 4),
                (10, 5),
                (10, 6),
                (13, 7),
                (4, 8),
            ]) {
                0 => self.burst(f),
                1 => self.hold(f),
                2 => self.release(f),
                3 => self.advance(f),
                4 => self.probe_round(f),
                5 => self.age_round(f),
                6 => self.outage(f),
                7 => self.tipping(f),
                _ => self.script(f, None),
            }
        }
        // Calls still held answer late, now that much may have changed.
        if self.dice.chance(60) {
            for f in 0..self.flows.len() {
                for _ in 0..self.flows[f].held.min(3) {
                    if self.steps.len() < max_steps + 3 {
                        self.release(f);
                    }
                }
            }
        }
    }

    fn push(&mut self, step: Value) {
        self.steps.push(step);
    }

    /// Something happened on flow `f` now.
    fn moment(&mut self, f: usize) {
        self.moments.note(&self.flows[f].name);
    }

    /// Scripts flow `f` to answer `answer` (drawn when `None`), unless it already does.
    fn script(&mut self, f: usize, answer: Option<String>) {
        let answer = answer.unwrap_or_else(|| script_answer(&mut self.dice));
        self.flows[f].holding = answer == "hold";
        let name = self.flows[f].name.clone();
        self.push(json!({"script": {"flow": name, "answer": answer}}));
    }

    /// Sends `count` messages on flow `f`, one after the other.
    fn send(&mut self, f: usize, count: u64) {
        let count = count.clamp(1, MAX_MESSAGES.saturating_sub(self.messages).max(1));
        self.messages += count;
        if self.flows[f].holding {
            self.flows[f].may_hold = true;
            self.flows[f].held += count;
        }
        let name = self.flows[f].name.clone();
        let step = if count == 1 {
            json!({"send": {"flow": name}})
        } else {
            json!({"send": {"flow": name, "count": count}})
        };
        self.push(step);
        self.moment(f);
    }

    /// Sends `count` messages on flow `f` at the same moment (its endpoint holds calls).
    fn send_together(&mut self, f: usize, count: u64) {
        self.messages += count;
        self.flows[f].may_hold = true;
        self.flows[f].held += count;
        let name = self.flows[f].name.clone();
        self.push(json!({"send_concurrent": {"flow": name, "count": count}}));
        self.moment(f);
    }

    /// One or two answers, then messages: enough of them, with the flow's window, to fill
    /// it, and shares of failures near the flow's rate.
    fn burst(&mut self, f: usize) {
        let window = self.flows[f].s.window;
        let first = self.dice.range(1, window + 2);
        let answer = burst_answer(&mut self.dice);
        self.script(f, Some(answer));
        self.send(f, first);
        if self.dice.chance(45) {
            let answer = burst_answer(&mut self.dice);
            self.script(f, Some(answer));
            let second = self.dice.range(1, window + 1);
            self.send(f, second);
        }
    }

    /// Holds calls on flow `f`: one after the other or at the same moment, up to a couple
    /// more than its bulkhead takes.
    fn hold(&mut self, f: usize) {
        if !self.flows[f].holding {
            self.script(f, Some("hold".to_owned()));
        }
        let limit = self.flows[f].s.max_concurrent;
        let count = self.dice.range(1, limit + 2);
        if self.dice.chance(50) {
            self.send(f, count);
        } else {
            self.send_together(f, count);
        }
    }

    /// Releases held calls of flow `f`, the oldest first, some or all of them.
    fn release(&mut self, f: usize) {
        if !self.flows[f].may_hold {
            self.hold(f);
            return;
        }
        // One call at a time: calls released together return in whatever order their
        // threads run, which a mistaken gateway could tell apart on one run and not the
        // next.
        let answer = release_answer(&mut self.dice);
        self.release_with(f, answer);
    }

    /// Releases the oldest held call of flow `f` with `answer`.
    fn release_with(&mut self, f: usize, answer: String) {
        let name = self.flows[f].name.clone();
        self.push(json!({"release": {"flow": name, "count": 1, "answer": answer}}));
        self.flows[f].held = self.flows[f].held.saturating_sub(1);
        self.moment(f);
    }

    /// Failures enough to open flow `f`'s circuit (its minimum sample, or a little more),
    /// sometimes after a few successes.
    fn outage(&mut self, f: usize) {
        let s = self.flows[f].s;
        if self.dice.chance(30) {
            let answer = success_answer(&mut self.dice);
            self.script(f, Some(answer));
            let count = self.dice.range(1, s.window.saturating_sub(1).max(1));
            self.send(f, count);
        }
        let answer = failure_answer(&mut self.dice);
        self.script(f, Some(answer));
        let count = s.minimum_calls + self.dice.range(0, 2);
        self.send(f, count);
        if self.dice.chance(50) {
            self.probe_round(f);
        }
    }

    /// An age story on a bystander of flow `main` that has a `max_age` and a sample of
    /// two or more: failures one short of its sample, sometimes answered a while after
    /// they were sent, the clock to one millisecond short of `max_age` after their answer,
    /// at it or one past it, then the failure that completes the sample, sometimes
    /// answered a while after it was sent too. The circuit opens exactly when the old
    /// failures still count, to the millisecond, from the moment they were answered; the
    /// alert is stamped with the moment the last one was.
    fn age_story(&mut self, main: usize) {
        let fits = |f: &FlowDraft| f.s.max_age_ms.is_some_and(|a| a >= 2) && f.s.minimum_calls >= 2;
        let candidates: Vec<usize> = (0..self.flows.len())
            .filter(|&f| f != main && fits(&self.flows[f]))
            .collect();
        if candidates.is_empty() {
            return;
        }
        let before = (self.steps.len(), self.messages);
        let f = candidates[self.side.below(candidates.len() as u64) as usize];
        let s = self.flows[f].s;
        let max_age = s.max_age_ms.unwrap_or(2);
        let mut old = s.minimum_calls - 1;
        let slow_first = self.side.chance(45);
        if slow_first {
            self.script(f, Some("hold".to_owned()));
            self.send(f, 1);
            let ms = self.side.millis(1, 5_000);
            self.advance_by(ms);
            let answer = release_failure(&mut self.side);
            self.release_with(f, answer);
            old -= 1;
        }
        if old > 0 {
            let answer = failure_answer(&mut self.side);
            self.script(f, Some(answer));
            self.send(f, old);
        }
        // The last failure is decided one millisecond short of max_age (the old ones
        // still count, whatever part of a second max_age has), at it or one past it.
        let decided = match self.side.below(5) {
            0..=2 => max_age - 1,
            3 => max_age,
            _ => max_age + 1,
        };
        // The last failure answered late mostly when it opens the circuit: the alert is
        // stamped with its answer.
        let late = if decided < max_age { 65 } else { 25 };
        let slow = if decided > 2 && self.side.chance(late) {
            self.side.millis(1, (decided - 1).min(5_000))
        } else {
            0
        };
        self.advance_by(decided - slow);
        if slow > 0 {
            self.script(f, Some("hold".to_owned()));
            self.send(f, 1);
            self.advance_by(slow);
            let answer = release_failure(&mut self.side);
            self.release_with(f, answer);
        } else {
            let answer = failure_answer(&mut self.side);
            self.script(f, Some(answer));
            self.send(f, 1);
        }
        self.extra += self.steps.len() - before.0;
        self.messages = before.1;
        // The rest of the draft is drawn as if the scenario started now.
        self.moments = Moments::starting_at(self.moments.now);
        self.age = Some(AgeStory {
            flow: f,
            max_age,
            decided,
            slow_first,
            slow_last: slow > 0,
        });
    }

    /// A half-open round on a bystander of flow `main` (the age story's aside) with two
    /// probes or more: failures enough to open it, the clock to the end of its wait, one
    /// probe held and answered with a success, then more messages than the round has
    /// probes left, one after the other, while the partner holds them: the probes left
    /// go through until the bulkhead is full (a probe it turns away is handed back, and
    /// the next message is a probe again), the rest get circuit_open. Last, the held
    /// probes answered one at a time, with successes, which closes the circuit.
    fn probe_story(&mut self, main: usize) {
        let told = self.age.map(|a| a.flow);
        let candidates: Vec<usize> = (0..self.flows.len())
            .filter(|&f| f != main && Some(f) != told && self.flows[f].s.probes >= 2)
            .collect();
        if candidates.is_empty() || !self.side.chance(85) {
            return;
        }
        let before = (self.steps.len(), self.messages);
        let f = candidates[self.side.below(candidates.len() as u64) as usize];
        let s = self.flows[f].s;
        let answer = failure_answer(&mut self.side);
        self.script(f, Some(answer));
        self.send(f, s.minimum_calls);
        self.advance_by(s.open_for_ms);
        self.script(f, Some("hold".to_owned()));
        self.send(f, 1);
        let answer = success_answer(&mut self.side);
        self.release_with(f, answer);
        let left = s.probes - 1;
        let count = left + self.side.range(1, 2);
        self.send(f, count);
        for _ in 0..left.min(s.max_concurrent) {
            let answer = success_answer(&mut self.side);
            self.release_with(f, answer);
        }
        self.flows[f].held = 0;
        self.extra += self.steps.len() - before.0;
        self.messages = before.1;
        self.moments = Moments::starting_at(self.moments.now);
        self.probe = Some(f);
    }

    /// Flow `f`, CLOSED, opens and recovers, with one answer held across a clock advance:
    /// either a message admitted before the outage, answered once the circuit has closed
    /// again and followed by one failure fewer than the minimum sample (its outcome is
    /// from an older state and must not count), or the round's last probe, answered a
    /// while after it was sent (the wait after a failure, the records and the all-clear
    /// run from the answer).
    fn recovery_story(&mut self, f: usize) {
        let s = self.flows[f].s;
        let from_before = s.max_concurrent >= 2 && self.dice.chance(50);
        if from_before {
            self.script(f, Some("hold".to_owned()));
            self.send(f, 1);
            if self.dice.chance(50) {
                let ms = self.dice.millis(1, 5_000);
                self.advance_by(ms);
            }
        }
        let answer = failure_answer(&mut self.dice);
        self.script(f, Some(answer));
        self.send(f, s.minimum_calls.max(1));
        // The first probe comes at the end of the wait, or up to a second later.
        let late = if self.dice.chance(50) {
            self.dice.range(1, 1_000)
        } else {
            0
        };
        self.advance_by(s.open_for_ms + late);
        let answer = success_answer(&mut self.dice);
        self.script(f, Some(answer));
        let before_last = if from_before { s.probes } else { s.probes - 1 };
        if before_last > 0 {
            self.send(f, before_last);
        }
        if from_before {
            if self.dice.chance(50) {
                let ms = self.dice.millis(1, 5_000);
                self.advance_by(ms);
            }
            let answer = release_failure(&mut self.dice);
            self.release_with(f, answer);
            let answer = failure_answer(&mut self.dice);
            self.script(f, Some(answer));
            if s.minimum_calls > 1 {
                self.send(f, s.minimum_calls - 1);
            }
            return;
        }
        self.script(f, Some("hold".to_owned()));
        self.send(f, 1);
        let ms = self.dice.millis(1, 8_000);
        self.advance_by(ms);
        let answer = if self.dice.chance(50) {
            success_answer(&mut self.dice)
        } else {
            release_failure(&mut self.dice)
        };
        self.release_with(f, answer);
        // One millisecond before, at or after the fresh wait ends, from the answer.
        let ms = self.dice.near(s.open_for_ms);
        self.advance_by(ms);
        let answer = success_answer(&mut self.dice);
        self.script(f, Some(answer));
        self.send(f, 1);
    }

    /// A window filled to its minimum sample with a share of failures at, just below or
    /// just above the rate, failures first, so that a success may be what tips it.
    fn tipping(&mut self, f: usize) {
        let s = self.flows[f].s;
        let n = s.minimum_calls.max(1);
        let at = (s.failure_rate_percent * n).div_ceil(100);
        let fails = match self.dice.below(4) {
            0 | 1 => at.saturating_sub(1),
            2 => at,
            _ => at + 1,
        }
        .min(n);
        if fails > 0 {
            let answer = failure_answer(&mut self.dice);
            self.script(f, Some(answer));
            self.send(f, fails);
        }
        if n > fails {
            let answer = success_answer(&mut self.dice);
            self.script(f, Some(answer));
            self.send(f, n - fails);
        }
    }

    /// A probe round on flow `f`: the clock to the end of its wait, measured from a moment
    /// something happened on it, then probes: some held while others answer, some
    /// failing, some succeeding, and the held ones answered later.
    fn probe_round(&mut self, f: usize) {
        let open_for = self.flows[f].s.open_for_ms;
        self.advance_to_boundary(f, open_for);
        let probes = self.flows[f].s.probes;
        if self.dice.chance(45) {
            self.script(f, Some("hold".to_owned()));
            let count = self.dice.range(1, probes + 1);
            if self.dice.chance(50) {
                self.send(f, count);
            } else {
                self.send_together(f, count);
            }
        }
        let answer = if self.dice.chance(65) {
            success_answer(&mut self.dice)
        } else {
            failure_answer(&mut self.dice)
        };
        self.script(f, Some(answer));
        let count = self.dice.range(1, probes + 2);
        self.send(f, count);
        if self.flows[f].may_hold && self.dice.chance(50) {
            self.release(f);
        }
    }

    /// Outcomes of flow `f` that do not open it yet, the clock to just before, at or just
    /// after the moment they age out, then more outcomes: whether the old ones still count
    /// decides.
    fn age_round(&mut self, f: usize) {
        let s = self.flows[f].s;
        let Some(max_age) = s.max_age_ms else {
            self.burst(f);
            return;
        };
        let answer = failure_answer(&mut self.dice);
        self.script(f, Some(answer));
        let first = self.dice.range(1, s.minimum_calls.saturating_sub(1).max(1));
        self.send(f, first);
        // One millisecond short of max_age (the old outcomes still count, whatever part
        // of a second max_age has), at it (they are gone), or near it.
        let ms = match self.dice.below(3) {
            0 => max_age.saturating_sub(1),
            1 => max_age,
            _ => self.dice.near(max_age),
        };
        self.advance_by(ms.max(1));
        // Most often failures just enough to reach the sample with the old ones: the
        // circuit opens exactly when they still count.
        let (answer, count) = if self.dice.chance(60) {
            let count = s.minimum_calls.saturating_sub(first).max(1);
            (failure_answer(&mut self.dice), count)
        } else {
            let count = self.dice.range(1, s.minimum_calls.max(1));
            (burst_answer(&mut self.dice), count)
        };
        self.script(f, Some(answer));
        self.send(f, count);
    }

    /// Moves the clock: most often to just before, at or just after the wait or age limit
    /// of flow `f` (or another), measured from a moment something happened on it.
    fn advance(&mut self, f: usize) {
        let f = if self.dice.chance(75) {
            f
        } else {
            self.dice.below(self.flows.len() as u64) as usize
        };
        let mut durations = vec![self.flows[f].s.open_for_ms];
        durations.extend(self.flows[f].s.max_age_ms);
        durations.retain(|d| *d > 0);
        if durations.is_empty() || self.dice.chance(20) {
            let most = durations.iter().copied().max().unwrap_or(10_000);
            let ms = self.dice.millis(1, most.saturating_mul(2).max(2));
            self.advance_by(ms);
            return;
        }
        let d = *self.dice.pick(&durations);
        self.advance_to_boundary(f, d);
    }

    /// Moves the clock to one millisecond before, at or after `d` past a recent moment of
    /// flow `f`.
    fn advance_to_boundary(&mut self, f: usize, d: u64) {
        let ms = self.moments.toward(&mut self.dice, &self.flows[f].name, d);
        self.advance_by(ms);
    }

    fn advance_by(&mut self, ms: u64) {
        let ms = ms.clamp(1, grader_lab::limits::MAX_ADVANCE_MS);
        self.moments.now += ms;
        self.push(json!({"advance": {"ms": ms}}));
    }
}

/// An answer for a burst: failures as often as successes, from every class.
fn burst_answer(dice: &mut Dice) -> String {
    if dice.chance(55) {
        failure_answer(dice)
    } else {
        success_answer(dice)
    }
}

/// A failure by rule 1: `429`, any 5xx, a timeout, a refused connection, a crashing
/// client.
fn failure_answer(dice: &mut Dice) -> String {
    match *dice.weighted(&[
        (6, 0),
        (5, 1),
        (3, 2),
        (2, 3),
        (3, 4),
        (2, 5),
        (3, 6),
        (2, 7),
    ]) {
        0 => "503".to_owned(),
        1 => dice.pick(&["500", "502", "504"]).to_string(),
        2 => dice.range(500, 599).to_string(),
        3 => "599".to_owned(),
        4 => "429".to_owned(),
        5 => "panic".to_owned(),
        6 => "timeout".to_owned(),
        _ => "refused".to_owned(),
    }
}

/// A success by rule 1: any status that is neither 429 nor 5xx, the business refusals
/// among them.
fn success_answer(dice: &mut Dice) -> String {
    match *dice.weighted(&[(8, 0), (2, 1), (3, 2), (2, 3), (1, 4), (1, 5), (1, 6)]) {
        0 => "200".to_owned(),
        1 => dice.pick(&["201", "202", "204"]).to_string(),
        2 => dice.pick(&["400", "422"]).to_string(),
        3 => {
            let status = dice.range(400, 499);
            if status == 429 {
                "404".to_owned()
            } else {
                status.to_string()
            }
        }
        4 => dice.range(100, 199).to_string(),
        5 => dice.range(300, 399).to_string(),
        _ => dice.range(200, 299).to_string(),
    }
}

/// Any answer a script may give but `hold`.
fn script_answer(dice: &mut Dice) -> String {
    burst_answer(dice)
}

/// What held calls are released with: a status, a timeout or a refused connection.
fn release_answer(dice: &mut Dice) -> String {
    loop {
        let answer = burst_answer(dice);
        if answer != "panic" {
            return answer;
        }
    }
}

/// A failure held calls can be released with: any but a crashing client.
fn release_failure(dice: &mut Dice) -> String {
    loop {
        let answer = failure_answer(dice);
        if answer != "panic" {
            return answer;
        }
    }
}

/// A step of a draft with the expectations the reference's record shows, then checks of
/// each flow it touched or changed, of the records and of the alerts when they changed;
/// after the last step, of everything.
pub fn fill(
    step: &Value,
    r: &StepRecord<Observation>,
    before: Option<&Observation>,
    last: bool,
) -> Vec<Value> {
    let outcomes: Vec<String> = r.requests.iter().map(|q| q.outcome.clone()).collect();
    let (step, kind, touched) = expect_outcomes(step, &outcomes, "flow", Released::Alike, false);
    let mut out = vec![step];
    if kind == "script" && !last {
        return out;
    }
    let o = &r.observation;
    for flow in &o.flows {
        let was = before.and_then(|b| b.flows.iter().find(|f| f.name == flow.name));
        let changed = match was {
            Some(was) => was != flow,
            None => !untouched(flow),
        };
        let open = flow.state.as_deref().is_some_and(|s| s != "CLOSED");
        let about = touched.as_deref() == Some(flow.name.as_str());
        if last || changed || about || (kind == "advance" && open) {
            out.push(expect(flow));
        }
    }
    let transitions = o.transitions.clone().unwrap_or_default();
    let had = before
        .and_then(|b| b.transitions.clone())
        .unwrap_or_default();
    if last || transitions != had {
        out.push(json!({"expect_transitions": transitions}));
    }
    let had = before.map(|b| b.alerts.clone()).unwrap_or_default();
    if last || o.alerts != had {
        out.push(json!({"expect_alerts": o.alerts}));
    }
    out
}

/// Whether a flow is as every scenario starts it.
fn untouched(f: &FlowSnapshot) -> bool {
    f.state.as_deref() == Some("CLOSED") && f.calls == 0 && f.in_flight == 0 && f.peak == 0
}

/// A check of everything observed of a flow.
fn expect(f: &FlowSnapshot) -> Value {
    let mut fields = Map::new();
    fields.insert("flow".into(), Value::from(f.name.clone()));
    if let Some(state) = &f.state {
        fields.insert("state".into(), Value::from(state.clone()));
    }
    fields.insert("calls".into(), Value::from(f.calls));
    fields.insert("in_flight".into(), Value::from(f.in_flight));
    fields.insert("peak".into(), Value::from(f.peak));
    if !f.answered.is_empty() {
        fields.insert("answered".into(), json!(f.answered));
    }
    json!({ "expect": fields })
}

/// The rule of section 6 of the handout that a failed expectation of `step` checks.
pub fn rule_hint(step: &Step, d: &Difference) -> Option<String> {
    let expected = d.expected.as_str();
    let observed = d.observed.as_str();
    let words = |s: &str| -> Vec<String> {
        s.split([',', ' ', '[', ']', ';'])
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let has = |s: &str, w: &str| words(s).iter().any(|x| x == w);
    let hint = match step {
        Step::Send(_) | Step::SendConcurrent(_) | Step::Release(_) => {
            if has(expected, "circuit_open") && !has(observed, "circuit_open") {
                RULE_OPEN_REJECTS
            } else if has(observed, "circuit_open") && !has(expected, "circuit_open") {
                RULE_OPENS_WHEN
            } else if has(expected, "no_capacity") || has(observed, "no_capacity") {
                RULE_BULKHEAD
            } else if has(expected, "held") || has(observed, "held") {
                RULE_PROBES
            } else {
                RULE_ANSWER_UNCHANGED
            }
        }
        Step::Expect(_) => {
            if expected.contains(" circuit ") {
                RULE_STATES
            } else if expected.contains("calls reached") {
                RULE_CALLS
            } else if expected.contains("in progress") || expected.contains("at once at most") {
                RULE_BULKHEAD
            } else {
                RULE_ANSWER_UNCHANGED
            }
        }
        Step::ExpectTransitions(_) => RULE_RECORDS,
        Step::ExpectAlerts(_) => RULE_ALERTS,
        Step::Script(_) | Step::Advance(_) => return None,
    };
    Some(hint.to_owned())
}

const RULE_OPEN_REJECTS: &str = "An OPEN circuit answers circuit_open at once until open_for has elapsed since it opened, counted from the answer that opened it or the probe that failed (rules 6, 7 and 10: elapsed >= open_for, to the millisecond); HALF_OPEN lets `probes` probes through in all, not at once (rule 9).";
const RULE_OPENS_WHEN: &str = "The circuit opens only when the window holds at least minimum_calls outcomes of messages answered while CLOSED, younger than max_age, and failures x 100 >= failure_rate_percent x outcomes (rules 2 to 4); late answers change nothing (rule 13), and the first message once open_for has elapsed is a probe (rule 7).";
const RULE_BULKHEAD: &str = "At most max_concurrent messages of a flow are in progress; one more gets no_capacity at once, the slot comes back when the delivery ends (whatever it answered), and the breaker decides first, so a rejected message takes no slot and a probe turned away is handed back (rules 12, 18 to 20).";
const RULE_PROBES: &str = "A message waits in the partner only if the breaker let it through: every message while CLOSED, and in HALF_OPEN only `probes` probes in all, each round (rules 6, 7, 9 and 12).";
const RULE_ANSWER_UNCHANGED: &str = "A delivered message returns what the partner answered, unchanged: the gateway decides only circuit_open and no_capacity (rule 1 and section 4).";
const RULE_STATES: &str = "The state changes only as the rules say: CLOSED to OPEN when the window's failure share reaches the rate with enough outcomes, OPEN to HALF_OPEN on the first message once open_for has elapsed, back to OPEN on a failed probe, to CLOSED when every probe of the round succeeded; time alone changes nothing, and late answers change nothing (rules 4 to 13).";
const RULE_CALLS: &str = "A message reaches the partner only when the breaker lets it through and the bulkhead has a slot: every message while CLOSED, none while OPEN, `probes` in all in one HALF_OPEN round (rules 6 to 9, 18 and 20).";
const RULE_RECORDS: &str = "Every change of state is recorded once, with the clock time when it happened (the answer's time, not the sending's) and the flow, in the gateway's one log; nothing else is recorded (rule 21).";
const RULE_ALERTS: &str = "One Opened alert when the circuit opens from CLOSED, with the time of the answer that opened it and the window's failures and sample then; one Closed alert when it closes; none for a failed probe or anything else (rules 14 to 16).";

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<TargetPlan<Settings>> {
        grader_lab::generate::targets_of(include_str!("../../lab.json"))
    }

    #[test]
    fn a_seed_draws_the_same_draft_every_time() {
        let d = defaults();
        assert_eq!(draft(42, &d), draft(42, &d));
        assert_ne!(draft(42, &d), draft(43, &d));
    }

    #[test]
    fn drafts_stay_within_the_lab_s_limits_and_meet_every_class_of_answer() {
        let d = defaults();
        let mut answers = std::collections::BTreeSet::new();
        for seed in 1..300 {
            let draft = draft(seed, &d);
            // An age story takes eleven steps at most, a probe story eleven.
            assert!(draft.steps.len() <= MAX_STEPS + 3 + 22, "seed {seed}");
            for step in &draft.steps {
                if let Some(a) = step.pointer("/script/answer").and_then(Value::as_str) {
                    let class = match a.parse::<u16>() {
                        Ok(429) => "429".to_owned(),
                        Ok(n) => format!("{}xx", n / 100),
                        Err(_) => a.to_owned(),
                    };
                    answers.insert(class);
                }
            }
            for (name, o) in &draft.targets {
                let s: Settings =
                    serde_json::from_value(merge(&d[0].settings, o)).expect("settings");
                assert!(
                    crate::validate::settings(&s).is_empty(),
                    "seed {seed} {name}: {s:?}"
                );
            }
        }
        for class in [
            "1xx", "2xx", "3xx", "4xx", "429", "5xx", "timeout", "refused", "panic", "hold",
        ] {
            assert!(answers.contains(class), "no {class} drawn");
        }
    }

    /// Whether a failure share of the sample can come less than half a percent below
    /// the rate: a share a rounding gateway would take for the rate.
    fn rate_just_above_a_share(s: &Settings) -> bool {
        let m = s.minimum_calls;
        (1..m).any(|k| {
            let gap = s.failure_rate_percent * m;
            gap > k * 100 && 2 * (gap - k * 100) < m
        })
    }

    /// Whether a draft's first message on some flow is held while the flow gets failures
    /// enough to open it and the clock moves past the flow's wait, and answered only
    /// then.
    fn first_message_held_through_an_outage(draft: &Draft, d: &[TargetPlan<Settings>]) -> bool {
        d.iter()
            .any(|t| held_through_an_outage_on(&t.name, draft, d))
    }

    fn held_through_an_outage_on(flow: &str, draft: &Draft, d: &[TargetPlan<Settings>]) -> bool {
        let on_flow = |step: &Value| {
            ["script", "send", "release", "send_concurrent"]
                .iter()
                .any(|kind| step.pointer(&format!("/{kind}/flow")) == Some(&json!(flow)))
        };
        let mut steps = draft
            .steps
            .iter()
            .filter(|step| step.get("advance").is_some() || on_flow(step));
        let mut answer = String::new();
        loop {
            let Some(step) = steps.next() else {
                return false;
            };
            if let Some(a) = step.pointer("/script/answer").and_then(Value::as_str) {
                answer = a.to_owned();
            } else if step.pointer("/send/flow").is_some() {
                if answer != "hold" || step.pointer("/send/count").is_some() {
                    return false;
                }
                break;
            } else if step.get("advance").is_none() {
                return false;
            }
        }
        let o = draft.targets.get(flow).cloned().unwrap_or(json!({}));
        let s: Settings = serde_json::from_value(merge(&d[0].settings, &o)).expect("settings");
        let (mut failures, mut waited) = (0, 0);
        for step in steps {
            if let Some(a) = step.pointer("/script/answer").and_then(Value::as_str) {
                answer = a.to_owned();
            } else if step.get("send").is_some() {
                let failing = answer.starts_with('5')
                    || ["429", "timeout", "refused"].contains(&answer.as_str());
                if failing {
                    failures += step
                        .pointer("/send/count")
                        .and_then(Value::as_u64)
                        .unwrap_or(1);
                }
            } else if let Some(ms) = step.pointer("/advance/ms").and_then(Value::as_u64) {
                if failures >= s.minimum_calls {
                    waited += ms;
                }
            } else if step.get("release").is_some() {
                return failures >= s.minimum_calls && waited >= s.open_for_ms.max(1);
            }
        }
        false
    }

    /// Over the seeds CI grades, how many age stories decide their last failure one
    /// millisecond short of a `max_age` off the whole second, at `max_age` and one past
    /// it, with the old failures answered late, and with the last one answered late
    /// while the old ones still count: the moments a gateway that ages outcomes in whole
    /// seconds, keeps them at the boundary, ignores `max_age`, ages them from their
    /// sending, or stamps the alert with the sending gets wrong.
    /// Over the seeds CI grades, how many tell a probe story with more probes left than
    /// slots (a probe the bulkhead turns away, and a message the breaker must turn
    /// away while the probes hold every slot), and with slots enough for every probe
    /// left (a message past the round's probes, after one probe came back).
    #[test]
    fn ci_seeds_tell_probe_stories_with_slots_short_and_to_spare() {
        let d = defaults();
        let (mut short, mut spare) = (0, 0);
        for seed in 52817..52817 + 40 {
            let (draft, (_, probe)) = drawing(seed, &d);
            let Some(f) = probe else {
                continue;
            };
            let o = draft.targets.get(&d[f].name).cloned().unwrap_or(json!({}));
            let s: Settings = serde_json::from_value(merge(&d[0].settings, &o)).expect("s");
            if s.probes > s.max_concurrent {
                short += 1;
            } else {
                spare += 1;
            }
        }
        assert!(short >= 3, "{short} of 40 probe stories fill every slot");
        assert!(
            spare >= 3,
            "{spare} of 40 probe stories have slots to spare"
        );
    }

    #[test]
    fn ci_seeds_tell_age_stories_at_every_boundary() {
        let d = defaults();
        let (mut short, mut at, mut past, mut slow_first, mut slow_last) = (0, 0, 0, 0, 0);
        for seed in 52817..52817 + 40 {
            let Some(a) = drawing(seed, &d).1.0 else {
                continue;
            };
            let still_counts = a.decided < a.max_age;
            short += usize::from(still_counts && a.max_age % 1000 != 0);
            at += usize::from(a.decided == a.max_age);
            past += usize::from(a.decided > a.max_age);
            slow_first += usize::from(a.slow_first && still_counts);
            slow_last += usize::from(a.slow_last && still_counts);
        }
        for (what, n) in [
            ("short of a max_age off the whole second", short),
            ("at max_age", at),
            ("past max_age", past),
            ("short of max_age after late old failures", slow_first),
            ("short of max_age with a late last failure", slow_last),
        ] {
            assert!(n >= 3, "{n} of 40 age stories decide {what}");
        }
    }

    #[test]
    fn ci_seeds_hold_a_message_through_an_outage_and_sit_rates_just_above_a_share() {
        let d = defaults();
        let (mut held, mut rates) = (0, 0);
        for seed in 52817..52817 + 40 {
            let draft = draft(seed, &d);
            held += usize::from(first_message_held_through_an_outage(&draft, &d));
            rates += usize::from(draft.targets.values().any(|o| {
                let s: Settings = serde_json::from_value(merge(&d[0].settings, o)).expect("s");
                rate_just_above_a_share(&s)
            }));
        }
        assert!(held >= 4, "{held} of 40 hold a message through an outage");
        assert!(rates >= 6, "{rates} of 40 sit a rate just above a share");
    }

    fn merge(s: &Settings, o: &Value) -> Value {
        let mut v = serde_json::to_value(s).expect("settings");
        if let (Value::Object(v), Value::Object(o)) = (&mut v, o) {
            v.extend(o.clone());
        }
        v
    }
}
