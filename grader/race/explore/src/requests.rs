//! The requests of one schedule: each on a task of its own, how each ended, and the
//! notes the monitor and the story read (`sent`, `request`, `returned`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use race_std::quiet::Mutex;
use race_std::sync::Arc;
use race_std::thread::JoinHandle;
use race_std::trace;

/// How one request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended<T> {
    /// The code under test returned this.
    Returned(T),
    /// The code under test panicked.
    Panicked,
}

struct Sent<T> {
    id: u64,
    /// How it ended, once it has. A quiet lock: the grader's checking whether requests
    /// have returned is no moment for the explorer to switch threads at.
    result: Arc<Mutex<Option<Ended<T>>>>,
    thread: Option<JoinHandle<()>>,
}

/// The requests sent so far on the running schedule, numbered from 1.
pub struct Requests<T> {
    sent: Vec<Sent<T>>,
}

impl<T> Default for Requests<T> {
    fn default() -> Self {
        Self { sent: Vec::new() }
    }
}

impl<T: Clone + Send + 'static> Requests<T> {
    /// The number the next request gets.
    pub fn next_id(&self) -> u64 {
        self.sent.len() as u64 + 1
    }

    /// Starts request `id`, sent to `target`, on a task of its own named `{name}-{id}`:
    /// it runs `call`, notes what it returned in `text`'s words (or that it panicked), and
    /// then runs `done` (which wakes whoever waits for it).
    pub fn spawn(
        &mut self,
        name: &str,
        target: &str,
        call: impl FnOnce() -> T + Send + 'static,
        text: fn(&T) -> String,
        done: impl FnOnce() + Send + 'static,
    ) -> u64 {
        let id = self.next_id();
        let result = Arc::new(Mutex::new(None));
        let slot = result.clone();
        trace::note("sent", id, target);
        let thread = race_std::thread::Builder::new()
            .name(format!("{name}-{id}"))
            .spawn(move || {
                trace::note("request", id, "");
                let ended = match catch_unwind(AssertUnwindSafe(call)) {
                    Ok(value) => Ended::Returned(value),
                    Err(_) => Ended::Panicked,
                };
                let words = match &ended {
                    Ended::Returned(value) => text(value),
                    Ended::Panicked => "panicked".to_owned(),
                };
                trace::note("returned", id, words);
                *slot.lock() = Some(ended);
                done();
            })
            .ok();
        self.sent.push(Sent { id, result, thread });
        id
    }

    /// How request `id` ended, if it has.
    pub fn ended(&self, id: u64) -> Option<Ended<T>> {
        let sent = self.sent.iter().find(|s| s.id == id)?;
        sent.result.lock().clone()
    }

    /// What request `id` came to, in `text`'s words: what it returned, `panicked`, or
    /// `held` while it has not returned.
    pub fn outcome(&self, id: u64, text: fn(&T) -> String) -> String {
        match self.ended(id) {
            Some(Ended::Returned(value)) => text(&value),
            Some(Ended::Panicked) => "panicked".to_owned(),
            None => "held".to_owned(),
        }
    }

    /// Whether any request panicked.
    pub fn panicked(&self) -> bool {
        self.sent
            .iter()
            .any(|s| matches!(self.ended(s.id), Some(Ended::Panicked)))
    }

    /// Waits for every request's task to end: one that cannot leaves every task waiting,
    /// which the runtime reports.
    pub fn join_all(&mut self) {
        for sent in &mut self.sent {
            if let Some(thread) = sent.thread.take() {
                let _ = thread.join();
            }
        }
    }
}
