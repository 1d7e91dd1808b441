//! Shrinking a divergence: a generated scenario on which the code under test and the
//! reference differ is made as small as it can be while they still differ, then written
//! as an ordinary scenario file that replays the divergence.
//!
//! Each candidate is a smaller draft (steps left out, a chunk at a time and then one by
//! one; a target's settings put back to the lab's defaults; a count or a duration made
//! smaller, rounder, or a setting moved toward its default), filled in again from the
//! reference, since the expectations of a smaller scenario are not those of the larger
//! one, and kept only if the code under test still fails it. Last, the checks that the
//! fill added and that passed before the failing step are left out, and so is every
//! step after it, as long as the failure stays exactly the same.

use std::path::{Path, PathBuf};

use grader_lab::Draft;
use serde_json::Value;

use super::file::{self, Envelope};
use super::{Filled, Oracle};
use crate::build::{Harness, Subject};
use crate::error::Error;
use crate::grade::{self, RunOptions};
use crate::report::{ScenarioResult, Status};
use crate::run::runner::Limits;
use crate::scenario::load;

/// The code under test a divergence is shrunk on.
pub struct Subjected<'a> {
    /// Its harness.
    pub harness: &'a Harness,
    /// The crate.
    pub subject: &'a Subject,
    /// How its scenarios run.
    pub opts: &'a RunOptions,
    /// Its per-scenario limits.
    pub limits: Limits,
}

/// A shrunk divergence.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The seed it was drawn from.
    pub seed: u64,
    /// The scenario file's text.
    pub text: String,
    /// Its steps.
    pub steps: usize,
    /// How the code under test fails it.
    pub result: ScenarioResult,
    /// Candidates tried.
    pub tries: usize,
}

/// At most this many candidates are filled in and run per divergence.
pub const BUDGET: usize = 400;

/// Shrinks the generated scenario of `seed` on `on`, named `name` (its file
/// `<name>.json`, written at `shown` relative to the kit). `None` when the code under
/// test does not fail it at all. A smaller candidate is kept only if every one of `fair`
/// (correct solutions written differently from the reference) still passes it: cutting
/// steps can take away what made a scenario's outcome one the rules decide, and a shrunk
/// file is meant to be published.
pub fn shrink(
    oracle: &Oracle,
    on: &Subjected<'_>,
    fair: &[Subjected<'_>],
    seed: u64,
    name: &str,
    shown: &Path,
) -> Result<Option<Shrunk>, Error> {
    let lab = oracle.lab();
    let generated =
        lab.manifest.generated.as_ref().ok_or_else(|| {
            Error::Usage(format!("{} has no generated scenarios", lab.manifest.name))
        })?;
    let mut envelope = super::envelope(lab, seed, false, generated.points, &generated.category);
    envelope.name = name.to_owned();
    let mut state = Search {
        oracle,
        on,
        fair,
        envelope: envelope.clone(),
        shown: shown.to_path_buf(),
        tries: 0,
    };
    let draft = oracle.draft(seed)?;
    let Some(mut best) = state.diverges(&draft)? else {
        return Ok(None);
    };
    while state.tries < BUDGET {
        let mut better = None;
        for candidate in candidates(lab, &best.0.draft) {
            if state.tries >= BUDGET {
                break;
            }
            if let Some(found) = state.diverges(&candidate)? {
                better = Some(found);
                break;
            }
        }
        match better {
            Some(found) => best = found,
            None => break,
        }
    }
    let (filled, result) = state.prune(best)?;
    envelope.title = format!(
        "Seed {seed}, shrunk: the smallest scenario found where {} and the reference differ",
        on.subject.label
    );
    envelope.description = format!(
        "Drawn from seed {seed} by {}'s generator, then shrunk while {} still failed it: steps left out, counts and durations made smaller, settings moved toward the defaults. Every expectation is what the reference solution did.",
        lab.manifest.name, on.subject.label
    );
    if let Some(hint) = &result.hint {
        envelope.hint = hint.clone();
    }
    let steps: Vec<Value> = filled.steps.iter().map(|(s, _)| s.clone()).collect();
    let text = file::text(&envelope, &filled.draft.targets, &steps);
    Ok(Some(Shrunk {
        seed,
        steps: steps.len(),
        text,
        result,
        tries: state.tries,
    }))
}

/// What the search carries.
struct Search<'a> {
    oracle: &'a Oracle,
    on: &'a Subjected<'a>,
    fair: &'a [Subjected<'a>],
    envelope: Envelope,
    shown: PathBuf,
    tries: usize,
}

