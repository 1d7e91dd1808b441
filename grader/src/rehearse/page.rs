//! The rehearsal's page: one HTML file with everything inline (styles, SVG charts), so it
//! opens anywhere without a network.

use std::fmt::Write;

use rehearsal_protocol::Outcome;

use super::Rehearsal;
use super::charts::Chart;
use super::expect::{Verdict, ms};

/// The page of `r`, with `charts` drawn from it.
pub fn render(r: &Rehearsal, charts: &[Chart]) -> String {
    let mut h = String::new();
    let title = format!("Failure rehearsal: {}, {}", r.lab, r.subject);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    if !r.script.about.is_empty() {
        let _ = writeln!(h, "<p class=\"about\">{}</p>", esc(&r.script.about));
    }
    let _ = writeln!(h, "<p>{}</p>", esc(&r.setting()));
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
            e.id,
            esc(&e.title),
            esc(&e.evidence)
        );
    }
    h.push_str("</ul>\n");
    notes(&mut h, r);
    script_table(&mut h, r);
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
    phase_table(&mut h, r);
    outcome_table(&mut h, r);
    h.push_str(
        "<footer>Every request, every call and every sample behind these charts is in <code>rehearsal.json</code>, next to this page.</footer>\n</body>\n</html>\n",
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

fn script_table(h: &mut String, r: &Rehearsal) {
    h.push_str("<h2>The script</h2>\n<table>\n<tr><th>target</th><th>share of the load</th><th>breaker</th><th>bulkhead</th><th>its dependency</th></tr>\n");
    for t in &r.script.targets {
        let phases: Vec<String> = t
            .spans(r.script.duration_s)
            .iter()
            .map(|(from, to, p)| {
                let latency = p
                    .latency_ms
                    .map(|l| format!(", answers after {}", ms(l)))
                    .unwrap_or_default();
                format!("{:.1}–{:.1} s {}{latency}", from, to, p.behaviour.as_str())
            })
            .collect();
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>opens after {} failures in a row; retry after {}</td><td>{} at once</td><td>{}</td></tr>",
            esc(&t.name),
            t.share_of_load,
            t.failure_threshold,
            ms(t.retry_after_ms),
            t.max_concurrent,
            esc(&phases.join("; "))
        );
    }
    h.push_str("</table>\n");
}

fn phase_table(h: &mut String, r: &Rehearsal) {
    let Some(story) = &r.figures.story else {
        return;
    };
    let _ = writeln!(
        h,
        "<h2>Per phase of {}</h2>\n<table>\n<tr><th>phase</th><th>target</th><th>relay</th><th>sent</th><th>p50</th><th>p99</th><th>answers/s</th><th>calls/s to its dependency</th></tr>",
        esc(&story.sick)
    );
    for (i, p) in story.phases.iter().enumerate() {
        for t in &r.script.targets {
            for relay in &r.figures.relays {
                let Some(f) = relay.targets.get(&t.name).and_then(|f| f.phases.get(i)) else {
                    continue;
                };
                let cell = |x: Option<f64>| x.map_or_else(|| "–".to_owned(), ms);
                let _ = writeln!(
                    h,
                    "<tr><td>{:.1}–{:.1} s {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td></tr>",
                    p.from_ms / 1000.0,
                    p.to_ms / 1000.0,
                    esc(&p.what),
                    esc(&t.name),
                    relay_name(&relay.name),
                    f.sent,
                    cell(f.p50_ms),
                    cell(f.p99_ms),
                    f.answers_per_s,
                    f.calls_per_s
                );
            }
        }
    }
    h.push_str("</table>\n");
}

fn outcome_table(h: &mut String, r: &Rehearsal) {
    h.push_str("<h2>How requests ended</h2>\n<table>\n<tr><th>relay</th><th>target</th>");
    for o in Outcome::ALL {
        let _ = write!(h, "<th title=\"{}\">{}</th>", esc(o.cause()), o.as_str());
    }
    h.push_str("</tr>\n");
    for relay in &r.figures.relays {
        for (name, f) in &relay.targets {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td>",
                relay_name(&relay.name),
                esc(name)
            );
            for o in Outcome::ALL {
                let _ = write!(h, "<td>{}</td>", f.outcomes.get(&o).copied().unwrap_or(0));
            }
            h.push_str("</tr>\n");
        }
    }
    h.push_str("</table>\n<p class=\"legend\">");
    let causes: Vec<String> = Outcome::ALL
        .iter()
        .map(|o| format!("{}: {}", o.as_str(), o.cause()))
        .collect();
    let _ = writeln!(h, "{}</p>", esc(&causes.join("; ")));
}

fn relay_name(name: &str) -> &'static str {
    if name == "protected" {
        "your relay"
    } else {
        "unprotected"
    }
}

/// Text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; max-width: 960px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
.about { font-size: 1.1em; }
ul.expectations { list-style: none; padding: 0; }
ul.expectations li { margin: .6em 0; padding: .5em .8em; border-left: 5px solid #aaa; background: #f7f7f7; }
ul.expectations li.seen { border-color: #2c9f2c; }
ul.expectations li.not-seen { border-color: #d62728; background: #fdf0f0; }
.mark { font-weight: bold; } .seen .mark { color: #2c9f2c; } .not-seen .mark { color: #d62728; }
.evidence, .verdict { color: #555; }
figure { margin: 1.5em 0; } .plot svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #444; }
table { border-collapse: collapse; margin: 1em 0; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: left; }
.legend, footer { color: #666; font-size: .9em; }
footer { margin-top: 3em; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
    }
}
