//! Generated scenarios, as a lab's plug-in draws them.
//!
//! A lab that can generate scenarios draws a [`Draft`] from a seed: settings for some of
//! its targets and a list of steps written exactly as in a scenario file, none of which
//! expects anything. The core runs the draft on the reference solution and hands each
//! step's record back to the plug-in ([`crate::Plugin::fill`]), which writes the strongest
//! expectations its judge checks; the result is an ordinary scenario file. The same seed
//! must give the same draft on every machine and with every build of the kit, so drafts
//! are drawn with [`Dice`], a fixed algorithm (ChaCha8) with ranges computed here, never
//! with whatever a random-number crate happens to do in its next version.

use grader_protocol::TargetPlan;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde_json::{Map, Value};

/// A scenario drawn from a seed, before the reference has run it: what to do, and no
/// expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// Settings that differ from the lab's defaults, per target, as a scenario file's
    /// `targets` gives them.
    pub targets: Map<String, Value>,
    /// The steps, each as a scenario file writes it (`{"advance": {"ms": 250}}`), none
    /// expecting anything.
    pub steps: Vec<Value>,
}

/// Random choices that come out the same for a seed everywhere: ChaCha8 (a published,
/// fixed stream) with every range reduced here by one multiplication, so neither the
/// platform nor a new release of a crate changes which scenario a seed names.
pub struct Dice {
    rng: ChaCha8Rng,
}

