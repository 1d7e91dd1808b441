//! The record of one explored schedule: every lock, unlock, wait and atomic operation of
//! the code under test, in the order the explorer ran them, and the locks each thread holds.
//!
//! Not part of `std`: the race driver calls [`start`] at the beginning of each schedule,
//! [`finish`] at its end, and reads [`held_by_me`] when a thread reaches a target. The
//! runtime runs every task of a schedule on one operating-system thread, one at a time, so
//! the record is a plain thread-local list and appending to it never lets another task run.

use std::backtrace::Backtrace;
use std::cell::RefCell;
use std::panic::Location;

/// A lock, condition variable or atomic: where it lives, where it was made, what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Object {
    /// Its address: tells objects apart within one schedule.
    pub addr: usize,
    /// Where `new` was called.
    pub made: &'static Location<'static>,
    /// The type it protects or holds, as `std::any::type_name` spells it.
    pub ty: &'static str,
    /// `Mutex`, `RwLock`, `Condvar`, `AtomicUsize`, ...
    pub kind: &'static str,
}

/// How a lock is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `Mutex::lock`, `RwLock::write`.
    Exclusive,
    /// `RwLock::read`.
    Shared,
}

/// What a task did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    /// It asked for a lock, and waits here until it gets it.
    Acquire(Object, Mode),
    /// It got the lock.
    Acquired(Object, Mode),
    /// It let the lock go.
    Released(Object, Mode),
    /// `try_lock` found the lock taken.
    TryFailed(Object),
    /// It released `lock` and sleeps on the condition variable until woken.
    Waits {
        /// The condition variable.
        condvar: Object,
        /// The lock it gave up while asleep.
        lock: Object,
    },
    /// It woke one (`all: false`) or every sleeper of a condition variable.
    Notifies {
        /// The condition variable.
        condvar: Object,
        /// `notify_all`.
        all: bool,
    },
    /// An atomic operation: what the value was before and after.
    Atomic {
        /// The atomic.
        object: Object,
        /// `load`, `store`, `fetch_add`, `compare_exchange`, ...
        op: &'static str,
        /// The value it read (for `store`, the value it replaced).
        before: String,
        /// The value it left.
        after: String,
    },
    /// Something the race driver or a fixture wants in the story: `kind` says what, `id`
    /// and `text` say about what.
    Note {
        /// What happened (`request`, `enter`, `record`, ...).
        kind: &'static str,
        /// A number that goes with it (a request id).
        id: u64,
        /// Words that go with it.
        text: String,
    },
}

impl What {
    /// The lock, condition variable or atomic it is about; `None` for a note.
    pub fn object(&self) -> Option<&Object> {
        match self {
            What::Acquire(o, _)
            | What::Acquired(o, _)
            | What::Released(o, _)
            | What::TryFailed(o) => Some(o),
            What::Waits { condvar, .. } | What::Notifies { condvar, .. } => Some(condvar),
            What::Atomic { object, .. } => Some(object),
            What::Note { .. } => None,
        }
    }
}

/// One entry of the record.
#[derive(Debug)]
pub struct Event {
    /// The runtime's number of the task that did it; `None` outside any task.
    pub task: Option<usize>,
    /// What it did.
    pub what: What,
    /// The caller's place in the source.
    pub at: &'static Location<'static>,
    /// The whole call stack, when [`start`] asked for this object's stacks.
    pub stack: Option<Backtrace>,
}

/// A lock a task holds right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// The holding task.
    pub task: Option<usize>,
    /// The lock.
    pub lock: Object,
    /// How it holds it.
    pub mode: Mode,
    /// Where it took it.
    pub at: &'static Location<'static>,
}

#[derive(Default)]
struct Record {
    on: bool,
    /// The objects whose events keep their call stack, when the record is the detailed one.
    stacks: Option<fn(&Object) -> bool>,
    events: Vec<Event>,
    held: Vec<Held>,
    /// A finished record handed back ([`recycle`]): the next one grows in its room.
    spare: Vec<Event>,
}

thread_local! {
    static RECORD: RefCell<Record> = RefCell::new(Record::default());
}

/// Starts a fresh record. With `stacks`, the detailed one (slower: for replaying one
/// schedule to explain it): every event, every atomic operation with the values it saw,
/// and the call stack of each event on an object `stacks` says yes to (capturing a stack
/// is most of the cost, so only those a story may tell).
pub fn start(stacks: Option<fn(&Object) -> bool>) {
    RECORD.with_borrow_mut(|r| {
        let events = std::mem::take(&mut r.spare);
        *r = Record {
            on: true,
            stacks,
            events,
            ..Record::default()
        }
    });
}

