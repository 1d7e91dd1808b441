//! The record of a schedule, in the protocol's terms: who did what, where.

use std::collections::BTreeMap;
use std::panic::Location;
use std::sync::OnceLock;

use grader_protocol::{Frame, TraceEvent, TraceObject};
use race_std::trace::{Event, Held, Mode, Object, What};

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
        name: name(o),
        made: place(o.made),
        id: o.addr as u64,
    }
}

/// A lock or atomic by its kind and what it holds: `Mutex<Inner>`, `AtomicUsize`.
pub fn name(o: &Object) -> String {
    if o.kind.starts_with("Atomic") {
        o.kind.to_owned()
    } else {
        format!("{}<{}>", o.kind, short_type(o.ty))
    }
}

/// A type without its module paths: `alloc::vec::Vec<relay_kit::Transition>` is
/// `Vec<Transition>`.
fn short_type(ty: &str) -> String {
    let mut out = String::new();
    let mut start = 0;
    let mut chars = ty.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.truncate(start);
        } else {
            out.push(c);
            if "<>(), &[];".contains(c) {
                start = out.len();
            }
        }
    }
    out
}

/// Names the runtime's tasks: the first runs the plan (`the grader`); request threads say
/// which request they carry as their first note (`request #3`, in the lab's [`noun`]).
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
                .or_insert_with(|| format!("{} #{id}", noun()));
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

/// Events a story keeps at most: a schedule's record grows with every lock, and a thread
/// that spins fills it. The events before the cut are the ones kept.
const MOST: usize = 800;

/// The record up to `until` (all of it when `None`) in the protocol's terms, at most
/// [`MOST`] events ending there, and where the cut falls in what is kept.
pub fn tell(events: &[Event], until: Option<usize>) -> (Vec<TraceEvent>, Option<usize>) {
    let end = until.unwrap_or(events.len()).min(events.len());
    let start = end.saturating_sub(MOST);
    let names = names(events);
    let told = events[start..end]
        .iter()
        .map(|e| {
            let (what, raw, text) = match &e.what {
                What::Acquire(o, mode) => ("acquire", Some(o), mode_text(*mode)),
                What::Acquired(o, mode) => ("acquired", Some(o), mode_text(*mode)),
                What::Released(o, mode) => ("released", Some(o), mode_text(*mode)),
                What::TryFailed(o) => ("try_failed", Some(o), String::new()),
                What::Waits { condvar, .. } => ("waits", Some(condvar), String::new()),
                What::Notifies { condvar, all } => (
                    "notifies",
                    Some(condvar),
                    if *all { "all" } else { "one" }.to_owned(),
                ),
                What::Atomic {
                    object: o,
                    op,
                    before,
                    after,
                } => ("atomic", Some(o), format!("{op}: {before} -> {after}")),
                What::Note { kind, id, text } => {
                    let (what, text) = note(kind, *id, text);
                    (what, None, text)
                }
            };
            // Only a lock or an atomic of the code under test has its stack kept (see
            // `explore::schedule`): the story tells no other.
            let stack = e.stack.as_ref().map(frames).unwrap_or_default();
            TraceEvent {
                who: who(&names, e.task),
                what: what.to_owned(),
                object: raw.map(object),
                at: place(e.at),
                text,
                stack,
            }
        })
        .collect();
    (told, until.map(|_| end - start))
}

/// A note of the harness or of a kit crate as the story tells it: what a request does
/// (`reaches core_banking`, `records OPEN -> HALF_OPEN`, `alerts acme/ORDERS opened`,
/// `gets E904`), the markers the grader reads (`step`, `request`), or nothing to tell.
fn note(kind: &'static str, id: u64, text: &str) -> (&'static str, String) {
    match kind {
        "step" => ("step", id.to_string()),
        "request" => ("request", id.to_string()),
        "enter" => ("does", format!("reaches {text}")),
        "returned" => ("does", format!("gets {text}")),
        "record" => {
            let words: Vec<&str> = text.split(' ').collect();
            let record = match words.as_slice() {
                [_, from, to] => format!("{from} -> {to}"),
                _ => text.to_owned(),
            };
            ("does", format!("records {record}"))
        }
        "alert" => ("does", format!("alerts {text}")),
        _ => ("note", String::new()),
    }
}

