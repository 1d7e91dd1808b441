//! Scenarios in plain words, for `grader explain`: the envelope here, the steps and
//! settings in the words of the lab's plug-in.

use std::fmt::Write as _;

use crate::lab::Lab;
use crate::scenario::{Scenario, Visibility};
use grader_lab::clock;

/// The whole scenario in words: what it sets up, does, and checks, with the fake-clock
/// time of every step.
pub fn explain(lab: &Lab, s: &Scenario) -> String {
    let mut out = String::new();
    let category = lab
        .category(&s.category)
        .map_or(s.category.as_str(), |c| c.title.as_str());
    let visibility = match s.visibility {
        Visibility::Visible => "visible",
        Visibility::Hidden => "hidden: only run when submissions are graded",
    };
    let _ = writeln!(out, "{}: {}", s.name, s.title);
    let _ = writeln!(
        out,
        "category: {category}; {}; {visibility}",
        grader_lab::quantity(s.points, "point")
    );
    let _ = writeln!(out, "file: {}", s.path.display());
    if !s.description.is_empty() {
        let _ = writeln!(out, "\n{}", s.description);
    }
    if s.race {
        let schedules = lab
            .manifest
            .race
            .as_ref()
            .map_or_else(|| "many".to_owned(), |r| r.schedules.to_string());
        let _ = writeln!(
            out,
            "\nA race check: the steps run on the schedule explorer, once on each of {schedules} interleavings (the same ones every run). On every one, each check below must hold, and so must the lab's race properties: see its handout."
        );
    }
    let _ = writeln!(out, "\nSettings:");
    let plugin = &s.plugin;
    for t in &s.targets {
        let settings = plugin
            .describe_settings(&t.settings)
            .unwrap_or_else(|| t.settings.to_string());
        let _ = writeln!(out, "  {}: {settings}", t.name);
    }
    let _ = writeln!(out, "\nSteps ({}):", plugin.words().initially);
    let mut now = 0u64;
    for (i, placed) in s.steps.iter().enumerate() {
        let _ = write!(
            out,
            "  {:>2}. {} {}",
            i + 1,
            clock(now),
            plugin.describe(&placed.step)
        );
        match plugin.expectation(&placed.step) {
            Some(e) => {
                let _ = writeln!(out, "\n      checks: {e}");
            }
            None => {
                let _ = writeln!(out);
            }
        }
        now = now.saturating_add(plugin.advances_clock(&placed.step));
    }
    match s.rule.as_deref().and_then(|id| s.rules.get(id)) {
        Some(rule) => {
            let _ = writeln!(out, "\nThe rule it is about ({}): {}", rule.id, rule.rule);
            let _ = writeln!(
                out,
                "Hint shown when it fails{}: {}",
                hint_steps(s),
                rule.hint
            );
        }
        None => {
            let _ = writeln!(
                out,
                "\nHint shown when it fails{}: {}",
                hint_steps(s),
                s.hint
            );
        }
    }
    for c in &s.checks {
        let Some(rule) = s.rules.get(&c.rule) else {
            continue;
        };
        let steps: Vec<String> = c.steps.iter().map(|n| n.to_string()).collect();
        let _ = writeln!(
            out,
            "Step{} {} also check{} {} ({}){}",
            if steps.len() == 1 { "" } else { "s" },
            steps.join(", "),
            if steps.len() == 1 { "s" } else { "" },
            rule.id,
            rule.rule,
            match (&c.seen, &c.instead_of) {
                (Some(seen), Some(missing)) => {
                    format!(", when {seen} is seen there instead of {missing}")
                }
                (Some(word), None) => format!(", when {word} is seen there"),
                (None, Some(word)) => format!(", when {word} is expected there and not seen"),
                (None, None) => String::new(),
            }
        );
    }
    out
}

/// The steps the hint is about, in words, when they are not all of them: a failure
/// elsewhere is reported without it.
fn hint_steps(s: &Scenario) -> String {
    let (from, until, last) = (s.hint_from_step, s.hint_until_step, s.steps.len());
    match (from > 1, until < last) {
        (false, false) => String::new(),
        _ if from == until => format!(" at step {from}"),
        (true, false) => format!(" at step {from} or later"),
        (false, true) => format!(" at step {until} or earlier"),
        (true, true) => format!(" at steps {from} to {until}"),
    }
}