/// Hands back a record [`finish`] returned, once read: the next schedule's record reuses
/// its room instead of growing from nothing.
pub fn recycle(mut events: Vec<Event>) {
    events.clear();
    RECORD.with_borrow_mut(|r| r.spare = events);
}

/// Stops recording and hands over what was recorded.
pub fn finish() -> Vec<Event> {
    RECORD.with_borrow_mut(|r| {
        r.on = false;
        r.held.clear();
        std::mem::take(&mut r.events)
    })
}

/// Whether a schedule is being recorded.
pub fn recording() -> bool {
    RECORD.with_borrow(|r| r.on)
}

/// Whether the record is the detailed one (call stacks, atomics' values): the one that
/// explains a schedule, rather than the one that explores.
pub fn detailed() -> bool {
    RECORD.with_borrow(|r| r.on && r.stacks.is_some())
}

/// How many events the record holds so far.
pub fn len() -> usize {
    RECORD.with_borrow(|r| r.events.len())
}

/// Runs `f` on the events recorded so far.
pub fn with_events<R>(f: impl FnOnce(&[Event]) -> R) -> R {
    RECORD.with_borrow(|r| f(&r.events))
}

/// The runtime's number for the running task, if a task is running.
pub fn me() -> Option<usize> {
    shuttle::current::try_get_current_task().map(usize::from)
}

/// The locks the running task holds, oldest first.
pub fn held_by_me() -> Vec<Held> {
    let me = me();
    RECORD.with_borrow(|r| r.held.iter().filter(|h| h.task == me).copied().collect())
}

/// Every lock held by any task right now.
pub fn held() -> Vec<Held> {
    RECORD.with_borrow(|r| r.held.clone())
}

/// Adds a note to the record, from the running task, placed at the caller.
#[track_caller]
pub fn note(kind: &'static str, id: u64, text: impl Into<String>) {
    record(
        What::Note {
            kind,
            id,
            text: text.into(),
        },
        Location::caller(),
    );
}

/// Appends one event.
pub(crate) fn record(what: What, at: &'static Location<'static>) {
    RECORD.with_borrow_mut(|r| {
        if !r.on {
            return;
        }
        // Exploring keeps what a driver watches as the schedule runs (notes, locks taken,
        // atomics touched); only the detailed record, which tells a schedule, keeps the
        // rest.
        let watched = matches!(
            what,
            What::Note { .. } | What::Acquired(..) | What::Atomic { .. }
        );
        if r.stacks.is_none() && !watched {
            return;
        }
        let stack = r
            .stacks
            .is_some_and(|wanted| what.object().is_some_and(wanted))
            .then(Backtrace::force_capture);
        r.events.push(Event {
            task: me(),
            what,
            at,
            stack,
        });
    });
}

/// Records that the running task got `lock` at `at`, and notes it as held until the
/// returned token is dropped.
pub(crate) fn acquired(lock: Object, mode: Mode, at: &'static Location<'static>) -> Token {
    record(What::Acquired(lock, mode), at);
    let task = me();
    RECORD.with_borrow_mut(|r| {
        if r.on {
            r.held.push(Held {
                task,
                lock,
                mode,
                at,
            });
        }
    });
    Token {
        lock,
        mode,
        task,
        at,
    }
}

/// A lock held: dropping it records the release. Guards drop it *before* the runtime's own
/// guard, so the record shows the release before anyone else can take the lock.
#[derive(Debug)]
pub(crate) struct Token {
    pub(crate) lock: Object,
    pub(crate) mode: Mode,
    task: Option<usize>,
    at: &'static Location<'static>,
}

impl Drop for Token {
    fn drop(&mut self) {
        record(What::Released(self.lock, self.mode), self.at);
        RECORD.with_borrow_mut(|r| {
            if let Some(i) = r
                .held
                .iter()
                .rposition(|h| h.task == self.task && h.lock == self.lock && h.mode == self.mode)
            {
                r.held.remove(i);
            }
        });
    }
}

/// The identity of `this`, a `kind` made at `made` that holds a `T`.
pub(crate) fn object<S: ?Sized, T: ?Sized>(
    this: &S,
    kind: &'static str,
    made: &'static Location<'static>,
) -> Object {
    Object {
        addr: std::ptr::from_ref(this).cast::<()>() as usize,
        made,
        ty: std::any::type_name::<T>(),
        kind,
    }
}