fn mode_text(mode: Mode) -> String {
    match mode {
        Mode::Exclusive => String::new(),
        Mode::Shared => "shared".to_owned(),
    }
}

/// The frames of a captured stack of the code under test (and of the kit crates it
/// calls), innermost first.
pub fn own_frames(stack: &std::backtrace::Backtrace) -> Vec<Frame> {
    frames(stack)
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

/// Source files no lab's story tells: the runtime, the standard library (the real one and
/// the race checks'), and this crate.
const RUNTIME_FILES: [&str; 4] = [
    "/rustc/",
    "/.cargo/registry/",
    "/grader/race/std/",
    "/grader/race/explore/",
];

/// Which source files are the lab's kit rather than the code under test.
#[derive(Clone, Copy, Debug)]
pub struct Kit {
    /// The lab's race harness and fixtures (path fragments such as
    /// `/labs/<lab>/race/src/`): their frames are left out of call stacks, and their locks
    /// and atomics are no part of a story.
    pub harness: &'static [&'static str],
    /// The lab's shared crates the code under test calls (`/crates/relay_kit/`): their
    /// frames stay in call stacks (they say which call of the code under test took a lock),
    /// but their locks and atomics are the kit's.
    pub crates: &'static [&'static str],
    /// What the lab calls what each thread carries (`request`, `message`): stories and
    /// violations name threads `request #3`.
    pub noun: &'static str,
}

static KIT: OnceLock<Kit> = OnceLock::new();

/// Says which files are the lab's kit; set once, before the first schedule.
pub fn set_kit(kit: Kit) {
    let _ = KIT.set(kit);
}

fn kit() -> Kit {
    KIT.get().copied().unwrap_or(Kit {
        harness: &[],
        crates: &[],
        noun: "request",
    })
}

/// What the lab calls what each thread carries (`request`).
pub fn noun() -> &'static str {
    kit().noun
}

/// A frame of the runtime, the standard library, the race harness or a fixture, not of the
/// code under test (nor of a kit crate, which it calls).
fn foreign(f: &Frame) -> bool {
    let at = f.at.as_deref().unwrap_or("");
    at.is_empty()
        || RUNTIME_FILES
            .iter()
            .chain(kit().harness)
            .any(|p| at.contains(p))
}

/// Whether the kit made `o` (the harness, a fixture, a kit crate), not the code under test.
pub fn kit_made(o: &Object) -> bool {
    let at = o.made.file();
    let kit = kit();
    RUNTIME_FILES
        .iter()
        .chain(kit.harness)
        .chain(kit.crates)
        .any(|p| at.contains(p))
}

/// `the Mutex<Inner> taken at P (made at Q)` for each lock held.
pub fn holding(held: &[Held]) -> String {
    let each: Vec<String> = held
        .iter()
        .map(|h| {
            format!(
                "the {} taken at {} (made at {})",
                name(&h.lock),
                place(h.at),
                place(h.lock.made)
            )
        })
        .collect();
    each.join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_lose_their_paths() {
        assert_eq!(short_type("some_solution::breaker::Inner"), "Inner");
        assert_eq!(
            short_type("alloc::vec::Vec<relay_kit::transition::Transition>"),
            "Vec<Transition>"
        );
        assert_eq!(
            short_type("(usize, core::option::Option<u8>)"),
            "(usize, Option<u8>)"
        );
    }

    #[test]
    fn paths_lose_their_up_steps() {
        assert_eq!(
            tidy("/k/grader/race/twins/relay_kit/../../../../crates/relay_kit/src/clock.rs"),
            "/k/crates/relay_kit/src/clock.rs"
        );
        assert_eq!(tidy("../a/./b"), "../a/b");
    }
}
