//! The breaker in front of one dependency: lab 5's windowed breaker.
//!
//! CLOSED lets every attempt through and records what it tells about the dependency in a
//! window of the latest `window` outcomes. Once the window holds `minimum_calls` outcomes
//! and the failure share reaches `failure_rate_percent`, the circuit opens. OPEN turns every
//! attempt away at once for `open_for`; the next attempt after that is the first probe of
//! HALF_OPEN, which lets `probes` probes through in all. A failing probe opens the circuit
//! again with a fresh wait; when every probe has succeeded the circuit closes with an empty
//! window. Attempts the shop turned away itself are no observation, and a probe turned away
//! by the bulkhead is handed back.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use shipping_kit::{BreakerSettings, Clock, State, Transition, TransitionLog};

use crate::{Attempt, Observation, observe};

/// The breaker of one dependency. Share it between threads with `&Breaker` or `Arc`.
pub struct Breaker {
    dependency: String,
    settings: BreakerSettings,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    inner: Mutex<Inner>,
}

/// Everything that changes, read and written under the lock.
struct Inner {
    state: State,
    /// CLOSED only: the latest outcomes, oldest first.
    window: VecDeque<Observation>,
    /// When the circuit last opened.
    opened_at: Duration,
    /// Probes handed out in this HALF_OPEN round, finished or not.
    probes_out: usize,
    /// Probes of this round that succeeded.
    probes_passed: usize,
    /// Goes up on every change of state: an answer to an attempt admitted in an earlier
    /// era is old news.
    era: u64,
}

/// Why an attempt was let through, and when.
#[derive(Clone, Copy)]
struct Ticket {
    probe: bool,
    era: u64,
}

impl Breaker {
    /// A CLOSED breaker for `dependency` that reads time from `clock` and writes every
    /// change of state to `log`.
    pub fn new(
        dependency: &str,
        settings: BreakerSettings,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        Self {
            dependency: dependency.to_owned(),
            settings,
            clock,
            log,
            inner: Mutex::new(Inner {
                state: State::Closed,
                window: VecDeque::with_capacity(settings.window),
                opened_at: Duration::ZERO,
                probes_out: 0,
                probes_passed: 0,
                era: 0,
            }),
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        self.lock().state
    }

    /// Runs `attempt` if the circuit lets it through and learns from how it ended;
    /// `CircuitOpen` at once otherwise. The lock is never held while `attempt` runs: it
    /// may wait in the admission queue and for the dependency's answer.
    pub fn call(&self, attempt: impl FnOnce() -> Attempt) -> Attempt {
        let Some(ticket) = self.admit() else {
            return Attempt::CircuitOpen;
        };
        let ended = attempt();
        self.settle(ticket, ended);
        ended
    }

    fn admit(&self) -> Option<Ticket> {
        let mut inner = self.lock();
        let probe = match inner.state {
            State::Closed => false,
            State::Open => {
                let waited = self.clock.now().saturating_sub(inner.opened_at);
                if waited < self.settings.open_for {
                    return None;
                }
                self.move_to(&mut inner, State::HalfOpen);
                inner.probes_out = 0;
                inner.probes_passed = 0;
                true
            }
            State::HalfOpen => true,
        };
        if probe {
            if inner.probes_out >= self.settings.probes {
                return None;
            }
            inner.probes_out += 1;
        }
        Some(Ticket {
            probe,
            era: inner.era,
        })
    }

    fn settle(&self, ticket: Ticket, ended: Attempt) {
        let mut inner = self.lock();
        if ticket.era != inner.era {
            return;
        }
        let Some(observation) = observe(ended) else {
            // The shop turned the attempt away before the dependency saw it: a probe that
            // never reached the vendor is handed back for the next attempt.
            if ticket.probe {
                inner.probes_out -= 1;
            }
            return;
        };
        let now = self.clock.now();
        if ticket.probe {
            match observation {
                Observation::Failure => self.open(&mut inner, now),
                Observation::Success => {
                    inner.probes_passed += 1;
                    if inner.probes_passed == self.settings.probes {
                        inner.window.clear();
                        self.move_to(&mut inner, State::Closed);
                    }
                }
            }
            return;
        }
        inner.window.push_back(observation);
        while inner.window.len() > self.settings.window {
            inner.window.pop_front();
        }
        if self.too_many_failures(&inner.window) {
            self.open(&mut inner, now);
        }
    }

    /// Enough outcomes, and a failure share at or above the rate, in whole numbers.
    fn too_many_failures(&self, window: &VecDeque<Observation>) -> bool {
        let failures = window
            .iter()
            .filter(|o| **o == Observation::Failure)
            .count();
        let rate = usize::try_from(self.settings.failure_rate_percent).unwrap_or(usize::MAX);
        window.len() >= self.settings.minimum_calls
            && failures * 100 >= rate.saturating_mul(window.len())
    }

    fn open(&self, inner: &mut Inner, now: Duration) {
        inner.opened_at = now;
        self.move_to(inner, State::Open);
    }

    /// Changes state and writes the record while the caller holds the lock.
    fn move_to(&self, inner: &mut Inner, to: State) {
        let from = inner.state;
        inner.state = to;
        inner.era += 1;
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.dependency.clone(),
            from,
            to,
        });
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Never held across an attempt; nothing under it panics.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shipping_kit::{Answer, FakeClock};

