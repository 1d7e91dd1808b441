//! The relay: a short list of lanes, one per target, found by name.

use std::sync::Arc;

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::{Breaker, Bulkhead};

/// Routes each request to its target through that target's breaker and bulkhead.
pub struct Relay {
    lanes: Vec<Lane>,
    log: TransitionLog,
}

struct Lane {
    name: String,
    target: Arc<dyn Target>,
    breaker: Breaker,
    bulkhead: Bulkhead,
}

impl Relay {
    /// A relay for `targets`, each with its own settings.
    pub fn new(clock: Arc<dyn Clock>, targets: Vec<(Arc<dyn Target>, TargetConfig)>) -> Self {
        let log = TransitionLog::new();
        let lanes = targets
            .into_iter()
            .map(|(target, config)| Lane {
                name: target.name().to_owned(),
                breaker: Breaker::new(target.name(), config.breaker, clock.clone(), log.clone()),
                bulkhead: Bulkhead::new(config.max_concurrent),
                target,
            })
            .collect();
        Self { lanes, log }
    }

    fn lane(&self, name: &str) -> Option<&Lane> {
        self.lanes.iter().find(|lane| lane.name == name)
    }

    /// Sends one request: breaker first, then bulkhead, then the target.
    pub fn handle(&self, request: &Request) -> Code {
        let Some(lane) = self.lane(&request.target) else {
            return Code::E902;
        };
        let to_target = || forward(lane.target.as_ref(), request);
        lane.breaker.call(|| lane.bulkhead.call(to_target))
    }

    /// The state of `target`'s breaker, if the relay knows the target.
    pub fn breaker_state(&self, target: &str) -> Option<State> {
        self.lane(target).map(|lane| lane.breaker.state())
    }

    /// Every transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
