//! A failed scenario's timeline: what each step did and what was observed after it, and
//! the backtrace of a panic trimmed to the code under test.

use std::collections::BTreeMap;

use grader_lab::{clock, counts};
use grader_protocol::StepRecord;

use super::describe;
use crate::report::{Outcome, TimelineEntry};
use crate::scenario::Scenario;

/// The steps that ran, as a timeline.
pub(super) fn timeline(
    scenario: &Scenario,
    records: &BTreeMap<usize, &StepRecord>,
    begun: &BTreeMap<usize, u64>,
    failed: Option<usize>,
) -> Vec<TimelineEntry> {
    let mut seen_transitions = 0;
    let mut out = Vec::new();
    for (i, placed) in scenario.steps.iter().enumerate() {
        let Some(r) = records.get(&i) else {
            if failed == Some(i) {
                out.push(TimelineEntry {
                    step: i + 1,
                    at: begun.get(&i).map_or_else(|| "?".into(), |ms| clock(*ms)),
                    action: describe(scenario, i),
                    result: "did not finish".into(),
                    targets: Vec::new(),
                    at_ms: begun.get(&i).copied(),
                    requests: Vec::new(),
                    tally: BTreeMap::new(),
                    observation: None,
                    transitions: Vec::new(),
                    failed_here: true,
                });
            }
            break;
        };
        // Which of several simultaneous requests got which answer depends on thread
        // timing; how many got each does not. Counts keep reports identical run to run.
        let simultaneous = scenario.plugin.simultaneous(&placed.step);
        let mut tally: BTreeMap<String, u32> = BTreeMap::new();
        for q in &r.requests {
            *tally.entry(q.outcome.clone()).or_default() += 1;
        }
        let result = if r.requests.is_empty() {
            String::new()
        } else if simultaneous {
            counts(&tally)
        } else {
            r.requests
                .iter()
                .map(|q| format!("#{} {}", q.id, q.outcome))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let snapshot = scenario.plugin.snapshot(&r.observation).unwrap_or_default();
        let all = snapshot.records;
        let new = all
            .get(seen_transitions..)
            .map(<[String]>::to_vec)
            .unwrap_or_default();
        seen_transitions = all.len();
        let targets = snapshot.targets;
        out.push(TimelineEntry {
            step: i + 1,
            at: clock(r.at_ms),
            action: scenario.plugin.describe(&placed.step),
            result,
            targets,
            at_ms: Some(r.at_ms),
            // Simultaneous requests are counted, not named: see `result`.
            requests: if simultaneous {
                Vec::new()
            } else {
                r.requests
                    .iter()
                    .map(|q| Outcome {
                        id: q.id,
                        outcome: q.outcome.clone(),
                    })
                    .collect()
            },
            tally: if simultaneous { tally } else { BTreeMap::new() },
            observation: Some(r.observation.clone()),
            transitions: new,
            failed_here: failed == Some(i),
        });
        if failed == Some(i) {
            break;
        }
    }
    out
}

/// A panic backtrace from the first frame of the code under test on, with the frames of
/// the panic machinery and the harness left out and paths shown the way people know them.
pub(super) fn trim_backtrace(bt: &str, shown: &dyn Fn(&str) -> String) -> String {
    let lines: Vec<&str> = bt.lines().collect();
    let is_frame = |l: &str| {
        let t = l.trim_start();
        t.split_once(':')
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let machinery = |l: &str| {
        [
            "std::",
            "core::",
            "__rust",
            "grader_harness::events",
            "rust_begin_unwind",
            "<alloc::",
            "alloc::",
        ]
        .iter()
        .any(|m| l.contains(m))
    };
    let start = lines
        .iter()
        .position(|l| is_frame(l) && !machinery(l))
        .unwrap_or(0);
    lines[start..]
        .iter()
        .map(|l| match l.trim_start().strip_prefix("at ") {
            Some(path) => {
                let indent = &l[..l.len() - l.trim_start().len()];
                let (file, rest) = path.split_once(':').unwrap_or((path, ""));
                if rest.is_empty() {
                    format!("{indent}at {}", shown(file))
                } else {
                    format!("{indent}at {}:{rest}", shown(file))
                }
            }
            None => (*l).to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
