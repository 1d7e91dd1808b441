//! The class page's HTML: one file, styles, charts and its one small script inline, so it
//! opens from disk anywhere without a network.

use std::fmt::Write;

use super::Class;
use super::alike::{BLIND_SPOTS, Likeness};
use crate::grade::gradebook::{GRADED, Gradebook, Row};
use crate::html::esc;
use crate::rehearse::plots::Drawn;
use crate::report::human::stop_words;

/// The page of `book`, with `charts` drawn from it.
pub fn render(book: &Gradebook, class: &Class<'_>, charts: &[Drawn]) -> String {
    let mut h = String::new();
    let title = format!("How the class did: {}", book.lab);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = esc(&title)
    );
    summary(&mut h, book, class);
    let chart = |h: &mut String, id: &str| {
        if let Some(c) = charts.iter().find(|c| c.id == id) {
            let _ = writeln!(
                h,
                "<figure id=\"{}\">\n<div class=\"plot\">{}</div>\n<figcaption><b>Look for:</b> {}</figcaption>\n</figure>",
                esc(&c.id),
                c.svg,
                esc(&c.look_for)
            );
        }
    };
    h.push_str("<h2>Scores</h2>\n");
    chart(&mut h, "scores");
    h.push_str("<h2>Pass rates</h2>\n");
    chart(&mut h, "categories");
    chart(&mut h, "scenarios");
    mistakes(&mut h, book, class);
    h.push_str("<h2>Every submission on every scenario</h2>\n");
    chart(&mut h, "grid");
    scenario_list(&mut h, book);
    alike(&mut h, class);
    submissions(&mut h, book);
    let _ = writeln!(
        h,
        "<footer>Made from <code>gradebook.json</code> beside this page (grader {}, scenarios {}); grading into the same results folder again makes it anew.</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>",
        esc(&book.kit_version),
        esc(crate::report::provenance::short(&book.scenarios_sha256))
    );
    h
}

fn summary(h: &mut String, book: &Gradebook, class: &Class<'_>) {
    let graded = class.graded.len();
    let mut scores: Vec<u32> = class.graded.iter().map(|r| r.score).collect();
    scores.sort_unstable();
    let mut parts = vec![format!(
        "{} submission{}: {graded} graded, {} not graded.",
        book.submissions.len(),
        if book.submissions.len() == 1 { "" } else { "s" },
        class.not_graded.len()
    )];
    if let Some(median) = scores.get(scores.len() / 2) {
        let full = scores.iter().filter(|s| **s == book.max_score).count();
        parts.push(format!(
            "Median score {median} of {}; {full} with full marks.",
            book.max_score
        ));
    }
    let _ = writeln!(h, "<p class=\"summary\">{}</p>", esc(&parts.join(" ")));
    let mut notes = Vec::new();
    if !class.skeletons.is_empty() {
        notes.push(format!(
            "Unchanged skeleton (no declared file differs from the kit's): {}.",
            class.skeletons.join(", ")
        ));
    }
    if !class.not_compiling.is_empty() {
        notes.push(format!(
            "Does not compile: {}.",
            class.not_compiling.join(", ")
        ));
    }
    for r in &class.not_graded {
        notes.push(format!(
            "Not graded ({}): {}: {}",
            r.status.replace('_', " "),
            r.name,
            r.message
        ));
    }
    if !notes.is_empty() {
        h.push_str("<ul class=\"notes\">\n");
        for n in notes {
            let _ = writeln!(h, "<li>{}</li>", esc(&n));
        }
        h.push_str("</ul>\n");
    }
}

/// The Start here of failing submissions, counted, then where the others stopped.
fn mistakes(h: &mut String, book: &Gradebook, class: &Class<'_>) {
    h.push_str("<h2>The mistakes most submissions made</h2>\n");
    h.push_str("<p>Each failing submission's report starts with a \"Start here\": the way most of its scenarios fail, shown in its simplest scenario. Counted over the graded submissions that compiled, unchanged skeletons left out:</p>\n");
    if class.mistakes.is_empty() {
        h.push_str("<p class=\"none\">No submission's report has a Start here: nothing failed at a step.</p>\n");
    } else {
        h.push_str("<table id=\"mistakes\">\n<tr><th>#</th><th>submissions</th><th>Start here</th><th>expected</th><th>observed</th><th>whose</th></tr>\n");
        for (i, (lead, whose)) in class.mistakes.iter().enumerate() {
            let hidden = book
                .scenario_columns
                .iter()
                .any(|s| s.name == lead.scenario && s.hidden);
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code>{} step {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                i + 1,
                whose.len(),
                esc(&lead.scenario),
                if hidden { " (hidden)" } else { "" },
                lead.step,
                esc(&lead.expected),
                esc(&lead.observed),
                esc(&whose.join(", "))
            );
        }
        h.push_str("</table>\n");
    }
    if !class.stops.is_empty() {
        h.push_str("<p>Submissions whose scenarios stopped before any step could fail, by the place most of them stopped:</p>\n<ul class=\"stops\">\n");
        for (place, whose) in &class.stops {
            let _ = writeln!(
                h,
                "<li>{} at {}: {}</li>",
                whose.len(),
                esc(&stop_words(place)),
                esc(&whose.join(", "))
            );
        }
        h.push_str("</ul>\n");
    }
}

