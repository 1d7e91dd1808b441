//! A timeline drawn as SVG.
//!
//! Time runs left to right on the fake clock. Most steps take no fake time at all (a
//! scenario sends ten requests at `00:00:00.000`), so each step is a column of its own: an
//! instant is as wide as its requests need, one after the other, and a clock advance is a
//! stretch labelled with how far the clock moved, its width growing with the logarithm
//! of that time, inside which moments (a request returning, its budget running out) are
//! placed in proportion. Under the lanes: a band per breaker, its state after each step
//! and each transition record at its place; alerts as triangles above it; then the lab's
//! counts after each step.

use grader_lab::clock;
use grader_lab::picture::{Fate, MarkKind, Tone};

use super::svg::{Svg, fate_colour, short, tone_colour};
use super::timeline::{Column, Lane, Timeline};

/// Room for the lane names at the left.
const LEFT: f64 = 200.0;
/// Room at the right, for the open ends of requests still out.
const RIGHT: f64 = 44.0;
/// Room above the lanes, for the step numbers.
const TOP: f64 = 34.0;
/// A band's height.
const BAND_H: f64 = 18.0;
/// A count's height.
const GAUGE_H: f64 = 20.0;
/// Room below, for the clock.
const AXIS_H: f64 = 34.0;
/// Room a request sent one after another takes in its step.
const SLOT: f64 = 12.0;
/// The narrowest step.
const NARROW: f64 = 24.0;

/// Where everything goes.
struct Layout {
    x: Vec<f64>,
    w: Vec<f64>,
    lane_h: f64,
    lanes_top: f64,
    bands_top: f64,
    gauges_top: f64,
    axis_top: f64,
    width: f64,
    height: f64,
}

impl Layout {
    fn new(t: &Timeline) -> Layout {
        let mut sent = vec![0usize; t.columns.len()];
        for lane in &t.lanes {
            if let Some(n) = sent.get_mut(lane.sent.0) {
                *n += 1;
            }
        }
        let w: Vec<f64> = t
            .columns
            .iter()
            .zip(&sent)
            .map(|(c, &k)| width(c, k))
            .collect();
        let mut x = Vec::with_capacity(w.len());
        let mut at = LEFT;
        for wi in &w {
            x.push(at);
            at += wi;
        }
        let lane_h = match t.lanes.len() {
            0..=60 => 14.0,
            61..=200 => 8.0,
            _ => 4.0,
        };
        let lanes_top = TOP;
        let lanes_h = (t.lanes.len().max(1) as f64) * lane_h;
        let bands_top = lanes_top + lanes_h + 10.0;
        let gauges_top = bands_top + t.bands.len() as f64 * BAND_H + 8.0;
        let axis_top = gauges_top + t.gauges.len() as f64 * GAUGE_H + 4.0;
        Layout {
            x,
            w,
            lane_h,
            lanes_top,
            bands_top,
            gauges_top,
            axis_top,
            // Room for the words of a picture with next to nothing in it.
            width: (at + RIGHT).max(LEFT + 320.0),
            height: axis_top + AXIS_H + if t.cut { 14.0 } else { 0.0 },
        }
    }

    /// Where the last column ends.
    fn end(&self) -> f64 {
        self.x
            .last()
            .zip(self.w.last())
            .map_or(LEFT, |(x, w)| x + w)
    }

    /// The x of fake-clock moment `ms` during column `c`.
    fn during(&self, t: &Timeline, c: usize, ms: u64) -> f64 {
        let col = &t.columns[c];
        if col.advance_ms == 0 || ms <= col.at_ms {
            return self.x[c] + self.w[c] / 2.0;
        }
        let f = (ms - col.at_ms) as f64 / col.advance_ms as f64;
        self.x[c] + self.w[c] * f.min(1.0)
    }

    /// The x of fake-clock moment `ms` wherever it falls, if it falls in the picture.
    fn moment(&self, t: &Timeline, ms: u64) -> Option<f64> {
        t.columns.iter().enumerate().find_map(|(c, col)| {
            let inside = col.advance_ms > 0 && ms > col.at_ms && ms <= col.at_ms + col.advance_ms;
            let at_start = col.advance_ms == 0 && ms == col.at_ms;
            (inside || at_start).then(|| self.during(t, c, ms))
        })
    }
}

