//! The breaker in front of one dependency, behind a read-write lock: reading the state and
//! turning attempts away share the lock; handing out probes and learning take it alone.

use std::collections::VecDeque;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use shipping_kit::{BreakerSettings, Clock, State, Transition, TransitionLog};

use crate::{Attempt, Observation, observe};

/// The breaker of one dependency. Several threads use it at the same time.
pub struct Breaker {
    dependency: String,
    settings: BreakerSettings,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    core: RwLock<Core>,
}

struct Core {
    state: State,
    /// CLOSED: the latest outcomes (true: a failure) and how many of them failed.
    outcomes: VecDeque<bool>,
    failures: usize,
    opened: Duration,
    probes_handed: usize,
    probes_good: usize,
    /// Changes with the state: what an attempt was admitted under.
    epoch: u64,
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
            core: RwLock::new(Core {
                state: State::Closed,
                outcomes: VecDeque::new(),
                failures: 0,
                opened: Duration::ZERO,
                probes_handed: 0,
                probes_good: 0,
                epoch: 0,
            }),
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        self.read().state
    }

    /// Runs `attempt` if the circuit lets it through and learns from how it ended;
    /// `CircuitOpen` at once otherwise.
    pub fn call(&self, attempt: impl FnOnce() -> Attempt) -> Attempt {
        let Some((epoch, probe)) = self.enter() else {
            return Attempt::CircuitOpen;
        };
        let ended = attempt();
        self.learn(epoch, probe, ended);
        ended
    }

    /// The epoch the attempt was let in under, and whether it is a probe.
    fn enter(&self) -> Option<(u64, bool)> {
        {
            let core = self.read();
            match core.state {
                State::Closed => return Some((core.epoch, false)),
                State::Open if self.still_waiting(&core) => return None,
                State::HalfOpen if core.probes_handed >= self.settings.probes => return None,
                _ => {}
            }
        }
        // Something may change: look again with the lock to ourselves.
        let mut core = self.write();
        match core.state {
            State::Closed => return Some((core.epoch, false)),
            State::Open if self.still_waiting(&core) => return None,
            State::Open => {
                core.probes_handed = 0;
                core.probes_good = 0;
                self.go(&mut core, State::HalfOpen);
            }
            State::HalfOpen => {}
        }
        if core.probes_handed >= self.settings.probes {
            return None;
        }
        core.probes_handed += 1;
        Some((core.epoch, true))
    }

    fn still_waiting(&self, core: &Core) -> bool {
        self.clock.now().saturating_sub(core.opened) < self.settings.open_for
    }

    fn learn(&self, epoch: u64, probe: bool, ended: Attempt) {
        let seen = observe(ended);
        let mut core = self.write();
        if core.epoch != epoch {
            return;
        }
        match (probe, seen) {
            (true, None) => core.probes_handed -= 1,
            (false, None) => {}
            (true, Some(Observation::Failure)) => self.trip(&mut core),
            (true, Some(Observation::Success)) => {
                core.probes_good += 1;
                if core.probes_good >= self.settings.probes {
                    core.outcomes.clear();
                    core.failures = 0;
                    self.go(&mut core, State::Closed);
                }
            }
            (false, Some(observation)) => {
                let failed = observation == Observation::Failure;
                core.outcomes.push_back(failed);
                core.failures += usize::from(failed);
                if core.outcomes.len() > self.settings.window
                    && core.outcomes.pop_front() == Some(true)
                {
                    core.failures -= 1;
                }
                let sample = core.outcomes.len();
                let threshold = self.settings.failure_rate_percent as usize * sample;
                if sample >= self.settings.minimum_calls && core.failures * 100 >= threshold {
                    self.trip(&mut core);
                }
            }
        }
    }

    fn trip(&self, core: &mut Core) {
        core.opened = self.clock.now();
        self.go(core, State::Open);
    }

    /// The one place the state changes; the record is written under the write lock.
    fn go(&self, core: &mut Core, to: State) {
        let from = std::mem::replace(&mut core.state, to);
        core.epoch += 1;
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.dependency.clone(),
            from,
            to,
        });
    }

    fn read(&self) -> RwLockReadGuard<'_, Core> {
        self.core.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Core> {
        self.core.write().unwrap_or_else(PoisonError::into_inner)
    }
}