/// The grid's column numbers.
fn scenario_list(h: &mut String, book: &Gradebook) {
    h.push_str("<ol class=\"scenarios\">\n");
    for s in &book.scenario_columns {
        let _ = writeln!(
            h,
            "<li><code>{}</code>{}: {}</li>",
            esc(&s.name),
            if s.hidden {
                " <span class=\"hidden\">(hidden)</span>"
            } else {
                ""
            },
            esc(&s.title)
        );
    }
    h.push_str("</ol>\n");
}

fn alike(h: &mut String, class: &Class<'_>) {
    h.push_str("<h2>Submissions that look alike</h2>\n");
    if class.alike.is_empty() {
        h.push_str(
            "<p class=\"none\">No two graded submissions look alike in the ways seen here.</p>\n",
        );
    } else {
        h.push_str("<ul id=\"alike\">\n");
        for g in &class.alike {
            let how = match g.likeness {
                Likeness::Identical => "identical files",
                Likeness::SameCode => "the same code once comments and white space are left out",
            };
            let _ = writeln!(
                h,
                "<li data-likeness=\"{}\"><b>{}</b> ({how}): {}</li>",
                match g.likeness {
                    Likeness::Identical => "identical",
                    Likeness::SameCode => "same-code",
                },
                g.members.len(),
                esc(&g.members.join(", "))
            );
        }
        h.push_str("</ul>\n");
    }
    let _ = writeln!(
        h,
        "<p class=\"caveat\"><b>What this cannot see:</b> {}</p>",
        esc(BLIND_SPOTS)
    );
}

fn submissions(h: &mut String, book: &Gradebook) {
    h.push_str("<h2>Submissions</h2>\n<p>Click a column's head to sort by it.</p>\n<table id=\"submissions\" class=\"sortable\">\n<tr><th>submission</th><th>student</th><th>status</th><th>score</th><th>Start here</th><th>graded at</th></tr>\n");
    for r in &book.submissions {
        let lead = start_here(r);
        let score = if r.status == GRADED {
            r.score.to_string()
        } else {
            String::new()
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td data-sort=\"{}\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.name),
            esc(r.student.as_ref().map(|s| s.name.as_str()).unwrap_or("")),
            esc(&r.status.replace('_', " ")),
            if r.status == GRADED {
                r.score as i64
            } else {
                -1
            },
            score,
            esc(&lead),
            esc(&r.graded_at)
        );
    }
    h.push_str("</table>\n");
}

fn start_here(r: &Row) -> String {
    match (&r.start_here, &r.stopped_at) {
        _ if r.unchanged_skeleton => "unchanged skeleton".to_owned(),
        (Some(l), _) => format!("{} step {}", l.scenario, l.step),
        (None, Some(place)) => stop_words(place),
        (None, None) => String::new(),
    }
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
.summary { font-size: 1.1em; }
figure { margin: 1.5em 0; } .plot svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #444; }
table { border-collapse: collapse; margin: 1em 0; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: left; vertical-align: top; }
table.sortable th { cursor: pointer; background: #f4f4f4; }
ol.scenarios { columns: 2; font-size: .85em; }
.hidden { color: #7a5aa8; }
.none, .caveat, footer { color: #555; }
footer { margin-top: 3em; font-size: .9em; }
";

/// Sorting the submissions table by a column; nothing else runs.
const SCRIPT: &str = "
document.querySelectorAll('table.sortable').forEach(function (table) {
  var heads = table.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, column) {
    th.addEventListener('click', function () {
      var rows = Array.prototype.slice.call(table.rows, 1);
      var up = th.dataset.order !== 'up';
      th.dataset.order = up ? 'up' : 'down';
      rows.sort(function (a, b) {
        var x = a.cells[column], y = b.cells[column];
        var p = x.dataset.sort, q = y.dataset.sort;
        var d = (p !== undefined && q !== undefined) ? Number(p) - Number(q) : x.textContent.localeCompare(y.textContent);
        return up ? d : -d;
      });
      rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
    });
  });
});
";