impl Dice {
    /// The dice of `seed`.
    pub fn new(seed: u64) -> Dice {
        Dice {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// A whole number from 0 to `n - 1` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        // The high half of a 128-bit product: uniform enough for scenarios (the bias is
        // below n / 2^64), and the same on every platform.
        ((u128::from(self.rng.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A whole number from `low` to `high`, both included (`low` when `high < low`).
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        low + self.below(high - low + 1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (which must not be empty), each as likely.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let i = self.below(items.len() as u64) as usize;
        &items[i.min(items.len().saturating_sub(1))]
    }

    /// One of `items`, each as likely as its weight says; the first when every weight is
    /// 0 (`items` must not be empty).
    pub fn weighted<'a, T>(&mut self, items: &'a [(u64, T)]) -> &'a T {
        let total: u64 = items.iter().map(|(w, _)| *w).sum();
        let mut roll = self.below(total);
        for (weight, item) in items {
            if roll < *weight {
                return item;
            }
            roll -= weight;
        }
        &items[0].1
    }

    /// A duration in milliseconds around `around`: most often just before, at or just
    /// after it (one millisecond either side), sometimes anywhere from half to twice it,
    /// so that boundaries are met exactly and off them too.
    pub fn near(&mut self, around: u64) -> u64 {
        match self.below(8) {
            0 | 1 => around.saturating_sub(1),
            2 | 3 => around,
            4 | 5 => around + 1,
            6 => self.range(around / 2, around),
            _ => self.range(around, around.saturating_mul(2).max(1)),
        }
    }

    /// A setting in milliseconds from `low` to `high`: a clean value (whole seconds, or a
    /// round hundred) a third of the time, otherwise any millisecond, so that code that
    /// rounds or compares in whole seconds meets values it gets wrong.
    pub fn millis(&mut self, low: u64, high: u64) -> u64 {
        let value = self.range(low, high);
        let clean = match self.below(6) {
            0 => value / 1000 * 1000,
            1 => value / 100 * 100,
            _ => value,
        };
        clean.clamp(low, high)
    }
}

/// Moments of a scenario being drawn: the fake clock, and when something happened on
/// each target (a request sent or answered), which is where windows, waits, queues and
/// budgets are measured from. Clock advances aimed at `from + d - 1`, `from + d` and
/// `from + d + 1` meet every boundary of a lab exactly.
#[derive(Clone, Debug, Default)]
pub struct Moments {
    /// The fake clock, in milliseconds.
    pub now: u64,
    /// Where the scenario is taken to start: the moment to measure from when nothing
    /// has happened yet.
    start: u64,
    by_target: std::collections::BTreeMap<String, Vec<u64>>,
}

impl Moments {
    /// Moments of a draft that starts at `now`: after a story told first, on dice of its
    /// own, the rest of a draft is drawn as it would be from the scenario's start.
    pub fn starting_at(now: u64) -> Moments {
        Moments {
            now,
            start: now,
            by_target: Default::default(),
        }
    }

    /// Whether nothing has happened on any target yet.
    pub fn is_empty(&self) -> bool {
        self.by_target.is_empty()
    }

    /// Something happened on `target` now.
    pub fn note(&mut self, target: &str) {
        let list = self.by_target.entry(target.to_owned()).or_default();
        if list.last() != Some(&self.now) {
            list.push(self.now);
        }
    }

    /// How far to move the clock to land one millisecond before, at or after `d` past a
    /// recent moment of `target` (any target's when it has none), or by about `d` when
    /// every such moment is that far behind already. At least 1.
    pub fn toward(&self, dice: &mut Dice, target: &str, d: u64) -> u64 {
        let mut recent: Vec<u64> = self
            .by_target
            .get(target)
            .map(|l| l.iter().rev().take(4).copied().collect())
            .unwrap_or_default();
        if recent.is_empty() {
            recent = self.by_target.values().flatten().copied().collect();
            recent.sort_unstable();
            recent.reverse();
            recent.truncate(4);
        }
        if recent.is_empty() {
            recent.push(self.start);
        }
        let from = *dice.pick(&recent);
        let target = from.saturating_add(dice.near(d));
        if target > self.now {
            target - self.now
        } else {
            dice.near(d).max(1)
        }
    }
}

/// The targets of a lab with their default settings, as the text of its `lab.json`
/// gives them: for a plug-in's tests of its generator. Panics on a manifest that does not
/// fit, which only a broken kit has.
pub fn targets_of<S: serde::de::DeserializeOwned>(lab_json: &str) -> Vec<TargetPlan<S>> {
    let manifest: Value = serde_json::from_str(lab_json).expect("lab.json is JSON");
    let targets = manifest["targets"].as_array().cloned().unwrap_or_default();
    targets
        .into_iter()
        .map(|mut t| {
            let name = t["name"].as_str().unwrap_or_default().to_owned();
            if let Some(fields) = t.as_object_mut() {
                fields.remove("name");
            }
            let settings = serde_json::from_value(t).expect("a target's settings fit the lab");
            TargetPlan { name, settings }
        })
        .collect()
}

/// How a lab's `release` step expects the requests whose calls it answered to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Released {
    /// One outcome, every one of them (`"expect": "503"`), given when they all ended alike.
    Alike,
    /// How many ended each way (`"expect": {"confirmed": 2}`).
    Counted,
}

/// A step of a draft with the expectations its requests' `outcomes` show: a send's in
/// order, a concurrent send's counted, a release's count set and its outcomes as
/// `released` says, an advance's counted when `advance_counted` (a lab whose requests
/// wait on its clock). Returns the step, its kind, and the target its `target_key` field
/// names.
pub fn expect_outcomes(
    step: &Value,
    outcomes: &[String],
    target_key: &str,
    released: Released,
    advance_counted: bool,
) -> (Value, String, Option<String>) {
    let mut step = step.clone();
    let kind = kind(&step).to_owned();
    let mut target = None;
    if let Some(fields) = fields_mut(&mut step) {
        target = fields
            .get(target_key)
            .and_then(Value::as_str)
            .map(str::to_owned);
        let counts = || serde_json::to_value(tally(outcomes)).unwrap_or_default();
        match kind.as_str() {
            "send" => expect_in_order(fields, outcomes),
            "send_concurrent" => {
                fields.insert("expect".into(), counts());
            }
            "advance" if advance_counted => {
                fields.insert("expect".into(), counts());
            }
            "release" => {
                released_count(fields, outcomes);
                match released {
                    Released::Counted => {
                        fields.insert("expect".into(), counts());
                    }
                    Released::Alike => {
                        if let Some(o) = outcomes
                            .first()
                            .filter(|o| outcomes.iter().all(|x| x == *o))
                        {
                            fields.insert("expect".into(), Value::from(o.clone()));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (step, kind, target)
}

/// The kind of a step as a scenario file writes it (`{"send": {...}}` is `send`).
pub fn kind(step: &Value) -> &str {
    step.as_object()
        .and_then(|o| o.keys().next())
        .map_or("", String::as_str)
}

/// The fields of a step (`{"send": {fields}}`), to add expectations to.
fn fields_mut(step: &mut Value) -> Option<&mut Map<String, Value>> {
    step.as_object_mut()?.values_mut().next()?.as_object_mut()
}

/// How many of `outcomes` are each word.
fn tally(outcomes: &[String]) -> std::collections::BTreeMap<String, u32> {
    let mut counts = std::collections::BTreeMap::new();
    for o in outcomes {
        *counts.entry(o.clone()).or_insert(0) += 1;
    }
    counts
}

/// A `send` step's expectation of requests sent one after the other: `expect` when they
/// all ended alike, `expect_each` in order otherwise.
fn expect_in_order(fields: &mut Map<String, Value>, outcomes: &[String]) {
    match outcomes.first() {
        Some(first) if outcomes.iter().all(|o| o == first) => {
            fields.insert("expect".into(), Value::from(first.clone()));
        }
        Some(_) => {
            fields.insert("expect_each".into(), Value::from(outcomes.to_vec()));
        }
        None => {}
    }
}

/// A `release` step's `count`, when it has one, set to how many calls it released: the
/// same action, since a release lets go of the oldest held calls up to its count (left
/// out when it released none).
fn released_count(fields: &mut Map<String, Value>, outcomes: &[String]) {
    if fields.contains_key("count") {
        if outcomes.is_empty() {
            fields.remove("count");
        } else {
            fields.insert("count".into(), Value::from(outcomes.len()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_draws_the_same_numbers_on_every_machine() {
        // Fixed values: if these change, every published seed names another scenario.
        let mut dice = Dice::new(17);
        let drawn: Vec<u64> = (0..6).map(|_| dice.below(1000)).collect();
        let again: Vec<u64> = {
            let mut dice = Dice::new(17);
            (0..6).map(|_| dice.below(1000)).collect()
        };
        assert_eq!(drawn, again);
        let other: Vec<u64> = {
            let mut dice = Dice::new(18);
            (0..6).map(|_| dice.below(1000)).collect()
        };
        assert_ne!(drawn, other);
        assert_eq!(drawn, STREAM_OF_17);
    }

    /// What `Dice::new(17)` draws below 1000, six times.
    const STREAM_OF_17: [u64; 6] = [704, 649, 561, 728, 506, 361];

    #[test]
    fn ranges_stay_inside_their_bounds() {
        let mut dice = Dice::new(3);
        for _ in 0..2000 {
            let n = dice.range(5, 9);
            assert!((5..=9).contains(&n));
            let ms = dice.millis(1, 60_000);
            assert!((1..=60_000).contains(&ms));
        }
        assert_eq!(dice.range(4, 4), 4);
        assert_eq!(dice.range(4, 2), 4);
        assert_eq!(dice.below(0), 0);
        let seen: std::collections::BTreeSet<u64> = (0..500).map(|_| dice.range(0, 3)).collect();
        assert_eq!(seen.len(), 4, "every value of a small range comes up");
    }

    #[test]
    fn near_meets_the_boundary_and_both_sides_of_it() {
        let mut dice = Dice::new(9);
        let drawn: Vec<u64> = (0..400).map(|_| dice.near(10_000)).collect();
        for want in [9_999, 10_000, 10_001] {
            assert!(drawn.contains(&want), "{want} never drawn");
        }
    }
}
