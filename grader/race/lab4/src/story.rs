//! The record of a schedule, in the protocol's terms: who did what, where.

use std::collections::BTreeMap;
use std::panic::Location;

use grader_protocol::{Frame, TraceEvent, TraceObject};
use race_std::trace::{Event, Mode, Object, What};

/// Frames kept per call stack: enough to reach the code under test's caller of a helper
/// that takes a lock.
const FRAMES: usize = 6;

/// `file:line:column`, the file without `..` steps.
pub fn place(at: &Location<'_>) -> String {
    format!("{}:{}:{}", tidy(at.file()), at.line(), at.column())
}

/// A path without `dir/..` steps: the race builds reach kit sources through their own
/// folders (`grader/race/twins/relay_kit/../../../../crates/...`).
fn tidy(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." if parts.last().is_some_and(|p| !p.is_empty() && *p != "..") => {
                parts.pop();
            }
            "." => {}
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// An object as the protocol names it.
pub fn object(o: &Object) -> TraceObject {
    TraceObject {
        kind: o.kind.to_owned(),
        ty: o.ty.to_owned(),
        made: place(o.made),
        id: o.addr as u64,
    }
}

/// Names the runtime's tasks: the first runs the plan (`the grader`); request threads say
/// which request they carry as their first note.
pub fn names(events: &[Event]) -> BTreeMap<usize, String> {
    let mut names = BTreeMap::new();
    for e in events {
        if let (
            Some(task),
            What::Note {
                kind: "request",
                id,
                ..
            },
        ) = (e.task, &e.what)
        {
            names
                .entry(task)
                .or_insert_with(|| format!("request #{id}"));
        }
    }
    names
}

/// The name of `task`.
pub fn who(names: &BTreeMap<usize, String>, task: Option<usize>) -> String {
    match task {
        Some(0) | None => "the grader".to_owned(),
        Some(t) => names
            .get(&t)
            .cloned()
            .unwrap_or_else(|| format!("thread {t}")),
    }
}

/// The whole record, in the protocol's terms.
pub fn tell(events: &[Event]) -> Vec<TraceEvent> {
    let names = names(events);
    events
        .iter()
        .map(|e| {
            let (what, object, text) = match &e.what {
                What::Acquire(o, mode) => ("acquire", Some(object(o)), mode_text(*mode)),
                What::Acquired(o, mode) => ("acquired", Some(object(o)), mode_text(*mode)),
                What::Released(o, mode) => ("released", Some(object(o)), mode_text(*mode)),
                What::TryFailed(o) => ("try_failed", Some(object(o)), String::new()),
                What::Waits { condvar, lock } => (
                    "waits",
                    Some(object(condvar)),
                    format!("gives up {}", short(lock)),
                ),
                What::Notifies { condvar, all } => (
                    "notifies",
                    Some(object(condvar)),
                    if *all { "all" } else { "one" }.to_owned(),
                ),
                What::Atomic {
                    object: o,
                    op,
                    before,
                    after,
                } => (
                    "atomic",
                    Some(object(o)),
                    format!("{op}: {before} -> {after}"),
                ),
                What::Note { kind, id, text } => {
                    let text = match *kind {
                        "step" | "sent" | "request" => {
                            if text.is_empty() {
                                id.to_string()
                            } else {
                                format!("{id} {text}")
                            }
                        }
                        _ => text.clone(),
                    };
                    (*kind, None, text)
                }
            };
            TraceEvent {
                who: who(&names, e.task),
                what: what.to_owned(),
                object,
                at: place(e.at),
                text,
                stack: e.stack.as_ref().map(frames).unwrap_or_default(),
            }
        })
        .collect()
}

fn mode_text(mode: Mode) -> String {
    match mode {
        Mode::Exclusive => String::new(),
        Mode::Shared => "shared".to_owned(),
    }
}

fn short(o: &Object) -> String {
    format!("the {} made at {}", o.kind, place(o.made))
}

/// The frames of a captured stack, innermost first, without those of the runtime, the
/// standard library and this harness.
fn frames(stack: &std::backtrace::Backtrace) -> Vec<Frame> {
    let text = stack.to_string();
    let mut frames: Vec<Frame> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(at) = line.strip_prefix("at ") {
            if let Some(last) = frames.last_mut() {
                if last.at.is_none() {
                    last.at = Some(tidy(at));
                }
            }
        } else if let Some((n, function)) = line.split_once(": ") {
            if n.chars().all(|c| c.is_ascii_digit()) {
                frames.push(Frame {
                    function: function.to_owned(),
                    at: None,
                });
            }
        }
    }
    frames
        .into_iter()
        .filter(|f| !foreign(f))
        .take(FRAMES)
        .collect()
}

/// Source files of the runtime, the standard library, the race harness and the fixtures.
const HARNESS_FILES: [&str; 5] = [
    "/rustc/",
    "/.cargo/registry/",
    "/grader/race/std/",
    "/grader/race/lab4/",
    "/fixtures/targets/",
];

/// A frame of the runtime, the standard library, the race harness or a fixture, not of the
/// code under test (nor of `relay_kit`, which it calls).
fn foreign(f: &Frame) -> bool {
    let at = f.at.as_deref().unwrap_or("");
    at.is_empty() || HARNESS_FILES.iter().any(|p| at.contains(p))
}

/// Whether the kit made `o` (the harness, a fixture, `relay_kit`), not the code under test.
pub fn kit_made(o: &Object) -> bool {
    let at = o.made.file();
    HARNESS_FILES.iter().any(|p| at.contains(p)) || at.contains("/crates/relay_kit/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lose_their_up_steps() {
        assert_eq!(
            tidy("/k/grader/race/twins/relay_kit/../../../../crates/relay_kit/src/clock.rs"),
            "/k/crates/relay_kit/src/clock.rs"
        );
        assert_eq!(tidy("../a/./b"), "../a/b");
    }
}