/// The width of a step that sends `sends` requests.
fn width(c: &Column, sends: usize) -> f64 {
    if c.advance_ms > 0 {
        return 64.0 + 16.0 * (c.advance_ms as f64).log10().max(0.0);
    }
    if c.together {
        return NARROW.max(36.0);
    }
    NARROW.max(SLOT * sends as f64 + 10.0)
}

/// The clock as the axis shows it: `MM:SS.mmm`, with hours only when there are some.
fn short_clock(ms: u64) -> String {
    let full = clock(ms);
    match full.strip_prefix("00:") {
        Some(rest) => rest.to_owned(),
        None => full,
    }
}

/// A stretch of fake time in words, for an advance's label: `+30 s`, `+250 ms`.
fn stretch(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("+{} s", ms / 1000)
    } else if ms > 1000 {
        format!("+{:.3} s", ms as f64 / 1000.0)
    } else {
        format!("+{ms} ms")
    }
}

/// The SVG of `t`.
pub fn svg(t: &Timeline) -> String {
    let l = Layout::new(t);
    let attrs = format!(
        "class=\"timeline\" data-lanes=\"{}\" data-bands=\"{}\" data-steps=\"{}\"",
        t.lanes.len(),
        t.bands.len(),
        t.columns.len()
    );
    let mut s = Svg::new(l.width, l.height, &attrs);
    grid(&mut s, t, &l);
    for (row, lane) in t.lanes.iter().enumerate() {
        draw_lane(&mut s, t, &l, row, lane);
    }
    if t.lanes.is_empty() {
        s.text(
            (LEFT + 6.0, l.lanes_top + l.lane_h - 3.0),
            10.0,
            "start",
            "#666",
            "no requests were sent",
        );
    }
    bands(&mut s, t, &l);
    gauges(&mut s, t, &l);
    axis(&mut s, t, &l);
    focus(&mut s, t, &l);
    s.finish()
}

/// The step numbers over the columns, and their borders.
fn grid(s: &mut Svg, t: &Timeline, l: &Layout) {
    let bottom = l.axis_top;
    for (c, col) in t.columns.iter().enumerate() {
        let title = format!("step {}: {} at {}", c + 1, col.action, clock(col.at_ms));
        s.group(&format!("class=\"step\" data-step=\"{}\"", c + 1), &title);
        s.rect(
            l.x[c],
            TOP - 16.0,
            l.w[c],
            bottom - TOP + 16.0,
            if c % 2 == 0 { "#fafafa" } else { "#ffffff" },
            "",
        );
        s.text(
            (l.x[c] + l.w[c] / 2.0, TOP - 5.0),
            9.0,
            "middle",
            "#777",
            &(c + 1).to_string(),
        );
        s.end();
    }
    s.text((LEFT - 6.0, TOP - 5.0), 9.0, "end", "#777", "step");
}

