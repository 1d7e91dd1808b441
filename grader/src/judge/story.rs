//! The schedule that failed, as a few lines: which request took which lock where, what it
//! read, what it did, in the order the explorer ran it, and the code at each place named.
//!
//! Only the requests the broken property is about appear, only from the start of the step
//! where it broke, and only the locks and atomics of the code under test (those made in
//! its files), plus what each request did that matters: reaching a target, writing a
//! transition record, returning.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use grader_protocol::{TraceEvent, TraceObject, Violation};

use super::context::Context;

/// Lines a story keeps; earlier ones are left out.
const MOST: usize = 20;

/// The story of the schedule that broke `v`, which happened during `step`: the threads
/// it is about, up to where it broke.
pub fn violation(
    cx: &Context<'_>,
    trace: &[TraceEvent],
    v: &Violation,
    step: usize,
) -> Vec<String> {
    let who: BTreeSet<String> = v.about.iter().cloned().collect();
    let cut = v.until.unwrap_or(trace.len()).min(trace.len());
    tell(cx, trace, step, &who, cut, &v.mark)
}

/// The story of step `step` on a schedule that failed an expectation there: every request
/// of that step.
pub fn step(cx: &Context<'_>, trace: &[TraceEvent], step: usize) -> Vec<String> {
    let start = step_start(trace, step);
    let who: BTreeSet<String> = trace[start..]
        .iter()
        .take_while(|e| !(e.who == "the grader" && e.what == "step" && e.text != step.to_string()))
        .filter(|e| e.what == "request")
        .map(|e| e.who.clone())
        .collect();
    tell(cx, trace, step, &who, trace.len(), "")
}

/// The story of a schedule that broke nothing, for a replay: the step where the most
/// requests ran (the moment where threads meet; the first of equals), and its story.
pub fn busiest(cx: &Context<'_>, trace: &[TraceEvent]) -> (Option<usize>, Vec<String>) {
    let mut best: Option<(usize, usize)> = None;
    let steps: Vec<usize> = trace
        .iter()
        .filter(|e| e.who == "the grader" && e.what == "step")
        .filter_map(|e| e.text.parse().ok())
        .collect();
    for s in steps {
        let start = step_start(trace, s);
        let requests: BTreeSet<&str> = trace[start..]
            .iter()
            .skip(1)
            .take_while(|e| !(e.who == "the grader" && e.what == "step"))
            .filter(|e| e.what == "request")
            .map(|e| e.who.as_str())
            .collect();
        if best.is_none_or(|(_, n)| requests.len() > n) {
            best = Some((s, requests.len()));
        }
    }
    match best {
        Some((s, n)) if n > 0 => (Some(s), step(cx, trace, s)),
        _ => (None, Vec::new()),
    }
}

/// Where step `step` begins in the trace.
fn step_start(trace: &[TraceEvent], step: usize) -> usize {
    trace
        .iter()
        .position(|e| e.who == "the grader" && e.what == "step" && e.text == step.to_string())
        .unwrap_or(0)
}

/// One line being written: a locked section, or one move.
struct Line {
    who: String,
    text: String,
    extras: Vec<String>,
    /// The lock whose section this is, until it is let go.
    open: Option<u64>,
}

