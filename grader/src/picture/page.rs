//! The page of one grading run: every scenario with its picture, those that did not pass
//! first, in one HTML file with its styles and pictures inline, readable without script
//! (a few lines of it only add buttons: the failures alone, pictures fitted to the
//! window).

use std::fmt::Write;
use std::path::Path;

use super::sequence::Sequence;
use super::svg::{FATES, fate_colour, fate_meaning, tone_colour};
use super::{Album, Picture, anchor};
use crate::error::Error;
use crate::html::{esc, start};
use crate::report::plain::tag;
use crate::report::{Report, ScenarioResult, Status};
use grader_lab::picture::Tone;

/// The page for `report`, with the pictures of `album`; hints when `hints`.
pub fn render(report: &Report, album: &Album, hints: bool) -> String {
    let title = format!("Timelines: {}, {}", report.lab, report.subject);
    let mut h = start(&title, STYLE);
    let passed = report
        .scenarios
        .iter()
        .filter(|s| s.status == Status::Passed)
        .count();
    let _ = writeln!(
        h,
        "<p class=\"summary\">{}/{} points; {passed} of {} scenarios passed.</p>",
        report.score,
        report.max_score,
        report.scenarios.len()
    );
    if report.compile_errors.is_some() {
        h.push_str("<p class=\"message\">The code does not compile, so no scenario ran and there is nothing to draw; the compiler's messages are in the report.</p>\n");
    }
    h.push_str("<p id=\"controls\" hidden><button type=\"button\" id=\"only-failed\">Show only the scenarios that did not pass</button> <button type=\"button\" id=\"fit\">Fit the pictures to the window</button></p>\n");
    legend(&mut h);
    let failed: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|s| s.status != Status::Passed)
        .collect();
    let good: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|s| s.status == Status::Passed)
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Did not pass ({})</h2>\n<ol class=\"toc\">",
            failed.len()
        );
        for s in &failed {
            let _ = writeln!(
                h,
                "<li><a href=\"#{}\">{}</a>: {}</li>",
                esc(&anchor(&s.name)),
                esc(&s.name),
                esc(&s.title)
            );
        }
        h.push_str("</ol>\n");
        for s in &failed {
            scenario(&mut h, &report.subject, s, album, hints);
        }
    }
    if !good.is_empty() {
        let _ = writeln!(h, "<h2>Passed ({})</h2>", good.len());
        for s in &good {
            scenario(&mut h, &report.subject, s, album, hints);
        }
    }
    h.push_str("<footer>Every picture is drawn from what the harness recorded on the fake clock; the report's text says the same in words.</footer>\n");
    let _ = write!(h, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    h
}

/// Writes `page` to `path`.
pub fn write(path: &Path, page: &str) -> Result<(), Error> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    }
    std::fs::write(path, page).map_err(|e| Error::io("write", path, e))
}

/// How to read the pictures: every colour and mark.
fn legend(h: &mut String) {
    h.push_str("<details class=\"legend-box\" open><summary>How to read a picture</summary>\n<p>Time runs left to right on the fake clock. Each step of the scenario is a column, numbered at the top: steps at the same instant stand side by side, and a clock advance is a stretch labelled with how far the clock moved. Each request is a lane, a bar from the step that sent it to the moment it returned, coloured by what it got; while it waits, by how it waits. Under the lanes, each breaker's state is a band, with its transition records as diamonds and alerts as triangles, then the counts the lab keeps after each step. The step where the scenario first differs from what it expects is framed in red, and the steps before it are dimmed.</p>\n<ul class=\"swatches\">\n");
    for fate in FATES {
        let _ = writeln!(
            h,
            "<li>{} {}</li>",
            swatch(fate_colour(fate), ""),
            esc(fate_meaning(fate))
        );
    }
    for (tone, word) in [
        (Tone::Closed, "breaker CLOSED"),
        (Tone::Open, "breaker OPEN"),
        (Tone::HalfOpen, "breaker HALF_OPEN"),
    ] {
        let _ = writeln!(h, "<li>{} {word}</li>", swatch(tone_colour(tone), ""));
    }
    let _ = writeln!(
        h,
        "<li>{} a call let through while HALF_OPEN (a trial, or a probe)</li>",
        swatch("#ffffff", "stroke=\"#000000\" stroke-width=\"1.5\"")
    );
    let _ = writeln!(
        h,
        "<li>{} a request stuck in the code under test</li>",
        swatch(
            "#ffffff",
            "stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\""
        )
    );
    h.push_str("<li><b>|</b> where a request's budget ran out</li>\n<li>▸ a request still out when the run ended</li>\n</ul>\n<p>A race check that broke a property is drawn as its schedule instead: a lane per thread, each move in the order the explorer ran it; a lock held is a bar in the lock's colour, waiting for it a dashed line, a call or a record a black dot, and the red line is where the property broke. Hover over any part for its details.</p>\n</details>\n");
}