    fn breaker(settings: BreakerSettings) -> (Breaker, FakeClock, TransitionLog) {
        let clock = FakeClock::new();
        let log = TransitionLog::new();
        let b = Breaker::new("shipping", settings, Arc::new(clock.clone()), log.clone());
        (b, clock, log)
    }

    const FAIL: Attempt = Attempt::Answered(Answer::Refused);
    const OK: Attempt = Attempt::Answered(Answer::Ok(1));

    #[test]
    fn five_failures_among_ten_open_and_one_probe_closes() {
        let (b, clock, log) = breaker(BreakerSettings::default());
        for _ in 0..5 {
            assert_eq!(b.call(|| OK), OK);
        }
        for _ in 0..4 {
            b.call(|| FAIL);
        }
        assert_eq!(b.state(), State::Closed, "9 outcomes: too few");
        b.call(|| Attempt::Timeout);
        assert_eq!(b.state(), State::Open);
        assert_eq!(b.call(|| unreachable!()), Attempt::CircuitOpen);
        clock.advance(Duration::from_secs(10));
        assert_eq!(b.state(), State::Open, "time alone changes nothing");
        assert_eq!(
            b.call(|| Attempt::Answered(Answer::NoTariff)),
            Attempt::Answered(Answer::NoTariff)
        );
        assert_eq!(b.state(), State::Closed);
        let records: Vec<String> = log.snapshot().iter().map(ToString::to_string).collect();
        assert_eq!(
            records,
            [
                "00:00:00.000 shipping CLOSED -> OPEN",
                "00:00:10.000 shipping OPEN -> HALF_OPEN",
                "00:00:10.000 shipping HALF_OPEN -> CLOSED"
            ]
        );
    }

    #[test]
    fn rejections_are_no_observation_and_hand_a_probe_back() {
        let settings = BreakerSettings {
            window: 2,
            minimum_calls: 2,
            ..BreakerSettings::default()
        };
        let (b, clock, _) = breaker(settings);
        for _ in 0..5 {
            b.call(|| Attempt::QueueExpired);
            b.call(|| Attempt::NoCapacity);
        }
        assert_eq!(b.state(), State::Closed);
        b.call(|| FAIL);
        b.call(|| FAIL);
        assert_eq!(b.state(), State::Open);
        clock.advance(Duration::from_secs(10));
        b.call(|| Attempt::NoCapacity);
        assert_eq!(b.state(), State::HalfOpen);
        assert_eq!(b.call(|| OK), OK, "the probe was handed back");
        assert_eq!(b.state(), State::Closed);
    }
}
