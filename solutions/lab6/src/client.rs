//! One dependency, protected: its breaker, its bulkhead, its retries and its budget, and
//! the counts of how its attempts ended.
//!
//! An operation starts its budget when it starts. Each attempt asks the breaker, then the
//! bulkhead (waiting in the queue if it must), then calls the dependency and waits for the
//! answer, at most until the budget's end. Only a quick transient failure is tried again,
//! after a pause, and only if the next attempt can start before the budget runs out.

use std::sync::{Arc, Mutex, PoisonError};

use shipping_kit::{
    Answer, Clock, Dependency, DependencySettings, Metrics, State, TransitionLog, start_call,
};

use crate::{Attempt, Breaker, Bulkhead, Refusal, pause, retryable};

/// A dependency and everything that protects it.
pub struct Client {
    dependency: Arc<dyn Dependency>,
    settings: DependencySettings,
    clock: Arc<dyn Clock>,
    breaker: Breaker,
    bulkhead: Bulkhead,
    metrics: Mutex<Metrics>,
}

impl Client {
    /// Protection for `dependency` with `settings`; the breaker writes to `log`.
    pub fn new(
        dependency: Arc<dyn Dependency>,
        settings: DependencySettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        Self {
            breaker: Breaker::new(dependency.name(), settings.breaker, clock.clone(), log),
            bulkhead: Bulkhead::new(settings.bulkhead, clock.clone()),
            dependency,
            settings,
            clock,
            metrics: Mutex::new(Metrics::default()),
        }
    }

    /// One operation on behalf of request `operation`, within one budget: the last
    /// attempt's outcome.
    pub fn call(&self, operation: u64) -> Attempt {
        let deadline = self.clock.now() + self.settings.budget;
        let mut attempts = 1;
        loop {
            let attempt = self.breaker.call(|| self.attempt(operation, deadline));
            self.count(attempt);
            if !retryable(attempt) || attempts >= self.settings.retry.max_attempts {
                return attempt;
            }
            let resume = self.clock.now() + pause(&self.settings.retry, operation, attempts);
            if resume >= deadline {
                // The next attempt could not start with budget left: fail now, not later.
                return attempt;
            }
            self.clock.sleep_until(resume);
            attempts += 1;
        }
    }

    /// The dependency's name.
    pub fn name(&self) -> &str {
        self.dependency.name()
    }

    /// The breaker's state.
    pub fn state(&self) -> State {
        self.breaker.state()
    }