/// One request's lane: its bar from sent to returned, coloured by how it waited and
/// what it got.
fn draw_lane(s: &mut Svg, t: &Timeline, l: &Layout, row: usize, lane: &Lane) {
    let y = l.lanes_top + row as f64 * l.lane_h;
    let bar_h = (l.lane_h - 4.0).max(2.0);
    let (c, rank) = lane.sent;
    let col = &t.columns[c];
    let x0 = if col.together {
        l.x[c] + 5.0
    } else {
        l.x[c] + 5.0 + SLOT * rank as f64
    };
    let x1 = match lane.end {
        Some((j, _)) if j == c && col.advance_ms == 0 => {
            if col.together {
                l.x[c] + l.w[c] - 5.0
            } else {
                x0 + SLOT - 3.0
            }
        }
        Some((j, ms)) => l.during(t, j, ms),
        None => l.end() + RIGHT - 8.0,
    }
    .max(x0 + 4.0);
    let mut title = format!(
        "request #{} to {}: sent at {} (step {})",
        lane.id,
        lane.band,
        clock(lane.sent_ms),
        c + 1
    );
    match lane.end {
        Some((j, ms)) => title.push_str(&format!(
            ", returned at {} (step {}): {}",
            clock(ms),
            j + 1,
            lane.outcome
        )),
        None => title.push_str(&format!(", still out: {}", lane.outcome)),
    }
    if lane.probe {
        title.push_str(&format!(
            "; a {} call, let through while HALF_OPEN",
            t.probe_word
        ));
    }
    if let Some(d) = lane.deadline_ms {
        title.push_str(&format!("; its budget ran out at {}", clock(d)));
    }
    let mut attrs = format!(
        "class=\"lane\" data-request=\"{}\" data-outcome=\"{}\"",
        lane.id,
        crate::html::esc(&lane.outcome)
    );
    if lane.probe {
        attrs.push_str(" data-probe=\"true\"");
    }
    if lane.stuck {
        attrs.push_str(" data-stuck=\"true\"");
    }
    s.group(&attrs, &title);
    s.text(
        (LEFT - 6.0, y + l.lane_h - 4.0),
        (l.lane_h - 3.0).min(10.0),
        "end",
        "#333",
        &short(&format!("#{} {}", lane.id, lane.band), 30),
    );
    // How it waited, column by column, then what it got.
    let last = lane.end.map_or(t.columns.len() - 1, |(j, _)| j);
    for k in c..=last {
        let from = x0.max(l.x[k]);
        let to = x1.min(l.x[k] + l.w[k]);
        if to <= from {
            continue;
        }
        // Time passes during an advance in the state the request was in when it began
        // (it changes when something wakes it); an instant shows the state it left.
        let after = lane.waits.range(k..).next();
        let before = lane.waits.range(..k).next_back();
        let wait = if k > c && t.columns[k].advance_ms > 0 {
            before.or(after)
        } else {
            after.or(before)
        }
        .map(|(_, f)| *f);
        let fill = match wait {
            Some(f) => fate_colour(f),
            None => fate_colour(lane.fate),
        };
        s.rect(from, y + 2.0, to - from, bar_h, fill, "");
    }
    if lane.end.is_some() && !lane.waits.is_empty() {
        let cap = (x1 - x0).min(7.0);
        s.rect(x1 - cap, y + 2.0, cap, bar_h, fate_colour(lane.fate), "");
    }
    if lane.end.is_none() {
        s.polygon(
            &[
                (x1, y + 2.0),
                (x1 + 6.0, y + 2.0 + bar_h / 2.0),
                (x1, y + 2.0 + bar_h),
            ],
            fate_colour(if lane.fate.waits() {
                lane.fate
            } else {
                Fate::Other
            }),
            "",
        );
    }
    // A trial is outlined in black, a stuck request in dashed red.
    let outline = match (lane.probe, lane.stuck) {
        (_, true) => Some("stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\""),
        (true, _) => Some("stroke=\"#000000\" stroke-width=\"1.5\""),
        _ => None,
    };
    if let Some(stroke) = outline {
        s.rect(
            x0 - 1.0,
            y + 1.0,
            x1 - x0 + 2.0,
            bar_h + 2.0,
            "none",
            stroke,
        );
    }
    if let Some(x) = lane.deadline_ms.and_then(|d| l.moment(t, d)) {
        s.line((x, y), (x, y + l.lane_h), "#333333", "stroke-width=\"1.5\"");
    }
    s.end();
}

/// The bands: each breaker's state after each step, split where records changed it.
fn bands(s: &mut Svg, t: &Timeline, l: &Layout) {
    for (row, band) in t.bands.iter().enumerate() {
        let y = l.bands_top + row as f64 * BAND_H;
        s.group(
            &format!(
                "class=\"band\" data-band=\"{}\"",
                crate::html::esc(&band.name)
            ),
            &format!("{}: its breaker's state", band.name),
        );
        row_name(s, y + BAND_H - 5.0, 10.0, &short(&band.name, 30));
        for (from, to, tone, word) in runs(t, l, band) {
            s.rect(
                from,
                y + 2.0,
                to - from,
                BAND_H - 4.0,
                tone_colour(tone),
                "",
            );
            if !word.is_empty() && to - from > 6.0 + 5.5 * word.len() as f64 {
                s.text((from + 3.0, y + BAND_H - 6.0), 9.0, "start", "#333", &word);
            }
        }
        s.end();
        for m in t.marks.iter().filter(|m| m.band == band.name) {
            mark(s, t, l, y, m);
        }
    }
}

