//! Pictures for a course platform's test output (Gradescope's `output_format: "html"`):
//! each scenario that did not pass gets its picture inline, as long as it fits.
//!
//! Gradescope renders a test's HTML output after sanitizing it, and documents neither
//! which elements survive nor how large a results file may be. So the pictures use SVG
//! elements and presentation attributes only (no style sheet, no script, no external
//! reference), the text explanation always comes first (it reads the same if the
//! picture is stripped), and the sizes are capped here: a picture over [`PER_TEST`]
//! bytes, or one that would take all of them over [`TOTAL`], is left out with a word
//! saying so, and the page keeps it.

use std::collections::BTreeMap;

use super::Album;
use crate::html::esc;
use crate::report::{Report, Status};

/// The largest picture one test's output carries, in bytes.
pub const PER_TEST: usize = 64 * 1024;
/// The most bytes of pictures one results file carries.
pub const TOTAL: usize = 512 * 1024;

/// The picture of every scenario of `report` that did not pass and has one, by name, as
/// an HTML fragment to put after the test's text: the picture and what its colours mean,
/// or, past the caps (counted in report order, so the first failures keep theirs), a
/// sentence saying why it is left out.
pub fn embeds(report: &Report, album: &Album) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut total = 0;
    for s in report
        .scenarios
        .iter()
        .filter(|s| s.status != Status::Passed)
    {
        let Some(svg) = album
            .scene(&report.subject, &s.name)
            .and_then(|scene| scene.svg())
        else {
            continue;
        };
        let left = if svg.len() > PER_TEST {
            Some(format!(
                "its picture ({} kB) is larger than the {} kB a test's output carries",
                svg.len() / 1024,
                PER_TEST / 1024
            ))
        } else if total + svg.len() > TOTAL {
            Some(format!(
                "the pictures of the scenarios before it already take the {} kB this output carries",
                TOTAL / 1024
            ))
        } else {
            None
        };
        let html = match left {
            Some(why) => format!(
                "<p><em>No picture here: {}; the page of timelines has it.</em></p>",
                esc(&why)
            ),
            None => {
                total += svg.len();
                format!("<div>{svg}</div><p><small>{}</small></p>", esc(LEGEND))
            }
        };
        out.insert(s.name.clone(), html);
    }
    out
}

/// What the colours of an embedded picture mean, in one line.
pub const LEGEND: &str = "Time runs left to right on the fake clock, a column per step; each request is a lane from the step that sent it to its return: green the target's answer, orange its failure, red rejected as the circuit is open, purple rejected for capacity, brown a timeout, blue a queue wait that expired, light blue held in the target; the bands under the lanes are each breaker's state (green CLOSED, red OPEN, yellow HALF_OPEN); the step framed in red is where the scenario first differs. Hover for details.";