/// A small square of `fill` for the legend.
fn swatch(fill: &str, extra: &str) -> String {
    format!(
        "<svg width=\"18\" height=\"12\" viewBox=\"0 0 18 12\"><rect x=\"1\" y=\"1\" width=\"16\" height=\"10\" fill=\"{fill}\" {extra}/></svg>"
    )
}

/// One scenario's part of the page.
fn scenario(h: &mut String, subject: &str, s: &ScenarioResult, album: &Album, hints: bool) {
    let passed = s.status == Status::Passed;
    let scene = album.scene(subject, &s.name);
    let lanes = scene.as_ref().and_then(|sc| match &sc.picture {
        Picture::Timeline(t) => Some(t.lanes.len()),
        _ => None,
    });
    let _ = write!(
        h,
        "<section class=\"scenario {}\" id=\"{}\" data-status=\"{}\"",
        if passed { "passed" } else { "failed" },
        esc(&anchor(&s.name)),
        s.status.as_str()
    );
    if let Some(n) = lanes {
        let _ = write!(h, " data-lanes=\"{n}\"");
    }
    h.push_str(">\n");
    let heading = format!(
        "<span class=\"tag {}\">{}</span> {} <small>({}/{} points)</small>",
        if passed { "pass" } else { "fail" },
        tag(s.status),
        esc(&s.name),
        s.score,
        s.max_score
    );
    if passed {
        let _ = writeln!(h, "<details><summary>{heading} {}</summary>", esc(&s.title));
    } else {
        let _ = writeln!(
            h,
            "<h3>{heading}</h3>\n<p class=\"title\">{}</p>",
            esc(&s.title)
        );
        let _ = writeln!(h, "<p class=\"message\">{}</p>", esc(&s.message));
        for changed in &s.settings {
            let _ = writeln!(h, "<p class=\"settings\">settings: {}</p>", esc(changed));
        }
        if let Some(f) = &s.failure {
            let _ = writeln!(
                h,
                "<dl class=\"difference\"><dt>step {} at {}</dt><dd>{}</dd><dt>expected</dt><dd>{}</dd><dt>observed</dt><dd>{}</dd></dl>",
                f.step,
                esc(&f.at),
                esc(&f.action),
                esc(&f.expected),
                esc(&f.observed)
            );
        }
    }
    match scene.as_ref().map(|sc| (&sc.picture, sc.svg())) {
        Some((picture, Some(svg))) => {
            let _ = write!(
                h,
                "<figure class=\"picture\"><div class=\"scroll\">{svg}</div>"
            );
            caption(h, picture, s);
            h.push_str("</figure>\n");
        }
        Some((Picture::Nothing(why), None)) => {
            let _ = writeln!(h, "<p class=\"nothing\">No picture: {}.</p>", esc(why));
        }
        _ => {
            // Nothing ran: the code does not compile, or the race checks cannot run it.
            let why = if passed {
                "this scenario's run was not kept".to_owned()
            } else {
                format!("nothing ran ({})", s.message)
            };
            let _ = writeln!(h, "<p class=\"nothing\">No picture: {}.</p>", esc(&why));
        }
    }
    if !passed && hints {
        if let Some(hint) = &s.hint {
            let _ = writeln!(h, "<p class=\"hint\"><b>Hint:</b> {}</p>", esc(hint));
        }
    }
    if passed {
        h.push_str("</details>\n");
    }
    h.push_str("</section>\n");
}

