//! Panics inside the relay under test: caught where it is called, recorded by place, never
//! printed.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, PoisonError};

use lab4_rehearsal_protocol::PanicRecord;

thread_local! {
    /// What this thread is doing in the relay, for the record of a panic.
    static DURING: Cell<&'static str> = const { Cell::new("the rehearsal itself") };
    /// The last panic on this thread: message and place.
    static LAST: RefCell<Option<Caught>> = const { RefCell::new(None) };
}

/// Every panic so far, grouped by what was running and where.
static RECORDS: Mutex<Vec<PanicRecord>> = Mutex::new(Vec::new());

/// A caught panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caught {
    /// Its message.
    pub message: String,
    /// Where, `file:line:column`.
    pub location: Option<String>,
}

/// Replaces the default printout of panics with a record.
pub fn install_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(a panic without a message)".to_owned()
        };
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        let during = DURING.with(Cell::get);
        let mut records = RECORDS.lock().unwrap_or_else(PoisonError::into_inner);
        match records
            .iter_mut()
            .find(|r| r.during == during && r.location == location)
        {
            Some(r) => r.count += 1,
            None => records.push(PanicRecord {
                during: during.to_owned(),
                message: message.clone(),
                location: location.clone(),
                count: 1,
            }),
        }
        drop(records);
        LAST.with(|last| *last.borrow_mut() = Some(Caught { message, location }));
    }));
}

/// Runs `f`, a call into the relay described by `during`, and catches a panic.
pub fn guarded<T>(during: &'static str, f: impl FnOnce() -> T) -> Result<T, Caught> {
    let before = DURING.with(|d| d.replace(during));
    let result = catch_unwind(AssertUnwindSafe(f));
    DURING.with(|d| d.set(before));
    result.map_err(|_| {
        LAST.with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| Caught {
                message: "(a panic without a message)".to_owned(),
                location: None,
            })
    })
}

/// Every panic recorded so far.
pub fn records() -> Vec<PanicRecord> {
    RECORDS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}
