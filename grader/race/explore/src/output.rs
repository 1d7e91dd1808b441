//! The results file, and the events of the schedule being run, kept until it is known
//! whether they are worth writing.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock, PoisonError};

use grader_protocol::{PanicRecord, StepRecord};
use race_std::trace::What;

use crate::story;

/// One event of the results file. Observations are kept as JSON text: the explorer
/// compares and writes them, and only the lab's harness and plug-in know their shape.
pub type Event = grader_protocol::Event<Json>;

/// An observation written as JSON once, when its step ends: a schedule's outcome is told
/// apart from the others by this text, and only the few outcomes worth writing are ever
/// read back.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Json(String);

impl serde::Serialize for Json {
    /// Written as the JSON value the text holds, laid out as `serde_json::Value` lays it
    /// out (keys in order), so the results file reads the same whichever way it was made.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value: serde_json::Value =
            serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        value.serialize(serializer)
    }
}

static RESULTS: OnceLock<Mutex<File>> = OnceLock::new();

thread_local! {
    /// The running schedule's events. Every task of a schedule runs on this one thread.
    static BUFFER: RefCell<Vec<Event>> = const { RefCell::new(Vec::new()) };
    /// The action running, for panic records.
    static STEP: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Opens the results file for appending.
pub fn open(path: &str) -> std::io::Result<()> {
    let file = File::options().create(true).append(true).open(path)?;
    let _ = RESULTS.set(Mutex::new(file));
    Ok(())
}

/// Appends events to the results file, one line each, flushed at once.
pub fn write(events: &[Event]) {
    let Some(file) = RESULTS.get() else { return };
    let mut text = String::new();
    for event in events {
        text.push_str(&serde_json::to_string(event).unwrap_or_default());
        text.push('\n');
    }
    let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
    let _ = file.write_all(text.as_bytes());
    let _ = file.flush();
}

/// Adds an event to the running schedule's.
pub fn push(event: Event) {
    BUFFER.with_borrow_mut(|b| b.push(event));
}

/// Adds a step's record, its observation in the lab's own type, to the running schedule's.
pub fn push_step<O: serde::Serialize>(record: StepRecord<O>) {
    let StepRecord {
        step,
        at_ms,
        requests,
        observation,
    } = record;
    push(Event::Step(StepRecord {
        step,
        at_ms,
        requests,
        // An observation that cannot be written is `null`, as a failed `to_value` was.
        observation: Json(serde_json::to_string(&observation).unwrap_or_else(|_| "null".into())),
    }));
}

/// Whether the running schedule has recorded a panic of the code under test.
pub fn has_panic() -> bool {
    BUFFER.with_borrow(|b| b.iter().any(|e| matches!(e, Event::Panic(_))))
}

/// Hands over the running schedule's events and starts afresh.
pub fn take() -> Vec<Event> {
    STEP.set(None);
    BUFFER.with_borrow_mut(std::mem::take)
}

/// Notes which action is running, for panic records.
pub fn set_step(step: Option<usize>) {
    STEP.set(step);
}

/// The action running.
pub fn step() -> Option<usize> {
    STEP.get()
}

/// Turns a panic of the code under test into a [`PanicRecord`] of the running schedule.
///
/// Panics a fixture was scripted to raise (`scripted` says which) are not the code under
/// test's fault, and panics outside any task are the runtime reporting a failed schedule,
/// which the explorer reads from the unwinding itself.
pub fn install_panic_hook(scripted: fn(&(dyn std::any::Any + Send)) -> bool) {
    std::panic::set_hook(Box::new(move |info| {
        if scripted(info.payload()) || race_std::trace::me().is_none() {
            return;
        }
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            grader_protocol::panic_message(s)
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            grader_protocol::panic_message(s)
        } else {
            "(a panic without a message)".to_owned()
        };
        // A request's task is `request-N` in the protocol's words, whatever the lab calls
        // what it carries; the grader's own task keeps its name.
        let thread = match request_id() {
            Some(id) => format!("request-{id}"),
            None => race_std::thread::current()
                .name()
                .unwrap_or("main")
                .to_owned(),
        };
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        let (message, location) = match relocked(&message) {
            Some((message, at)) => (message, Some(at)),
            None => (message, location),
        };
        push(Event::Panic(PanicRecord {
            step: step(),
            message,
            location,
            thread,
            backtrace: None,
        }));
    }));
}

/// The request the running task carries, from its first note.
fn request_id() -> Option<u64> {
    let me = race_std::trace::me()?;
    race_std::trace::with_events(|events| {
        events.iter().find_map(|e| match &e.what {
            What::Note {
                kind: "request",
                id,
                ..
            } if e.task == Some(me) => Some(*id),
            _ => None,
        })
    })
}

/// The runtime stops a task that takes a lock it already holds (with a real `std` lock
/// the thread would wait for itself for ever) with a panic inside its own lock. Told at
/// the code under test's place instead: where the task asked for the lock again (the
/// innermost frame of the code under test), who called that, and where it took the lock
/// first. `None` for any other panic.
fn relocked(message: &str) -> Option<(String, String)> {
    if !(message.starts_with("deadlock!") && message.contains("it already holds")) {
        return None;
    }
    let frames = story::own_frames(&std::backtrace::Backtrace::force_capture());
    let again = frames.first()?;
    let at = again.at.clone()?;
    let caller = frames
        .get(1)
        .and_then(|f| {
            Some(format!(
                ", called from {} at {}",
                short(&f.function),
                f.at.as_deref()?
            ))
        })
        .unwrap_or_default();
    // The lock it holds: the one it asks for again, when it holds one only.
    let held = race_std::trace::held_by_me();
    let (lock, taken) = match held.as_slice() {
        [one] => (
            format!("the {}", story::name(&one.lock)),
            format!(" (it took it at {})", story::place(one.at)),
        ),
        _ => ("a lock".to_owned(), String::new()),
    };
    Some((
        format!(
            "deadlock: this thread takes {lock} it already holds{taken}, in {}{caller}: a std lock is not re-entrant, so this thread would wait for itself for ever; let the guard go first, or call a helper that works on the guard it holds",
            short(&again.function)
        ),
        at,
    ))
}

/// A function's name without its crate and module: `Breaker::lock`.
fn short(function: &str) -> String {
    let parts: Vec<&str> = function.split("::").collect();
    parts[parts.len().saturating_sub(2)..].join("::")
}