/// A band's stretches of one state, left to right: from, to, tone, the state's word.
fn runs(t: &Timeline, l: &Layout, band: &super::timeline::Band) -> Vec<(f64, f64, Tone, String)> {
    let mut out: Vec<(f64, f64, Tone, String)> = Vec::new();
    let mut push = |from: f64, to: f64, tone: Tone, word: &str| {
        if to <= from {
            return;
        }
        match out.last_mut() {
            Some(last) if last.2 == tone && last.3 == word && (last.1 - from).abs() < 0.01 => {
                last.1 = to;
            }
            _ => out.push((from, to, tone, word.to_owned())),
        }
    };
    let mut state: Option<(String, Tone)> = None;
    for c in 0..t.columns.len() {
        let marks: Vec<&super::timeline::Mark> = t
            .marks
            .iter()
            .filter(|m| m.column == c && m.band == band.name && m.change.is_some())
            .collect();
        let before = state.clone().or_else(|| {
            marks
                .first()
                .and_then(|m| m.change)
                .map(|(from, _)| (String::new(), from))
                .or_else(|| band.after[c].clone())
        });
        let (mut tone, mut word) = before.map_or((Tone::Unknown, String::new()), |b| (b.1, b.0));
        let mut from = l.x[c];
        let n = marks.len() as f64;
        for (k, m) in marks.iter().enumerate() {
            let x = if t.columns[c].advance_ms > 0 {
                l.during(t, c, m.at_ms)
            } else {
                l.x[c] + l.w[c] * (k as f64 + 1.0) / (n + 1.0)
            };
            push(from, x, tone, &word);
            from = x;
            tone = m.change.map_or(Tone::Unknown, |(_, to)| to);
            word = word_of(&m.text);
        }
        if let Some((w, after)) = &band.after[c] {
            // The state read after the step is the truth, whatever the records said.
            if marks.is_empty() || *after != tone {
                tone = *after;
                word = w.clone();
            }
        }
        push(from, l.x[c] + l.w[c], tone, &word);
        state = Some((word, tone));
    }
    out
}

/// A row's name, at the left of the picture, its baseline at `y`.
fn row_name(s: &mut Svg, y: f64, size: f64, name: &str) {
    s.text((LEFT - 6.0, y), size, "end", "#333", name);
}

/// The state a transition record leads to (its last word).
fn word_of(record: &str) -> String {
    record.rsplit(' ').next().unwrap_or_default().to_owned()
}

/// A record's mark on its band: a diamond for a transition, a triangle for an alert.
fn mark(s: &mut Svg, t: &Timeline, l: &Layout, y: f64, m: &super::timeline::Mark) {
    let c = m.column;
    let same: Vec<&super::timeline::Mark> = t
        .marks
        .iter()
        .filter(|o| o.column == c && o.band == m.band && o.kind == m.kind)
        .collect();
    let k = same.iter().position(|o| std::ptr::eq(*o, m)).unwrap_or(0) as f64;
    let x = if t.columns[c].advance_ms > 0 {
        l.during(t, c, m.at_ms)
    } else {
        l.x[c] + l.w[c] * (k + 1.0) / (same.len() as f64 + 1.0)
    };
    let kind = match m.kind {
        MarkKind::Transition => "transition",
        MarkKind::Alert => "alert",
    };
    s.group(&format!("class=\"mark {kind}\""), &m.text);
    match m.kind {
        MarkKind::Transition => s.polygon(
            &[
                (x, y - 1.0),
                (x + 4.0, y + 3.0),
                (x, y + 7.0),
                (x - 4.0, y + 3.0),
            ],
            "#333333",
            "",
        ),
        MarkKind::Alert => s.polygon(
            &[(x - 5.0, y - 6.0), (x + 5.0, y - 6.0), (x, y + 2.0)],
            "#c2185b",
            "",
        ),
    }
    s.end();
}

