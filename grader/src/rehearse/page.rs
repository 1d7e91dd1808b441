//! The rehearsal's page: one HTML file with everything inline (styles, SVG charts), so it
//! opens anywhere without a network.

use std::fmt::Write;

use grader_lab::rehearsal::{Table, Verdict};

use crate::html::{esc, start};

use super::Rehearsal;
use super::plots::Drawn;

/// The page of `r`, with `charts` drawn from it.
pub fn render(r: &Rehearsal, charts: &[Drawn]) -> String {
    let title = format!("Failure rehearsal: {}, {}", r.lab, r.subject);
    let mut h = start(&title, STYLE);
    if !r.about.is_empty() {
        let _ = writeln!(h, "<p class=\"about\">{}</p>", esc(&r.about));
    }
    let _ = writeln!(h, "<p>{}</p>", esc(&r.setting()));
    if let Some(sandbox) = &r.sandbox {
        let _ = writeln!(
            h,
            "<p class=\"sandbox\">The code under test was built and ran in this sandbox: {}.</p>",
            esc(sandbox)
        );
    }
    h.push_str("<h2>What you should see</h2>\n<ul class=\"expectations\">\n");
    for e in &r.expectations {
        let (class, mark, word) = match e.verdict {
            Verdict::Seen => ("seen", "✓", "seen"),
            Verdict::NotSeen => ("not-seen", "✗", "not seen"),
            Verdict::NotApplicable => ("na", "–", "not applicable"),
        };
        let _ = writeln!(
            h,
            "<li class=\"{class}\" data-expectation=\"{}\"><span class=\"mark\">{mark}</span> <b>{}</b> <span class=\"verdict\">({word})</span><br><span class=\"evidence\">{}</span></li>",
            esc(e.id),
            esc(&e.title),
            esc(&e.evidence)
        );
    }
    h.push_str("</ul>\n");
    notes(&mut h, r);
    for t in &r.report.tables_before {
        table(&mut h, t);
    }
    h.push_str("<h2>Charts</h2>\n");
    for c in charts {
        let _ = writeln!(
            h,
            "<figure id=\"{}\">\n<div class=\"plot\">{}</div>\n<figcaption><b>Look for:</b> {}</figcaption>\n</figure>",
            esc(&c.id),
            c.svg,
            esc(&c.look_for)
        );
    }
    for t in &r.report.tables_after {
        table(&mut h, t);
    }
    h.push_str(
        "<footer>Every observation behind these charts is in <code>rehearsal.json</code>, next to this page.</footer>\n</body>\n</html>\n",
    );
    h
}

fn notes(h: &mut String, r: &Rehearsal) {
    if r.notes.is_empty() {
        return;
    }
    h.push_str("<h2>Notes</h2>\n<ul class=\"notes\">\n");
    for n in &r.notes {
        let _ = writeln!(h, "<li>{}</li>", esc(n));
    }
    h.push_str("</ul>\n");
}

fn table(h: &mut String, t: &Table) {
    let _ = write!(h, "<h2>{}</h2>\n<table>\n<tr>", esc(&t.title));
    for (name, tip) in &t.columns {
        match tip {
            Some(tip) => {
                let _ = write!(h, "<th title=\"{}\">{}</th>", esc(tip), esc(name));
            }
            None => {
                let _ = write!(h, "<th>{}</th>", esc(name));
            }
        }
    }
    h.push_str("</tr>\n");
    for row in &t.rows {
        h.push_str("<tr>");
        for cell in row {
            let _ = write!(h, "<td>{}</td>", esc(cell));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    if !t.legend.is_empty() {
        let _ = writeln!(h, "<p class=\"legend\">{}</p>", esc(&t.legend));
    }
}

/// The rehearsal page's own look, after the common one.
const STYLE: &str = "
.about { font-size: 1.1em; }
ul.expectations { list-style: none; padding: 0; }
ul.expectations li { margin: .6em 0; padding: .5em .8em; border-left: 5px solid #aaa; background: #f7f7f7; }
ul.expectations li.seen { border-color: #2c9f2c; }
ul.expectations li.not-seen { border-color: #d62728; background: #fdf0f0; }
.mark { font-weight: bold; } .seen .mark { color: #2c9f2c; } .not-seen .mark { color: #d62728; }
.evidence, .verdict { color: #555; }
";
