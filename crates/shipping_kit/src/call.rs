//! Dependencies, and calls to them that answer later.

use std::fmt;
use std::ops::DerefMut;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::{Clock, Waiting, Wake};
use waiting_clock::Quiet;

/// What a dependency answered to one call.
///
/// Two groups matter: the dependency **answered** (`Ok`, or the business answer
/// `NoTariff`), or it **failed quickly** (`Unavailable`, `Refused`). A dependency that
/// does not answer at all is not an answer: the caller's deadline passes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Answer {
    /// A result: for the shipping vendor a quote (the shipping price in cents), for the
    /// catalog a page.
    Ok(u64),
    /// A valid business answer: the vendor has no tariff for this destination. The vendor
    /// is working; the order cannot ship there.
    NoTariff,
    /// The dependency answered at once that it cannot serve now (an HTTP 503).
    Unavailable,
    /// The connection was refused: nobody is listening.
    Refused,
}

impl Answer {
    /// The answer as scenarios and reports write it: `ok`, `no_tariff`, `unavailable`,
    /// `refused` (an `Ok`'s value is not shown).
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Ok(_) => "ok",
            Answer::NoTariff => "no_tariff",
            Answer::Unavailable => "unavailable",
            Answer::Refused => "refused",
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text is not one of the answers' words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseAnswerError(pub String);

impl fmt::Display for ParseAnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not an answer: write ok, no_tariff, unavailable or refused",
            self.0
        )
    }
}

impl std::error::Error for ParseAnswerError {}

impl FromStr for Answer {
    type Err = ParseAnswerError;

    /// `ok` parses as `Ok(0)`: a dependency gives the value itself.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ok" => Ok(Answer::Ok(0)),
            "no_tariff" => Ok(Answer::NoTariff),
            "unavailable" => Ok(Answer::Unavailable),
            "refused" => Ok(Answer::Refused),
            other => Err(ParseAnswerError(other.to_owned())),
        }
    }
}

/// A remote service the shop calls: the shipping vendor, the catalog.
///
/// `start` must return at once: the answer comes through the [`Call`] it returns, now or
/// later. It may be called from many threads at once.
pub trait Dependency: Send + Sync {
    /// The dependency's name, such as `shipping`.
    fn name(&self) -> &str;

    /// Starts one call on behalf of request `request` (the operation's id).
    fn start(&self, request: u64) -> Call;
}

/// Starts a call to `dependency`, containing a client that panics: such a call never left
/// the building, and ends at once as `Refused`.
pub fn start_call(dependency: &dyn Dependency, request: u64) -> Call {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dependency.start(request)))
        .unwrap_or_else(|_| Call::answered(Answer::Refused))
}

/// One call to a dependency, answered now or later.
///
/// Wait for its answer with [`Call::wait_until`]. A caller that stops waiting does not
/// stop the call: it goes on at the dependency until the dependency answers, and whatever
/// was handed to [`Call::keep_until_done`] lives until then.
#[derive(Clone)]
pub struct Call {
    inner: Arc<Quiet<CallState>>,
}

#[derive(Default)]
struct CallState {
    answer: Option<Answer>,
    waiting: Vec<Wake>,
    kept: Vec<Box<dyn Send>>,
}

/// The dependency's side of a pending [`Call`]: gives it its answer. Dropped without
/// answering, it answers `Refused` (the connection closed).
pub struct Completion {
    call: Option<Call>,
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Call({:?})", self.answer())
    }
}

impl Call {
    /// A call that is answered already.
    pub fn answered(answer: Answer) -> Call {
        Call {
            inner: Arc::new(Quiet::new(CallState {
                answer: Some(answer),
                ..CallState::default()
            })),
        }
    }

    /// A call still waiting for its answer, and the means to give it.
    pub fn pending() -> (Call, Completion) {
        let call = Call {
            inner: Arc::default(),
        };
        let completion = Completion {
            call: Some(call.clone()),
        };
        (call, completion)
    }

    /// The answer, if it has come.
    pub fn answer(&self) -> Option<Answer> {
        self.lock().answer
    }