/// Tells what `who` did from the start of `step` up to event `cut`, marking the last line
/// with `mark`.
fn tell(
    cx: &Context<'_>,
    trace: &[TraceEvent],
    step: usize,
    who: &BTreeSet<String>,
    cut: usize,
    mark: &str,
) -> Vec<String> {
    let start = step_start(trace, step).min(cut);
    let window = &trace[start..cut.min(trace.len())];
    let sites = Sites::new(cx, trace);
    let mut lines: Vec<Line> = Vec::new();
    let mut places: BTreeMap<String, String> = BTreeMap::new();
    let mut waiting_for: BTreeMap<String, (String, String)> = BTreeMap::new();
    for e in window.iter().filter(|e| who.contains(&e.who)) {
        let ours = e.object.as_ref().filter(|o| sites.ours(&o.made));
        // What a thread does while holding a lock goes on that lock's line, if that is
        // still the thread's last line: otherwise the story would tell it out of order.
        let open = lines
            .iter()
            .rposition(|l| l.who == e.who)
            .filter(|&i| lines[i].open.is_some());
        match (e.what.as_str(), ours) {
            ("acquire", Some(o)) => {
                let at = sites.place(e, &mut places);
                waiting_for.insert(e.who.clone(), (o.name.clone(), at));
            }
            ("acquired", Some(o)) => {
                waiting_for.remove(&e.who);
                let at = sites.place(e, &mut places);
                let shared = if e.text == "shared" { " to read" } else { "" };
                lines.push(Line {
                    who: e.who.clone(),
                    text: format!("locks {}{shared} at {at}", o.name),
                    extras: Vec::new(),
                    open: Some(o.id),
                });
            }
            ("released", Some(o)) => {
                if let Some(i) = lines
                    .iter()
                    .rposition(|l| l.who == e.who && l.open == Some(o.id))
                {
                    lines[i].open = None;
                    lines[i].extras.push("unlocks it".into());
                }
            }
            ("try_failed", Some(o)) => {
                let at = sites.place(e, &mut places);
                add(
                    &mut lines,
                    open,
                    e,
                    format!("finds {} taken at {at}", o.name),
                );
            }
            ("atomic", Some(o)) => {
                let at = sites.place(e, &mut places);
                add(&mut lines, open, e, atomic(o, &e.text, &at));
            }
            ("waits", Some(_)) => {
                let at = sites.place(e, &mut places);
                add(
                    &mut lines,
                    open,
                    e,
                    format!("sleeps on a condition variable at {at}"),
                );
            }
            ("does", _) => add(&mut lines, open, e, e.text.clone()),
            _ => {}
        }
    }
    for (w, (what, at)) in &waiting_for {
        lines.push(Line {
            who: w.clone(),
            text: format!("waits for {what} at {at}"),
            extras: Vec::new(),
            open: None,
        });
    }
    let mut out: Vec<String> = lines
        .iter()
        .map(|l| {
            let mut text = format!("{}: {}", l.who, l.text);
            for x in &l.extras {
                text.push_str(", ");
                text.push_str(x);
            }
            text
        })
        .collect();
    if let Some(last) = out.last_mut() {
        if !mark.is_empty() {
            last.push_str(&format!("  <- {mark}"));
        }
    }
    if out.len() > MOST {
        let dropped = out.len() - MOST;
        out.drain(..dropped);
        out.insert(0, format!("({dropped} earlier lines left out)"));
    }
    if !places.is_empty() {
        out.push("where:".into());
        let width = places.keys().map(String::len).max().unwrap_or(0);
        let mut places: Vec<(&String, &String)> = places.iter().collect();
        places.sort_by_key(|(at, _)| {
            let (file, line) = at.rsplit_once(':').unwrap_or((at, ""));
            (file.to_owned(), line.parse::<usize>().unwrap_or(0))
        });
        for (at, code) in places {
            out.push(format!("  {at:<width$}  {code}"));
        }
    }
    out
}

/// Adds `text` to the open section `open` of `e`'s thread, or as a line of its own.
fn add(lines: &mut Vec<Line>, open: Option<usize>, e: &TraceEvent, text: String) {
    match open {
        Some(i) => lines[i].extras.push(text),
        None => lines.push(Line {
            who: e.who.clone(),
            text,
            extras: Vec::new(),
            open: None,
        }),
    }
}

/// An atomic operation (`load: 1 -> 1`) in words.
fn atomic(o: &TraceObject, text: &str, at: &str) -> String {
    let (op, values) = text.split_once(": ").unwrap_or((text, ""));
    let (before, after) = values.split_once(" -> ").unwrap_or((values, values));
    let name = &o.name;
    match op {
        "load" => format!("reads {before} from {name} at {at}"),
        "store" => format!("writes {after} to {name} at {at} (it held {before})"),
        _ => format!("{op} on {name} at {at}: {before} -> {after}"),
    }
}

