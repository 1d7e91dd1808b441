//! The terminal summary of a rehearsal: what should have been seen, whether it was, and
//! where the page is.

use std::fmt::Write;
use std::path::Path;

use colored::Colorize;
use grader_lab::rehearsal::Verdict;

use super::Rehearsal;

/// A few lines for the terminal.
pub fn render(r: &Rehearsal, page: &Path, data: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Rehearsal of {}, {}", r.lab, r.subject);
    let _ = writeln!(s, "{}", r.setting());
    if let Some(sandbox) = &r.sandbox {
        // The name alone (`bubblewrap 0.8.0`, `none (--no-sandbox)`); the page says more.
        let name = sandbox.split(':').next().unwrap_or(sandbox);
        let _ = writeln!(s, "Sandbox: {name}");
    }
    for line in &r.report.summary_before {
        let _ = writeln!(s, "{line}");
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
    if !r.report.summary_after.is_empty() {
        let _ = writeln!(s);
        for line in &r.report.summary_after {
            let _ = writeln!(s, "  {line}");
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
