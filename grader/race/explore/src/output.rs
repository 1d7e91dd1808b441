//! The results file, and the events of the schedule being run, kept until it is known
//! whether they are worth writing.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock, PoisonError};

use grader_protocol::{PanicRecord, StepRecord};

/// One event of the results file. Observations are kept as JSON values: the explorer
/// compares and writes them, and only the lab's harness and plug-in know their shape.
pub type Event = grader_protocol::Event;

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
        observation: serde_json::to_value(observation).unwrap_or_default(),
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
        let thread = race_std::thread::current()
            .name()
            .unwrap_or("main")
            .to_owned();
        push(Event::Panic(PanicRecord {
            step: step(),
            message,
            location: info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())),
            thread,
            backtrace: None,
        }));
    }));
}