/// The lab's counts after each step, as bars, with their peak.
fn gauges(s: &mut Svg, t: &Timeline, l: &Layout) {
    for (row, g) in t.gauges.iter().enumerate() {
        let y = l.gauges_top + row as f64 * GAUGE_H;
        let top = g
            .values
            .iter()
            .flatten()
            .copied()
            .chain(g.peak)
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let title = match g.peak {
            Some(p) => format!("{}, at most {p} at once", g.name),
            None => g.name.clone(),
        };
        s.group(
            &format!(
                "class=\"gauge\" data-gauge=\"{}\"",
                crate::html::esc(&g.name)
            ),
            &title,
        );
        row_name(s, y + GAUGE_H - 6.0, 9.0, &short(&g.name, 38));
        if let Some(p) = g.peak {
            s.text(
                (l.end() + 4.0, y + GAUGE_H - 6.0),
                8.0,
                "start",
                "#555",
                &format!("peak {p}"),
            );
        }
        s.line(
            (LEFT, y + GAUGE_H - 2.0),
            (l.end(), y + GAUGE_H - 2.0),
            "#cccccc",
            "",
        );
        for (c, v) in g.values.iter().enumerate() {
            let Some(v) = *v else { continue };
            if v == 0 {
                continue;
            }
            let h = (GAUGE_H - 5.0) * v as f64 / top;
            s.rect(
                l.x[c] + 2.0,
                y + GAUGE_H - 2.0 - h,
                l.w[c] - 4.0,
                h,
                "#7a8fa6",
                "",
            );
            if l.w[c] >= 18.0 {
                s.text(
                    (l.x[c] + l.w[c] / 2.0, y + 8.0),
                    8.0,
                    "middle",
                    "#222",
                    &v.to_string(),
                );
            }
        }
        s.end();
    }
}

/// The fake clock under everything: the time at each step where it changed, and each
/// advance's stretch.
fn axis(s: &mut Svg, t: &Timeline, l: &Layout) {
    let y = l.axis_top;
    s.line((LEFT, y), (l.end(), y), "#555555", "");
    let mut last: Option<u64> = None;
    for (c, col) in t.columns.iter().enumerate() {
        if last != Some(col.at_ms) {
            s.line((l.x[c], y), (l.x[c], y + 4.0), "#555555", "");
            s.text(
                (l.x[c] + 1.0, y + 14.0),
                9.0,
                "start",
                "#333",
                &short_clock(col.at_ms),
            );
        }
        last = Some(col.at_ms);
        if col.advance_ms > 0 {
            s.text(
                (l.x[c] + l.w[c] / 2.0, y + 26.0),
                9.0,
                "middle",
                "#555",
                &stretch(col.advance_ms),
            );
            if c + 1 == t.columns.len() {
                let end = l.x[c] + l.w[c];
                s.text(
                    (end, y + 14.0),
                    9.0,
                    "end",
                    "#333",
                    &short_clock(col.at_ms + col.advance_ms),
                );
            }
        }
    }
    s.text((LEFT - 6.0, y + 14.0), 9.0, "end", "#777", "fake clock");
    if t.cut {
        s.text(
            (LEFT, y + AXIS_H + 8.0),
            9.0,
            "start",
            "#777",
            "The steps after this one are not shown: this is a hidden scenario.",
        );
    }
}

/// The step that differs, framed, and the steps before it dimmed.
fn focus(s: &mut Svg, t: &Timeline, l: &Layout) {
    let Some(f) = &t.focus else { return };
    let c = f.column.min(t.columns.len() - 1);
    let (top, bottom) = (TOP - 16.0, l.axis_top);
    s.rect(
        LEFT,
        top,
        l.x[c] - LEFT,
        bottom - top,
        "#ffffff",
        "fill-opacity=\"0.55\" class=\"dimmed\"",
    );
    let label = if f.expected.is_empty() {
        format!("stopped at step {}", c + 1)
    } else {
        format!("step {} differs", c + 1)
    };
    s.group(
        &format!("class=\"focus\" data-step=\"{}\"", c + 1),
        &format!("{label}: {}", f.observed),
    );
    s.rect(
        l.x[c],
        top,
        l.w[c],
        bottom - top,
        "none",
        "stroke=\"#d62728\" stroke-width=\"2\"",
    );
    let anchor = if l.x[c] + l.w[c] / 2.0 > l.width - 80.0 {
        "end"
    } else {
        "start"
    };
    let x = if anchor == "end" {
        l.x[c] + l.w[c]
    } else {
        l.x[c]
    };
    s.text((x, top - 3.0), 10.0, anchor, "#d62728", &label);
    s.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advances_are_told_in_their_unit() {
        assert_eq!(stretch(30_000), "+30 s");
        assert_eq!(stretch(250), "+250 ms");
        assert_eq!(stretch(1500), "+1.500 s");
        assert_eq!(short_clock(30_000), "00:30.000");
        assert_eq!(short_clock(3_600_000), "01:00:00.000");
    }
}
