//! A race check's schedule drawn as SVG: one lane per thread, each move in its own column
//! in the order the explorer ran them. A lock held is a bar in the lock's colour from the
//! move that took it to the one that let it go; waiting for it is a dashed line; a sleep
//! on a condition variable a ring; an atomic a square; what the harness tells (a call
//! reaching a target, a record written) a dot with its words. The move where the property
//! broke is marked in red.

use super::sequence::{MoveKind, Sequence};
use super::svg::{Svg, object_colour, short};

/// Room for the thread names at the left.
const LEFT: f64 = 130.0;
/// Room above, for the move numbers and the words of calls.
const TOP: f64 = 44.0;
/// A thread's lane.
const LANE: f64 = 38.0;
/// A move's column.
const STEP: f64 = 28.0;
/// Room below, for the legend of locks.
const BOTTOM: f64 = 26.0;

/// The SVG of `q`.
pub fn svg(q: &Sequence) -> String {
    let n = q.moves.len().max(1) as f64;
    let width = LEFT + n * STEP + 150.0;
    let height = TOP + q.threads.len().max(1) as f64 * LANE + BOTTOM;
    let attrs = format!(
        "class=\"sequence\" data-threads=\"{}\" data-moves=\"{}\"",
        q.threads.len(),
        q.moves.len()
    );
    let mut s = Svg::new(width, height, &attrs);
    let x = |k: usize| LEFT + (k as f64 + 0.5) * STEP;
    let mid = |thread: usize| TOP + thread as f64 * LANE + LANE / 2.0;
    for (i, name) in q.threads.iter().enumerate() {
        s.group(
            &format!(
                "class=\"thread\" data-thread=\"{}\"",
                crate::html::esc(name)
            ),
            name,
        );
        s.text(
            (LEFT - 8.0, mid(i) + 4.0),
            11.0,
            "end",
            "#222",
            &short(name, 18),
        );
        s.line((LEFT, mid(i)), (LEFT + n * STEP, mid(i)), "#bbbbbb", "");
        s.end();
    }
    for k in (0..q.moves.len()).step_by(5) {
        s.text(
            (x(k), TOP - 30.0),
            8.0,
            "middle",
            "#888",
            &(k + 1 + q.left_out).to_string(),
        );
    }
    // Locks held and waited for, per thread and object.
    for (k, m) in q.moves.iter().enumerate() {
        let Some(object) = m.object else { continue };
        let later = q.moves[k + 1..]
            .iter()
            .position(|o| o.thread == m.thread && o.object == Some(object))
            .map(|p| k + 1 + p);
        let y = mid(m.thread);
        match m.kind {
            MoveKind::Locks => {
                let end = later
                    .filter(|&e| q.moves[e].kind == MoveKind::Unlocks)
                    .map_or(LEFT + n * STEP, x);
                s.rect(
                    x(k),
                    y - 6.0,
                    end - x(k),
                    12.0,
                    object_colour(object),
                    "fill-opacity=\"0.85\"",
                );
            }
            MoveKind::Asks => {
                let end = later
                    .filter(|&e| q.moves[e].kind == MoveKind::Locks)
                    .map_or(LEFT + n * STEP, x);
                s.line(
                    (x(k), y),
                    (end, y),
                    object_colour(object),
                    "stroke-width=\"3\" stroke-dasharray=\"4 3\"",
                );
            }
            _ => {}
        }
    }
    for (k, m) in q.moves.iter().enumerate() {
        let (cx, y) = (x(k), mid(m.thread));
        let colour = m.object.map_or("#333333", object_colour);
        let title = if m.at.is_empty() {
            format!(
                "{}. {}: {}",
                k + 1 + q.left_out,
                q.threads[m.thread],
                m.text
            )
        } else {
            format!(
                "{}. {}: {} at {}",
                k + 1 + q.left_out,
                q.threads[m.thread],
                m.text,
                m.at
            )
        };
        let kind = format!("{:?}", m.kind).to_lowercase();
        s.group(&format!("class=\"move {kind}\""), &title);
        match m.kind {
            MoveKind::Locks | MoveKind::Unlocks => {
                s.line(
                    (cx, y - 9.0),
                    (cx, y + 9.0),
                    "#222222",
                    "stroke-width=\"2\"",
                );
            }
            MoveKind::Asks => s.circle((cx, y), 3.0, colour, ""),
            MoveKind::FindsTaken => {
                s.line(
                    (cx - 4.0, y - 4.0),
                    (cx + 4.0, y + 4.0),
                    "#d62728",
                    "stroke-width=\"2\"",
                );
                s.line(
                    (cx - 4.0, y + 4.0),
                    (cx + 4.0, y - 4.0),
                    "#d62728",
                    "stroke-width=\"2\"",
                );
            }
            MoveKind::Sleeps => s.circle(
                (cx, y),
                5.0,
                "#ffffff",
                &format!("stroke=\"{colour}\" stroke-width=\"2\""),
            ),
            MoveKind::Wakes => s.polygon(
                &[(cx, y - 6.0), (cx + 5.0, y + 3.0), (cx - 5.0, y + 3.0)],
                colour,
                "",
            ),
            MoveKind::Atomic => s.rect(cx - 4.0, y - 4.0, 8.0, 8.0, colour, ""),
            MoveKind::Does => {
                s.circle((cx, y), 4.5, "#222222", "");
                s.text(
                    (cx, TOP - 8.0 - (k % 2) as f64 * 10.0),
                    8.0,
                    "middle",
                    "#333",
                    &short(&m.text, 22),
                );
                s.line(
                    (cx, TOP - 6.0 - (k % 2) as f64 * 10.0),
                    (cx, y - 5.0),
                    "#cccccc",
                    "",
                );
            }
        }
        s.end();
    }
    if !q.moves.is_empty() {
        let k = q.moves.len() - 1;
        let bx = x(k) + STEP / 2.0;
        s.group(
            "class=\"broke\"",
            &format!("the property broke here: {}", q.mark),
        );
        s.line(
            (bx, TOP - 4.0),
            (bx, height - BOTTOM),
            "#d62728",
            "stroke-width=\"2\"",
        );
        s.text(
            (bx + 4.0, TOP + 8.0),
            10.0,
            "start",
            "#d62728",
            "property broke",
        );
        s.end();
    }
    let mut lx = LEFT;
    for (i, name) in q.objects.iter().enumerate() {
        s.rect(lx, height - 16.0, 10.0, 10.0, object_colour(i), "");
        let label = short(name, 24);
        s.text((lx + 14.0, height - 7.0), 9.0, "start", "#333", &label);
        lx += 24.0 + 6.0 * label.chars().count() as f64;
    }
    s.finish()
}
