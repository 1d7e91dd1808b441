//! The breaker in front of one dependency: lab 5's windowed breaker, with its outcomes in
//! a fixed ring and every state numbered as an epoch.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use shipping_kit::{BreakerSettings, Clock, State, Transition, TransitionLog};

use crate::{Attempt, Observation, observe};

/// The breaker of one dependency. Several threads use it at the same time.
pub struct Breaker {
    dependency: String,
    settings: BreakerSettings,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    core: Mutex<Core>,
}

/// Everything that changes together.
struct Core {
    state: State,
    /// Each change of state starts a new epoch: an answer from another one is old news.
    epoch: u64,
    ring: Ring,
    /// OPEN: when the circuit may half-open.
    reopens_at: Duration,
    /// HALF_OPEN: probes let through, and probes that succeeded, in this round.
    granted: usize,
    passed: usize,
}

/// The latest outcomes of CLOSED, in a ring of `window` places, with a running count of
/// the failures among them.
struct Ring {
    failed: Vec<bool>,
    filled: usize,
    next: usize,
    failures: usize,
}

impl Ring {
    fn new(window: usize) -> Self {
        Self {
            failed: vec![false; window.max(1)],
            filled: 0,
            next: 0,
            failures: 0,
        }
    }

    fn push(&mut self, failure: bool) {
        if self.filled == self.failed.len() {
            if self.failed[self.next] {
                self.failures -= 1;
            }
        } else {
            self.filled += 1;
        }
        self.failed[self.next] = failure;
        if failure {
            self.failures += 1;
        }
        self.next = (self.next + 1) % self.failed.len();
    }

    fn clear(&mut self) {
        let window = self.failed.len();
        *self = Ring::new(window);
    }
}

/// How an attempt was let through: in which epoch, and whether as a probe.
#[derive(Clone, Copy)]
struct Pass {
    epoch: u64,
    probe: bool,
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
            core: Mutex::new(Core {
                state: State::Closed,
                epoch: 0,
                ring: Ring::new(settings.window),
                reopens_at: Duration::ZERO,
                granted: 0,
                passed: 0,
            }),
            settings,
            clock,
            log,
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        self.core().state
    }

    /// Runs `attempt` if the circuit lets it through, and learns from how it ended;
    /// `CircuitOpen` at once otherwise. The lock is let go while `attempt` runs.
    pub fn call(&self, attempt: impl FnOnce() -> Attempt) -> Attempt {
        let Some(pass) = self.let_through() else {
            return Attempt::CircuitOpen;
        };
        let ended = attempt();
        self.learn(pass, ended);
        ended
    }

    fn let_through(&self) -> Option<Pass> {
        let mut core = self.core();
        if core.state == State::Open {
            if self.clock.now() < core.reopens_at {
                return None;
            }
            self.change(&mut core, State::HalfOpen);
            core.granted = 0;
            core.passed = 0;
        }
        let probe = core.state == State::HalfOpen;
        if probe {
            if core.granted == self.settings.probes {
                return None;
            }
            core.granted += 1;
        }
        Some(Pass {
            epoch: core.epoch,
            probe,
        })
    }

    fn learn(&self, pass: Pass, ended: Attempt) {
        let mut core = self.core();
        if pass.epoch != core.epoch {
            return;
        }
        let failure = match observe(ended) {
            Some(observation) => observation == Observation::Failure,
            None => {
                // Turned away by the shop itself: the probe's place goes back.
                if pass.probe {
                    core.granted -= 1;
                }
                return;
            }
        };
        if pass.probe {
            if failure {
                self.open(&mut core);
            } else {
                core.passed += 1;
                if core.passed == self.settings.probes {
                    core.ring.clear();
                    self.change(&mut core, State::Closed);
                }
            }
            return;
        }
        core.ring.push(failure);
        let outcomes = core.ring.filled;
        let rate = self.settings.failure_rate_percent as usize;
        if outcomes >= self.settings.minimum_calls && core.ring.failures * 100 >= rate * outcomes {
            self.open(&mut core);
        }
    }

    fn open(&self, core: &mut Core) {
        core.reopens_at = self.clock.now() + self.settings.open_for;
        self.change(core, State::Open);
    }

    /// Moves to `to`, starting a new epoch, and records it, under the lock.
    fn change(&self, core: &mut Core, to: State) {
        let record = Transition {
            at: self.clock.now(),
            target: self.dependency.clone(),
            from: core.state,
            to,
        };
        core.state = to;
        core.epoch += 1;
        self.log.record(record);
    }

    fn core(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