    /// Waits until the answer comes or `clock` reads at least `deadline`, whichever is
    /// first: the answer, or `None` if the deadline came first (the call goes on).
    pub fn wait_until(&self, clock: &dyn Clock, deadline: Duration) -> Option<Answer> {
        let wake = {
            let mut state = self.lock();
            if state.answer.is_some() {
                return state.answer;
            }
            let wake = Wake::new();
            state.waiting.push(wake.clone());
            wake
        };
        clock.wait(&wake, deadline, Waiting::Answer);
        let mut state = self.lock();
        state.waiting.retain(|w| !w.same(&wake));
        state.answer
    }

    /// Keeps `value` alive until the call has its answer, then drops it (at once if the
    /// answer is already there). Hand it what the call occupies, such as its bulkhead
    /// slot: it is released when the call really ends, not when its caller stops waiting.
    pub fn keep_until_done<T: Send + 'static>(&self, value: T) {
        let mut state = self.lock();
        if state.answer.is_none() {
            state.kept.push(Box::new(value));
            return;
        }
        drop(state);
        drop(value);
    }

    fn lock(&self) -> impl DerefMut<Target = CallState> + '_ {
        // A panic in a kept value's drop runs outside this lock: it is never poisoned
        // half-way through a change.
        self.inner.lock()
    }
}

impl Completion {
    /// Gives the call its answer: first drops what it kept, then wakes its waiters.
    pub fn complete(mut self, answer: Answer) {
        if let Some(call) = self.call.take() {
            finish(&call, answer);
        }
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            finish(&call, Answer::Refused);
        }
    }
}

fn finish(call: &Call, answer: Answer) {
    let (kept, waiting) = {
        let mut state = call.lock();
        if state.answer.is_some() {
            return;
        }
        state.answer = Some(answer);
        (
            std::mem::take(&mut state.kept),
            std::mem::take(&mut state.waiting),
        )
    };
    drop(kept);
    for wake in waiting {
        wake.ring();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FakeClock;
    use std::sync::atomic::{AtomicBool, Ordering};

    struct Flag(Arc<AtomicBool>);

    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    struct Crashing;

    impl Dependency for Crashing {
        fn name(&self) -> &str {
            "shipping"
        }
        fn start(&self, _: u64) -> Call {
            panic!("client library bug")
        }
    }

    #[test]
    fn a_caller_that_stops_waiting_leaves_the_call_running() {
        let clock = FakeClock::new();
        let (call, completion) = Call::pending();
        let released = Arc::new(AtomicBool::new(false));
        call.keep_until_done(Flag(released.clone()));
        let caller = {
            let (call, clock) = (call.clone(), clock.clone());
            std::thread::spawn(move || call.wait_until(&clock, Duration::from_millis(300)))
        };
        while clock.waiters().is_empty() {
            std::thread::yield_now();
        }
        assert_eq!(clock.waiters()[0].why, Waiting::Answer);
        clock.advance(Duration::from_millis(300));
        assert_eq!(caller.join().unwrap(), None, "the deadline came first");
        assert!(!released.load(Ordering::SeqCst), "the call still runs");
        completion.complete(Answer::Ok(1290));
        assert!(
            released.load(Ordering::SeqCst),
            "released when the call ended"
        );
        assert_eq!(call.answer(), Some(Answer::Ok(1290)));
        assert_eq!(
            call.wait_until(&clock, Duration::ZERO),
            Some(Answer::Ok(1290))
        );
        let done = Arc::new(AtomicBool::new(false));
        call.keep_until_done(Flag(done.clone()));
        assert!(
            done.load(Ordering::SeqCst),
            "nothing to keep for a finished call"
        );
    }

    #[test]
    fn a_panicking_client_and_a_dropped_call_are_refused() {
        assert_eq!(start_call(&Crashing, 1).answer(), Some(Answer::Refused));
        let (call, completion) = Call::pending();
        drop(completion);
        assert_eq!(call.answer(), Some(Answer::Refused));
    }

    #[test]
    fn answers_read_and_print_as_words() {
        for word in ["ok", "no_tariff", "unavailable", "refused"] {
            assert_eq!(word.parse::<Answer>().unwrap().as_str(), word);
        }
        assert!("timeout".parse::<Answer>().is_err());
        assert_eq!(Answer::Ok(1290).to_string(), "ok");
    }
}
