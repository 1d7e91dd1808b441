//! The terminal summary of a rehearsal: what should have been seen, whether it was, and
//! where the page is.

use std::fmt::Write;
use std::path::Path;

use colored::Colorize;

use super::Rehearsal;
use super::expect::{Verdict, ms};

/// A few lines for the terminal.
pub fn render(r: &Rehearsal, page: &Path, data: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Rehearsal of {}, {}", r.lab, r.subject);
    let _ = writeln!(s, "{}", r.setting());
    if let Some(story) = &r.figures.story {
        let phases: Vec<String> = story
            .phases
            .iter()
            .map(|p| format!("{} from {:.1} s", p.what, p.from_ms / 1000.0))
            .collect();
        let _ = writeln!(s, "{}: {}", story.sick, phases.join(", "));
    }
    let _ = writeln!(s);
    for e in &r.expectations {
        let mark = match e.verdict {
            Verdict::Seen => "seen".green().bold(),
            Verdict::NotSeen => "NOT SEEN".red().bold(),
            Verdict::NotApplicable => "n/a".dimmed(),
        };
        let _ = writeln!(s, "  {mark:<8} {}", e.title);
        let _ = writeln!(s, "           {}", e.evidence);
    }
    if let Some(story) = &r.figures.story {
        let _ = writeln!(s);
        let _ = writeln!(s, "  p99 latency by phase of {}:", story.sick);
        for (i, p) in story.phases.iter().enumerate() {
            let mut cells = Vec::new();
            for t in &r.script.targets {
                for relay in &r.figures.relays {
                    let p99 = relay
                        .targets
                        .get(&t.name)
                        .and_then(|f| f.phases.get(i))
                        .and_then(|f| f.p99_ms)
                        .map_or_else(|| "–".to_owned(), ms);
                    let who = if relay.name == "protected" {
                        "yours"
                    } else {
                        "unprotected"
                    };
                    cells.push(format!("{} {who} {p99}", t.name));
                }
            }
            let _ = writeln!(s, "    {:<9} {}", p.what, cells.join(" | "));
        }
    }
    for n in &r.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Page: {}", page.display());
    let _ = writeln!(s, "Data: {}", data.display());
    s
}
