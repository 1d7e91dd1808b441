//! One scenario's result as plain text, for the formats that carry text from the grader
//! to a person through another system: the JUnit failure element and Gradescope's test
//! output. Nothing here is coloured, and timelines are whole.

use super::{ScenarioResult, Status};

/// The status in capitals, as the human report shows it.
pub fn tag(status: Status) -> &'static str {
    match status {
        Status::Passed => "PASS",
        Status::Failed => "FAIL",
        Status::Error => "ERROR",
        Status::Timeout => "TIMEOUT",
    }
}

/// Why a scenario did not pass: expected against observed (or the message), the
/// timeline up to the failing step, and the hint when `hints`. Empty for a pass.
pub fn explanation(s: &ScenarioResult, hints: bool) -> String {
    if s.status == Status::Passed {
        return String::new();
    }
    let mut out = String::new();
    for changed in &s.settings {
        out.push_str(&format!("settings: {changed}\n"));
    }
    match &s.failure {
        Some(f) => {
            out.push_str(&format!("step {} at {}: {}\n", f.step, f.at, f.action));
            out.push_str(&format!("  expected: {}\n", f.expected));
            out.push_str(&format!("  observed: {}\n", f.observed));
        }
        None => {
            out.push_str(&s.message);
            out.push('\n');
        }
    }
    if let Some(i) = &s.interleaving {
        out.push_str(&format!(
            "interleaving (schedule {} of {} explored):\n",
            i.schedule, i.explored
        ));
        for line in &i.lines {
            out.push_str(&format!("  {line}\n"));
        }
        out.push_str(&format!("replay: {}\n", i.replay));
    }
    if !s.timeline.is_empty() {
        out.push_str("timeline (fake clock):\n");
        for e in &s.timeline {
            let marker = if e.failed_here { ">>" } else { "  " };
            let result = if e.result.is_empty() {
                String::new()
            } else {
                format!(" -> {}", e.result)
            };
            out.push_str(&format!(
                "{marker}{:>3}. {} {}{result}\n",
                e.step, e.at, e.action
            ));
            for t in &e.targets {
                out.push_str(&format!("        {t}\n"));
            }
            for t in &e.transitions {
                out.push_str(&format!("        record: {t}\n"));
            }
        }
    }
    if hints {
        if let Some(hint) = &s.hint {
            out.push_str(&format!("hint: {hint}\n"));
        }
    }
    if let Some(bt) = &s.backtrace {
        out.push_str("backtrace:\n");
        out.push_str(bt);
        if !bt.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}
