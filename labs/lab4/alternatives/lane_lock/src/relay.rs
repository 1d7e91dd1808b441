//! The relay: one mutex per target guards that target's circuit and slots together.
//!
//! A request locks its lane once to ask the circuit and take a slot, calls the target
//! with no lock held, and locks the lane again to give the slot back and settle.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::breaker::{Circuit, Pass};
use crate::bulkhead::Slots;

/// Routes each request to its target, each target with its own lane.
pub struct Relay {
    clock: Arc<dyn Clock>,
    lanes: BTreeMap<String, Lane>,
    log: TransitionLog,
}

struct Lane {
    target: Arc<dyn Target>,
    guarded: Mutex<Guarded>,
}

/// Everything about one target that changes, under one lock.
struct Guarded {
    circuit: Circuit,
    slots: Slots,
}

impl Lane {
    fn lock(&self) -> MutexGuard<'_, Guarded> {
        self.guarded.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A request that got through both checks. Dropping it frees the slot and settles the
/// circuit, with `code` if the call returned and as a failure if it unwound.
struct Admitted<'a> {
    relay: &'a Relay,
    lane: &'a Lane,
    pass: Pass,
    code: Code,
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        let now = self.relay.clock.now();
        let mut guarded = self.lane.lock();
        guarded.slots.give_back();
        guarded.circuit.settle(self.pass, self.code, now);
    }
}

impl Relay {
    /// A relay for `targets`, each with its own settings.
    pub fn new(clock: Arc<dyn Clock>, targets: Vec<(Arc<dyn Target>, TargetConfig)>) -> Self {
        let log = TransitionLog::new();
        let mut lanes = BTreeMap::new();
        for (target, config) in targets {
            let name = target.name().to_owned();
            let guarded = Guarded {
                circuit: Circuit::new(name.clone(), config.breaker, log.clone()),
                slots: Slots::new(config.max_concurrent),
            };
            lanes.insert(
                name,
                Lane {
                    target,
                    guarded: Mutex::new(guarded),
                },
            );
        }
        Self { clock, lanes, log }
    }

    /// Sends one request: the circuit decides first, then the slots, then the target.
    pub fn handle(&self, request: &Request) -> Code {
        let Some(lane) = self.lanes.get(&request.target) else {
            return Code::E902;
        };
        let pass = {
            let now = self.clock.now();
            let mut guarded = lane.lock();
            let Some(pass) = guarded.circuit.admit(now) else {
                return Code::E904;
            };
            if !guarded.slots.take() {
                guarded.circuit.settle(pass, Code::E905, now);
                return Code::E905;
            }
            pass
        };
        let mut admitted = Admitted {
            relay: self,
            lane,
            pass,
            code: Code::E500,
        };
        admitted.code = forward(lane.target.as_ref(), request);
        admitted.code
    }

    /// The state of `target`'s breaker, if the relay knows the target.
    pub fn breaker_state(&self, target: &str) -> Option<State> {
        let lane = self.lanes.get(target)?;
        Some(lane.lock().circuit.state())
    }

    /// Every transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
