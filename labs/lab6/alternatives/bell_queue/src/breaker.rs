//! The breaker in front of one dependency, as a phase that carries its own data.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use shipping_kit::{BreakerSettings, Clock, State, Transition, TransitionLog};

use crate::{Attempt, Observation, observe};

/// The breaker of one dependency. Several threads use it at the same time.
pub struct Breaker {
    name: String,
    settings: BreakerSettings,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    guarded: Mutex<Guarded>,
}

struct Guarded {
    phase: Phase,
    /// Bumped on every change of phase: a ticket from an older phase is stale.
    generation: u64,
}

enum Phase {
    Closed(Ring),
    /// Open until `probe_at`.
    Open { probe_at: Duration },
    /// Probes handed out and probes that succeeded in this round.
    HalfOpen { handed: usize, passed: usize },
}

impl Phase {
    fn state(&self) -> State {
        match self {
            Phase::Closed(_) => State::Closed,
            Phase::Open { .. } => State::Open,
            Phase::HalfOpen { .. } => State::HalfOpen,
        }
    }
}

/// The latest outcomes in a fixed ring: `true` for a failure.
struct Ring {
    slots: Vec<bool>,
    next: usize,
    filled: usize,
}

impl Ring {
    fn new(size: usize) -> Ring {
        Ring {
            slots: vec![false; size.max(1)],
            next: 0,
            filled: 0,
        }
    }

    fn push(&mut self, failed: bool) {
        let len = self.slots.len();
        self.slots[self.next] = failed;
        self.next = (self.next + 1) % len;
        self.filled = (self.filled + 1).min(len);
    }

    /// (failures, outcomes held).
    fn tally(&self) -> (usize, usize) {
        let failures = if self.filled == self.slots.len() {
            self.slots.iter().filter(|f| **f).count()
        } else {
            self.slots[..self.filled].iter().filter(|f| **f).count()
        };
        (failures, self.filled)
    }
}

/// What an admitted attempt carries back to the breaker: the generation it was let in
/// (in HALF_OPEN, an attempt of the current generation is a probe).
struct Pass {
    generation: u64,
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
            name: dependency.to_owned(),
            settings,
            clock,
            log,
            guarded: Mutex::new(Guarded {
                phase: Phase::Closed(Ring::new(settings.window)),
                generation: 0,
            }),
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        self.lock().phase.state()
    }

    /// Runs `attempt` if the circuit lets it through and learns from how it ended;
    /// `CircuitOpen` at once otherwise.
    pub fn call(&self, attempt: impl FnOnce() -> Attempt) -> Attempt {
        let Some(pass) = self.pass() else {
            return Attempt::CircuitOpen;
        };
        let ended = attempt();
        self.learn(pass, observe(ended));
        ended
    }

    fn pass(&self) -> Option<Pass> {
        let mut g = self.lock();
        let now = self.clock.now();
        if let Phase::Open { probe_at } = g.phase {
            if now < probe_at {
                return None;
            }
            self.change(&mut g, Phase::HalfOpen {
                handed: 0,
                passed: 0,
            });
        }
        let generation = g.generation;
        match &mut g.phase {
            Phase::Closed(_) => Some(Pass { generation }),
            Phase::HalfOpen { handed, .. } if *handed < self.settings.probes => {
                *handed += 1;
                Some(Pass { generation })
            }
            _ => None,
        }
    }

    fn learn(&self, pass: Pass, seen: Option<Observation>) {
        let mut g = self.lock();
        if g.generation != pass.generation {
            return;
        }
        let probes = self.settings.probes;
        let next = match (&mut g.phase, seen) {
            (Phase::HalfOpen { handed, .. }, None) => {
                // A probe the shop turned away: its place goes back.
                *handed -= 1;
                None
            }
            (_, None) => None,
            (Phase::HalfOpen { .. }, Some(Observation::Failure)) => Some(self.reopen()),
            (Phase::HalfOpen { passed, .. }, Some(Observation::Success)) => {
                *passed += 1;
                (*passed >= probes).then(|| Phase::Closed(Ring::new(self.settings.window)))
            }
            (Phase::Closed(ring), Some(observation)) => {
                ring.push(observation == Observation::Failure);
                let (failures, held) = ring.tally();
                let rate = self.settings.failure_rate_percent as usize;
                (held >= self.settings.minimum_calls && failures * 100 >= rate * held)
                    .then(|| self.reopen())
            }
            (Phase::Open { .. }, Some(_)) => None,
        };
        if let Some(next) = next {
            self.change(&mut g, next);
        }
    }

    fn reopen(&self) -> Phase {
        Phase::Open {
            probe_at: self.clock.now() + self.settings.open_for,
        }
    }

    /// Moves to `next` and writes its record, under the caller's lock.
    fn change(&self, g: &mut Guarded, next: Phase) {
        let from = g.phase.state();
        let to = next.state();
        g.phase = next;
        g.generation += 1;
        self.log.record(Transition {
            at: self.clock.now(),
            target: self.name.clone(),
            from,
            to,
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Guarded> {
        self.guarded.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