/// What a picture shows, under it.
fn caption(h: &mut String, picture: &Picture, s: &ScenarioResult) {
    match picture {
        Picture::Timeline(t) => {
            if let Some(c) = &t.caption {
                let _ = write!(h, "<figcaption>{}</figcaption>", esc(c));
            }
        }
        Picture::Sequence(q) => sequence_caption(h, q, s),
        Picture::Nothing(_) => {}
    }
}

fn sequence_caption(h: &mut String, q: &Sequence, s: &ScenarioResult) {
    let _ = write!(
        h,
        "<figcaption>Schedule {} of {} explored{}. {}<p class=\"replay\">Replay exactly this schedule: <code>{}</code></p>",
        q.schedule.0,
        q.schedule.1,
        if q.left_out > 0 {
            format!(" ({} earlier moves left out)", q.left_out)
        } else {
            String::new()
        },
        if q.mark.is_empty() {
            String::new()
        } else {
            format!("The red line: {}.", esc(&q.mark))
        },
        esc(&q.replay)
    );
    if let Some(i) = &s.interleaving {
        let lines: Vec<String> = i.lines.iter().map(|l| esc(l)).collect();
        let _ = write!(
            h,
            "<details><summary>The same schedule in words</summary><pre>{}</pre></details>",
            lines.join("\n")
        );
    }
    h.push_str("</figcaption>");
}

const STYLE: &str = "
body { max-width: 1280px; }
.summary { font-size: 1.1em; }
.legend-box { background: #f7f7f7; padding: .5em 1em; border-radius: 4px; }
ul.swatches { columns: 3; list-style: none; padding: 0; font-size: .9em; }
ul.swatches svg { vertical-align: middle; }
section.scenario { margin: 1.5em 0; padding-top: .5em; border-top: 1px solid #eee; }
section.scenario h3 { margin: .2em 0; }
.tag { font-family: monospace; font-weight: bold; padding: 0 .3em; border-radius: 3px; }
.tag.fail { background: #fdd; color: #a00; } .tag.pass { background: #dfd; color: #060; }
.title { font-style: italic; margin: .2em 0; }
.message, .settings { margin: .2em 0; }
dl.difference { display: grid; grid-template-columns: max-content 1fr; gap: .1em 1em; background: #fdf0f0; padding: .5em 1em; border-left: 4px solid #d62728; }
dl.difference dt { font-weight: bold; } dl.difference dd { margin: 0; }
.scroll { overflow-x: auto; border: 1px solid #eee; }
.scroll svg { display: block; }
body.fit .scroll svg { max-width: 100%; height: auto; }
.hint { background: #f3f7fd; padding: .4em .8em; border-left: 4px solid #1f77b4; }
.replay code { background: #f3f3f3; padding: .1em .3em; }
.nothing { color: #666; }
summary { cursor: pointer; }
";

/// Conveniences only: everything above reads the same without it.
const SCRIPT: &str = "
(function () {
  var controls = document.getElementById('controls');
  if (!controls) { return; }
  controls.hidden = false;
  var only = document.getElementById('only-failed');
  only.addEventListener('click', function () {
    var on = only.getAttribute('aria-pressed') !== 'true';
    only.setAttribute('aria-pressed', on ? 'true' : 'false');
    document.querySelectorAll('section.scenario.passed').forEach(function (s) { s.hidden = on; });
  });
  var fit = document.getElementById('fit');
  fit.addEventListener('click', function () { document.body.classList.toggle('fit'); });
})();
";