impl Search<'_> {
    /// The draft filled in, and how the code under test fails it; `None` when the
    /// reference cannot fill it in (the lab's checks refuse it) or the code passes.
    fn diverges(&mut self, draft: &Draft) -> Result<Option<(Filled, ScenarioResult)>, Error> {
        self.tries += 1;
        let Ok(filled) = self.oracle.fill(draft, &self.envelope, &self.shown)? else {
            return Ok(None);
        };
        let Some(result) = self
            .run(self.on, &filled.text)?
            .filter(|r| r.status != Status::Passed)
        else {
            return Ok(None);
        };
        for fair in self.fair {
            if self
                .run(fair, &filled.text)?
                .is_none_or(|r| r.status != Status::Passed)
            {
                return Ok(None);
            }
        }
        Ok(Some((filled, result)))
    }

    /// Runs a filled file's text on `on`.
    fn run(&self, on: &Subjected<'_>, text: &str) -> Result<Option<ScenarioResult>, Error> {
        let Ok(scenario) = load::parse(self.oracle.lab(), text, &self.shown) else {
            return Ok(None);
        };
        grade::run_one(on.harness, on.subject, &scenario, on.opts, &on.limits).map(Some)
    }

    /// Leaves out every step after the failing one and the checks the fill added before
    /// it, if the failure stays the same.
    fn prune(&mut self, best: (Filled, ScenarioResult)) -> Result<(Filled, ScenarioResult), Error> {
        let (filled, result) = best;
        let Some(failure) = result.failure.clone() else {
            return Ok((filled, result));
        };
        let k = failure.step.saturating_sub(1);
        let tries: [Box<dyn Fn(usize, bool) -> bool>; 2] = [
            Box::new(move |i, added| i == k || (i < k && !added)),
            Box::new(move |i, _| i <= k),
        ];
        for keep in tries {
            let steps: Vec<(Value, bool)> = filled
                .steps
                .iter()
                .enumerate()
                .filter(|(i, (_, added))| keep(*i, *added))
                .map(|(_, s)| s.clone())
                .collect();
            let values: Vec<Value> = steps.iter().map(|(s, _)| s.clone()).collect();
            let text = file::text(&self.envelope, &filled.draft.targets, &values);
            let Some(again) = self.run(self.on, &text)? else {
                continue;
            };
            let same = again.failure.as_ref().is_some_and(|f| {
                f.action == failure.action
                    && f.expected == failure.expected
                    && f.observed == failure.observed
            });
            if same {
                let Ok(scenario) = load::parse(self.oracle.lab(), &text, &self.shown) else {
                    continue;
                };
                let pruned = Filled {
                    draft: filled.draft.clone(),
                    steps,
                    text,
                    scenario,
                };
                return Ok((pruned, again));
            }
        }
        Ok((filled, result))
    }
}

/// Smaller drafts than `draft`, the biggest cuts first.
fn candidates(lab: &crate::lab::Lab, draft: &Draft) -> Vec<Draft> {
    let mut out = Vec::new();
    let n = draft.steps.len();
    // Chunks of steps, from half of them down to one, the last ones first: what comes
    // after the divergence is the first to go.
    let mut size = n / 2;
    while size >= 1 {
        let mut start = n.saturating_sub(size);
        loop {
            let mut d = draft.clone();
            d.steps.drain(start..(start + size).min(n));
            if !d.steps.is_empty() {
                out.push(d);
            }
            if start == 0 {
                break;
            }
            start = start.saturating_sub(size);
        }
        size /= 2;
    }
    // A target's settings back to the lab's defaults, all of them, then one by one.
    for (name, settings) in &draft.targets {
        let mut d = draft.clone();
        d.targets.remove(name);
        out.push(d);
        if let Value::Object(fields) = settings {
            for key in fields.keys() {
                let mut d = draft.clone();
                if let Some(Value::Object(f)) = d.targets.get_mut(name) {
                    f.remove(key);
                }
                out.push(d);
            }
        }
    }
    // Numbers in steps: smaller and rounder.
    for (i, step) in draft.steps.iter().enumerate() {
        for (path, value) in numbers(step) {
            for smaller in smaller(value) {
                let mut d = draft.clone();
                set_number(&mut d.steps[i], &path, smaller);
                out.push(d);
            }
        }
    }
    // Settings toward the lab's defaults.
    for (name, settings) in &draft.targets {
        let defaults = lab.manifest.targets.iter().find(|t| &t.name == name);
        let Value::Object(fields) = settings else {
            continue;
        };
        for (key, value) in fields {
            let (Some(v), Some(d)) = (
                value.as_u64(),
                defaults
                    .and_then(|t| t.settings.get(key))
                    .and_then(Value::as_u64),
            ) else {
                continue;
            };
            for toward in toward(v, d) {
                let mut draft = draft.clone();
                if let Some(Value::Object(f)) = draft.targets.get_mut(name) {
                    f.insert(key.clone(), Value::from(toward));
                }
                out.push(draft);
            }
        }
    }
    out
}