    /// What the attempts so far came to.
    pub fn metrics(&self) -> Metrics {
        *self.metrics.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One attempt, past the breaker: admission, the call, the wait for its answer.
    fn attempt(&self, operation: u64, deadline: std::time::Duration) -> Attempt {
        let slot = match self.bulkhead.admit(deadline) {
            Ok(slot) => slot,
            Err(Refusal::Full) => return Attempt::NoCapacity,
            Err(Refusal::Expired) => return Attempt::QueueExpired,
        };
        if self.clock.now() >= deadline {
            return Attempt::QueueExpired;
        }
        let call = start_call(self.dependency.as_ref(), operation);
        // The call owns the slot from here: it is given back when the dependency answers,
        // even if this caller has stopped waiting by then.
        call.keep_until_done(slot);
        match call.wait_until(self.clock.as_ref(), deadline) {
            Some(answer) => Attempt::Answered(answer),
            None => Attempt::Timeout,
        }
    }

    fn count(&self, attempt: Attempt) {
        let mut metrics = self.metrics.lock().unwrap_or_else(PoisonError::into_inner);
        match attempt {
            Attempt::Timeout => metrics.timeout += 1,
            Attempt::NoCapacity => metrics.no_capacity += 1,
            Attempt::QueueExpired => metrics.queue_expired += 1,
            Attempt::CircuitOpen => metrics.circuit_open += 1,
            Attempt::Answered(Answer::NoTariff) => metrics.no_tariff += 1,
            Attempt::Answered(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shipping_kit::{Call, Completion, FakeClock, RetrySettings};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::thread::JoinHandle;
    use std::time::Duration;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Answers `answer`, or holds every call when it is `None`.
    struct Vendor {
        answer: Mutex<Option<Answer>>,
        calls: AtomicU64,
        held: Mutex<Vec<Completion>>,
    }

    impl Dependency for Vendor {
        fn name(&self) -> &str {
            "shipping"
        }
        fn start(&self, _: u64) -> Call {
            self.calls.fetch_add(1, Ordering::SeqCst);
            match *self.answer.lock().unwrap() {
                Some(answer) => Call::answered(answer),
                None => {
                    let (call, completion) = Call::pending();
                    self.held.lock().unwrap().push(completion);
                    call
                }
            }
        }
    }

    fn client(
        answer: Option<Answer>,
        settings: DependencySettings,
    ) -> (Arc<Client>, Arc<Vendor>, FakeClock) {
        let vendor = Arc::new(Vendor {
            answer: Mutex::new(answer),
            calls: AtomicU64::new(0),
            held: Mutex::new(Vec::new()),
        });
        let clock = FakeClock::new();
        let client = Client::new(
            vendor.clone(),
            settings,
            Arc::new(clock.clone()),
            TransitionLog::new(),
        );
        (Arc::new(client), vendor, clock)
    }

    /// Starts operation `id` and waits until it waits on the clock (or has returned).
    fn start(client: &Arc<Client>, clock: &FakeClock, id: u64) -> JoinHandle<Attempt> {
        let before = clock.waiters().len();
        let c = client.clone();
        let handle = std::thread::spawn(move || c.call(id));
        while clock.waiters().len() == before && !handle.is_finished() {
            std::thread::yield_now();
        }
        handle
    }

    fn flat_retries(backoff: u64, budget: u64) -> DependencySettings {
        DependencySettings {
            budget: ms(budget),
            retry: RetrySettings {
                backoff: ms(backoff),
                jitter_percent: 0,
                ..RetrySettings::default()
            },
            ..DependencySettings::default()
        }
    }

    #[test]
    fn an_attempt_that_would_start_when_the_budget_ends_never_starts() {
        // Pauses of 100 and 200 ms: the third attempt would start at 300 ms, the end of
        // the budget, so the operation gives up at 100 ms, after the second.
        let (c, vendor, clock) = client(Some(Answer::Unavailable), flat_retries(100, 300));
        let op = start(&c, &clock, 1);
        clock.advance(ms(100));
        assert_eq!(op.join().unwrap(), Attempt::Answered(Answer::Unavailable));
        assert_eq!(vendor.calls.load(Ordering::SeqCst), 2);
        assert_eq!(clock.now(), ms(100), "no pointless wait");
        // One more millisecond of budget, and the third attempt starts at 300 ms.
        let (c, vendor, clock) = client(Some(Answer::Refused), flat_retries(100, 301));
        let op = start(&c, &clock, 1);
        clock.advance(ms(100));
        while clock.waiters().is_empty() {
            std::thread::yield_now();
        }
        clock.advance(ms(200));
        assert_eq!(op.join().unwrap(), Attempt::Answered(Answer::Refused));
        assert_eq!(vendor.calls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_timed_out_call_keeps_its_slot_until_it_ends() {
        let mut settings = DependencySettings::default();
        settings.bulkhead.max_active = 1;
        let (c, vendor, clock) = client(None, settings);
        let first = start(&c, &clock, 1);
        clock.advance(ms(300));
        assert_eq!(first.join().unwrap(), Attempt::Timeout);
        let second = start(&c, &clock, 2);
        assert_eq!(clock.waiters()[0].why, shipping_kit::Waiting::Queue);
        clock.advance(ms(21));
        assert_eq!(second.join().unwrap(), Attempt::QueueExpired);
        *vendor.answer.lock().unwrap() = Some(Answer::NoTariff);
        let held = std::mem::take(&mut *vendor.held.lock().unwrap());
        for completion in held {
            completion.complete(Answer::Ok(1));
        }
        assert_eq!(c.call(3), Attempt::Answered(Answer::NoTariff));
        let m = c.metrics();
        assert_eq!(
            (
                m.timeout,
                m.queue_expired,
                m.no_tariff,
                m.no_capacity,
                m.circuit_open
            ),
            (1, 1, 1, 0, 0)
        );
        assert_eq!(c.state(), State::Closed);
    }
}
