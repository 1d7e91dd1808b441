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

/// A backtrace cut to the frames of the code under test: a frame is kept when its file,
/// as people know it (`shown`), is one of the kit's or the submission's own files (a
/// path relative to them), and the frames of the harness, the fixtures, the standard
/// library and the runtime are left out, with their number said. A backtrace with no
/// such frame (the panic came from elsewhere) is kept whole, after the panic machinery.
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
    let place = |l: &str| -> Option<String> {
        let path = l.trim_start().strip_prefix("at ")?;
        let indent = &l[..l.len() - l.trim_start().len()];
        let (file, rest) = path.split_once(':').unwrap_or((path, ""));
        Some(if rest.is_empty() {
            format!("{indent}at {}", shown(file))
        } else {
            format!("{indent}at {}:{rest}", shown(file))
        })
    };
    // Each frame: its header line and the lines after it up to the next frame.
    let mut frames: Vec<Vec<String>> = Vec::new();
    for l in &lines {
        if is_frame(l) {
            frames.push(vec![(*l).to_owned()]);
        } else if let Some(frame) = frames.last_mut() {
            frame.push(place(l).unwrap_or_else(|| (*l).to_owned()));
        }
    }
    let own = |frame: &[String]| {
        frame.iter().skip(1).any(|l| {
            l.trim_start().strip_prefix("at ").is_some_and(|path| {
                !path.starts_with('/') && !path.starts_with("./") && !path.starts_with('<')
            })
        })
    };
    let kept: Vec<&Vec<String>> = frames.iter().filter(|f| own(f)).collect();
    if !kept.is_empty() {
        let left = frames.len() - kept.len();
        let mut out: Vec<String> = kept.into_iter().flatten().cloned().collect();
        if left > 0 {
            out.push(format!(
                "({} of the harness, the fixtures and the standard library left out)",
                grader_lab::quantity(left as u64, "frame")
            ));
        }
        return out.join("\n");
    }
    let start = lines
        .iter()
        .position(|l| is_frame(l) && !machinery(l))
        .unwrap_or(0);
    lines[start..]
        .iter()
        .map(|l| place(l).unwrap_or_else(|| (*l).to_owned()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::trim_backtrace;

    #[test]
    fn a_backtrace_keeps_the_frames_of_the_code_under_test() {
        let bt = "   0: __rustc::rust_begin_unwind
             at /rustc/abc/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/abc/library/core/src/panicking.rs:80:14
   2: some_crate::breaker::Breaker::admit
             at /work/kit/target/grader/labx/builds/k/subject/src/breaker.rs:40:9
   3: some_crate::gateway::Gateway::send
             at /work/kit/target/grader/labx/builds/k/subject/src/gateway.rs:60:5
   4: some_harness::run::World::send
             at /work/kit/labs/labx/harness/src/run.rs:66:33
   5: main";
        let shown = |p: &str| {
            p.replace(
                "/work/kit/target/grader/labx/builds/k/subject",
                "crates/some_crate",
            )
        };
        assert_eq!(
            trim_backtrace(bt, &shown),
            "   2: some_crate::breaker::Breaker::admit
             at crates/some_crate/src/breaker.rs:40:9
   3: some_crate::gateway::Gateway::send
             at crates/some_crate/src/gateway.rs:60:5
(4 frames of the harness, the fixtures and the standard library left out)"
        );
        // Without a frame of the code under test, the whole backtrace after the panic
        // machinery.
        let none = |p: &str| p.to_owned();
        assert!(trim_backtrace(bt, &none).starts_with("   2: some_crate::breaker::Breaker::admit"));
    }
}