/// The whole numbers inside a step (`{"kind": {"field": n}}`), by field.
fn numbers(step: &Value) -> Vec<(String, u64)> {
    let Some(Value::Object(fields)) = step.as_object().and_then(|o| o.values().next()) else {
        return Vec::new();
    };
    fields
        .iter()
        .filter_map(|(k, v)| v.as_u64().map(|n| (k.clone(), n)))
        .collect()
}

fn set_number(step: &mut Value, field: &str, n: u64) {
    if let Some(Value::Object(fields)) = step.as_object_mut().and_then(|o| o.values_mut().next()) {
        fields.insert(field.to_owned(), Value::from(n));
    }
}

/// Smaller values than `n`, the smallest first: 1, rounder ones, then steps down from
/// `n` that halve each time (`n - n/2`, `n - n/4`, ..., `n - 1`), so that a value that
/// must stay above some bound reaches it in a few rounds of the search rather than one
/// at a time.
fn smaller(n: u64) -> Vec<u64> {
    let mut out = vec![1, n / 1000 * 1000, n / 100 * 100, n / 10 * 10];
    let mut cut = n / 2;
    while cut >= 1 {
        out.push(n - cut);
        cut /= 2;
    }
    out.retain(|&m| m >= 1 && m < n);
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|m| seen.insert(*m));
    out
}

/// Values from `v` toward `default`, the closest to it first: the default, then steps
/// from `v` toward it that halve each time, down to one.
fn toward(v: u64, default: u64) -> Vec<u64> {
    let distance = v.abs_diff(default);
    let mut out = vec![default];
    let mut step = distance / 2;
    while step >= 1 {
        out.push(if v > default { v - step } else { v + step });
        step /= 2;
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|m| *m != v && seen.insert(*m));
    out
}

/// At most this many failed generated scenarios of one check are shrunk.
const SHRUNK_PER_CHECK: usize = 3;

/// After a check with generated scenarios filled in by `oracle`: shrinks the ones
/// `subject` failed (a few), writes each as a scenario file and says on `progress` where
/// it is and how to replay it.
pub fn after_check(
    oracle: &Oracle,
    subject: &Subject,
    report: &crate::report::Report,
    opts: &RunOptions,
    selection: &crate::grade::Selection,
    progress: &mut dyn std::io::Write,
) -> Result<(), Error> {
    let failed: Vec<u64> = report
        .scenarios
        .iter()
        .filter(|r| r.status != Status::Passed)
        .filter_map(|r| super::seed_of(&r.name))
        .take(SHRUNK_PER_CHECK)
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    let lab = oracle.lab();
    let work = crate::build::work_dir(lab);
    let harness = match crate::build::build_watching(lab, subject, &work, false, None)? {
        crate::build::Built::Harness(h) => h,
        crate::build::Built::CompileFailed(_) => return Ok(()),
    };
    let on = Subjected {
        harness: &harness,
        subject,
        opts,
        limits: selection.limits,
    };
    for seed in failed {
        let name = format!("{}_shrunk", super::name(seed));
        let shown = super::work_folder(lab).join(format!("{name}.json"));
        let _ = writeln!(progress, "shrinking {} ...", super::name(seed));
        let Some(shrunk) = shrink(oracle, &on, &[], seed, &name, &shown)? else {
            continue;
        };
        super::write_file(lab, &shown, &shrunk.text)?;
        let _ = writeln!(
            progress,
            "{} differs from the reference; shrunk to {}: {}\n  replay: grader check {} --scenario {}",
            super::name(seed),
            grader_lab::quantity(shrunk.steps as u64, "step"),
            shown.display(),
            lab.manifest.name,
            shown.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_shrink_toward_one_and_round_values() {
        assert_eq!(
            smaller(1_200),
            vec![
                1, 1_000, 600, 900, 1_050, 1_125, 1_163, 1_182, 1_191, 1_196, 1_198, 1_199
            ]
        );
        assert_eq!(smaller(2), vec![1]);
        assert_eq!(smaller(3), vec![1, 2]);
        assert!(smaller(1).is_empty());
        assert_eq!(toward(7, 10), vec![10, 8]);
        assert_eq!(toward(12, 10), vec![10, 11]);
        assert_eq!(toward(100, 20), vec![20, 60, 80, 90, 95, 98, 99]);
        assert_eq!(toward(20, 100), vec![100, 60, 40, 30, 25, 22, 21]);
        assert!(toward(10, 10).is_empty());
    }

    #[test]
    fn a_step_s_numbers_are_found_and_set() {
        let mut step = serde_json::json!({"send": {"flow": "acme/ORDERS", "count": 7}});
        assert_eq!(numbers(&step), vec![("count".to_owned(), 7)]);
        set_number(&mut step, "count", 3);
        assert_eq!(step["send"]["count"], 3);
    }
}
