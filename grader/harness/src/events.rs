//! Writing events to the results file, including from the panic hook.

use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use grader_protocol::{Event, PanicRecord};
use serde::Serialize;

static RESULTS: OnceLock<Mutex<File>> = OnceLock::new();
static CURRENT_STEP: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Opens the results file for appending.
pub fn open(path: &str) -> std::io::Result<()> {
    let file = File::options().create(true).append(true).open(path)?;
    let _ = RESULTS.set(Mutex::new(file));
    Ok(())
}

/// Appends one event as one line, flushed at once so that a crash loses nothing written.
pub fn emit<O: Serialize>(event: &Event<O>) {
    let Some(file) = RESULTS.get() else { return };
    let mut line = serde_json::to_string(event).unwrap_or_default();
    line.push('\n');
    let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
    let _ = file.write_all(line.as_bytes());
    let _ = file.flush();
}

/// Notes which action is running, for panic records.
pub fn set_step(step: usize) {
    CURRENT_STEP.store(step, Ordering::SeqCst);
}

/// Replaces the default panic printout with a [`PanicRecord`] in the results file.
///
/// Panics a fixture target was scripted to raise (those for which `scripted` is true) are
/// not the code under test's fault and are not recorded.
pub fn install_panic_hook(scripted: fn(&(dyn std::any::Any + Send)) -> bool) {
    let want_backtrace = std::env::var_os("GRADER_BACKTRACE").is_some();
    std::panic::set_hook(Box::new(move |info| {
        if scripted(info.payload()) {
            return;
        }
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            grader_protocol::panic_message(s)
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            grader_protocol::panic_message(s)
        } else {
            "(a panic without a message)".to_owned()
        };
        let step = CURRENT_STEP.load(Ordering::SeqCst);
        let record = PanicRecord {
            step: (step != usize::MAX).then_some(step),
            message,
            location: info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())),
            thread: std::thread::current()
                .name()
                .unwrap_or("unnamed")
                .to_owned(),
            backtrace: want_backtrace
                .then(|| std::backtrace::Backtrace::force_capture().to_string()),
        };
        emit::<()>(&Event::Panic(record));
    }));
}