/// Where the code under test took each lock, as people know the place.
struct Sites<'a> {
    cx: &'a Context<'a>,
    /// Locks always taken through one helper function: name its callers instead.
    helper: BTreeSet<u64>,
}

impl<'a> Sites<'a> {
    fn new(cx: &'a Context<'a>, trace: &[TraceEvent]) -> Self {
        let mut sites = Sites {
            cx,
            helper: BTreeSet::new(),
        };
        // A lock always taken at one place, reached from several: that place is a helper
        // (`fn lock(&self)`), and its callers say which section a line is about.
        let mut innermost: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
        let mut callers: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
        for e in trace.iter().filter(|e| e.what == "acquired") {
            let Some(o) = &e.object else { continue };
            let frames = sites.frames(e);
            if let Some(first) = frames.first() {
                innermost.entry(o.id).or_default().insert(first.clone());
            }
            if let Some(caller) = frames.get(1) {
                callers.entry(o.id).or_default().insert(caller.clone());
            }
        }
        sites.helper = innermost
            .into_iter()
            .filter(|(id, at)| at.len() == 1 && callers.get(id).is_some_and(|c| c.len() > 1))
            .map(|(id, _)| id)
            .collect();
        sites
    }

    /// Whether `place` (`file:line:column`) is in the code under test.
    fn ours(&self, place: &str) -> bool {
        let place = self.cx.resolve(place);
        Path::new(file_of(&place)).starts_with(self.cx.crate_dir)
    }

    /// The places of `e`'s call stack in the code under test, innermost first.
    fn frames(&self, e: &TraceEvent) -> Vec<String> {
        let mut frames: Vec<String> = e
            .stack
            .iter()
            .filter_map(|f| f.at.clone())
            .filter(|at| self.ours(at))
            .collect();
        if frames.is_empty() && self.ours(&e.at) {
            frames.push(e.at.clone());
        }
        frames
    }

    /// The place to name for `e`: its file's name and line (`breaker.rs:96`), noting the
    /// whole path as people know it, and its line of code, in `places`.
    fn place(&self, e: &TraceEvent, places: &mut BTreeMap<String, String>) -> String {
        let frames = self.frames(e);
        let through_helper = e
            .object
            .as_ref()
            .is_some_and(|o| self.helper.contains(&o.id));
        let at = match (frames.first(), frames.get(1)) {
            (Some(_), Some(caller)) if through_helper => caller.clone(),
            (Some(first), _) => first.clone(),
            (None, _) => e.at.clone(),
        };
        let at = self.cx.resolve(&at);
        let (file, line) = split_place(&at);
        let shown = format!("{}:{line}", (self.cx.shown)(file));
        if let Some(code) = line
            .parse::<usize>()
            .ok()
            .and_then(|n| source_line(file, n))
        {
            places.entry(shown.clone()).or_insert(code);
        }
        let name = Path::new(file)
            .file_name()
            .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned());
        format!("{name}:{line}")
    }
}

/// `file` of `file:line:column`.
fn file_of(place: &str) -> &str {
    split_place(place).0
}

/// `(file, line)` of `file:line:column`.
fn split_place(place: &str) -> (&str, &str) {
    let mut parts = place.rsplitn(3, ':');
    let _column = parts.next();
    let line = parts.next().unwrap_or("");
    let file = parts.next().unwrap_or(place);
    (file, line)
}

/// Line `n` of `file`, trimmed and shortened.
fn source_line(file: &str, n: usize) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().nth(n.checked_sub(1)?)?.trim();
    let short: String = line.chars().take(72).collect();
    Some(if short.len() < line.len() {
        format!("{short}...")
    } else {
        short
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_split_into_file_and_line() {
        assert_eq!(split_place("/k/src/a.rs:12:5"), ("/k/src/a.rs", "12"));
    }
}
