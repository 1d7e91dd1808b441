//! Writing SVG by hand, the way every picture of the page needs it: presentation
//! attributes only (no style sheet, no classes that carry looks), so that a picture looks
//! the same on the page and embedded in a platform's sanitized HTML; classes and `data-`
//! attributes only name parts for the page's tests and filters; a `<title>` in a group is
//! its tooltip, which browsers show without script.

use std::fmt::Write;

use grader_lab::picture::{Fate, Tone};

use crate::html::esc;

/// An SVG document being written.
pub struct Svg {
    out: String,
}

/// A number for an attribute: one decimal at most.
fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

impl Svg {
    /// An SVG of `width` by `height` pixels; `attrs` are more attributes of the root
    /// (`class`, `data-lanes`), already escaped.
    pub fn new(width: f64, height: f64, attrs: &str) -> Svg {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" {attrs}>",
            w = n(width),
            h = n(height)
        );
        let _ = write!(
            out,
            "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
            n(width),
            n(height)
        );
        Svg { out }
    }

    /// Opens a group with `attrs` (already escaped) and, when `title` is not empty, a
    /// tooltip.
    pub fn group(&mut self, attrs: &str, title: &str) {
        let _ = write!(self.out, "<g {attrs}>");
        if !title.is_empty() {
            let _ = write!(self.out, "<title>{}</title>", esc(title));
        }
    }

    /// Closes the last group opened.
    pub fn end(&mut self) {
        self.out.push_str("</g>");
    }

    /// A rectangle; `extra` holds more attributes (already escaped).
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, extra: &str) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" {extra}/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    /// A line.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, extra: &str) {
        let _ = write!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" {extra}/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    /// A closed shape through `points`.
    pub fn polygon(&mut self, points: &[(f64, f64)], fill: &str, extra: &str) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{},{}", n(*x), n(*y)))
            .collect();
        let _ = write!(
            self.out,
            "<polygon points=\"{}\" fill=\"{fill}\" {extra}/>",
            pts.join(" ")
        );
    }

    /// A circle.
    pub fn circle(&mut self, (x, y): (f64, f64), r: f64, fill: &str, extra: &str) {
        let _ = write!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" {extra}/>",
            n(x),
            n(y),
            n(r)
        );
    }

    /// Text at `(x, y)` (its baseline), `size` pixels high, anchored `start`, `middle`
    /// or `end`.
    pub fn text(&mut self, (x, y): (f64, f64), size: f64, anchor: &str, fill: &str, text: &str) {
        let _ = write!(
            self.out,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{anchor}\" fill=\"{fill}\">{}</text>",
            n(x),
            n(y),
            n(size),
            esc(text)
        );
    }

    /// The whole document.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

/// The colour of what a request got, or of how it waits.
pub fn fate_colour(fate: Fate) -> &'static str {
    match fate {
        Fate::Answered => "#2c9f2c",
        Fate::Failed => "#e6750d",
        Fate::OpenCircuit => "#d62728",
        Fate::NoCapacity => "#8e5cc4",
        Fate::Timeout => "#8c564b",
        Fate::QueueExpired => "#1f77b4",
        Fate::Panicked => "#222222",
        Fate::Held => "#9ecae1",
        Fate::Queued => "#cdb8e6",
        Fate::Pausing => "#f2d37a",
        Fate::Other => "#9a9a9a",
    }
}

/// What a fate's colour means, for legends.
pub fn fate_meaning(fate: Fate) -> &'static str {
    match fate {
        Fate::Answered => "the target's answer",
        Fate::Failed => "the target's failure",
        Fate::OpenCircuit => "rejected: circuit open",
        Fate::NoCapacity => "rejected: no capacity",
        Fate::Timeout => "timed out",
        Fate::QueueExpired => "queue wait expired",
        Fate::Panicked => "panicked",
        Fate::Held => "held in the target",
        Fate::Queued => "queued for a slot",
        Fate::Pausing => "pausing between attempts",
        Fate::Other => "other",
    }
}

/// Every fate, in legend order.
pub const FATES: [Fate; 11] = [
    Fate::Answered,
    Fate::Failed,
    Fate::OpenCircuit,
    Fate::NoCapacity,
    Fate::Timeout,
    Fate::QueueExpired,
    Fate::Panicked,
    Fate::Held,
    Fate::Queued,
    Fate::Pausing,
    Fate::Other,
];

/// The colour of a breaker's state.
pub fn tone_colour(tone: Tone) -> &'static str {
    match tone {
        Tone::Closed => "#cfe8cf",
        Tone::Open => "#f5b5b5",
        Tone::HalfOpen => "#ffe08a",
        Tone::Unknown => "#e2e2e2",
    }
}

/// A colour per lock, condition variable or atomic of a sequence picture.
pub fn object_colour(i: usize) -> &'static str {
    const PALETTE: [&str; 6] = [
        "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
    ];
    PALETTE[i % PALETTE.len()]
}

/// `text` cut to about `chars` characters, with an ellipsis when cut.
pub fn short(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_one_decimal_and_text_is_escaped() {
        let mut s = Svg::new(10.0, 5.25, "class=\"x\"");
        s.text((1.04, 2.0), 9.0, "start", "#000", "a<b");
        let out = s.finish();
        assert!(out.contains("height=\"5.3\""), "{out}");
        assert!(out.contains("x=\"1\""), "{out}");
        assert!(out.contains("a&lt;b"), "{out}");
        assert!(out.ends_with("</svg>"));
    }

    #[test]
    fn long_texts_are_cut() {
        assert_eq!(short("abcdef", 4), "abc…");
        assert_eq!(short("abc", 4), "abc");
    }
}
