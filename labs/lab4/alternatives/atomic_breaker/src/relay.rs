//! The relay: each target behind its own breaker and its own bulkhead.

use std::collections::HashMap;
use std::sync::Arc;

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::{Breaker, Bulkhead};

/// Routes each request to its target through that target's breaker and bulkhead.
pub struct Relay {
    lanes: HashMap<String, Lane>,
    log: TransitionLog,
}

struct Lane {
    target: Arc<dyn Target>,
    breaker: Breaker,
    bulkhead: Bulkhead,
}

impl Relay {
    /// A relay for `targets`, each with its own settings.
    pub fn new(clock: Arc<dyn Clock>, targets: Vec<(Arc<dyn Target>, TargetConfig)>) -> Self {
        let log = TransitionLog::new();
        let mut lanes = HashMap::with_capacity(targets.len());
        for (target, config) in targets {
            let name = target.name().to_owned();
            let breaker = Breaker::new(name.clone(), config.breaker, Arc::clone(&clock), log.clone());
            let bulkhead = Bulkhead::new(config.max_concurrent);
            lanes.insert(
                name,
                Lane {
                    target,
                    breaker,
                    bulkhead,
                },
            );
        }
        Self { lanes, log }
    }

    /// Sends one request: breaker first, then bulkhead, then the target.
    pub fn handle(&self, request: &Request) -> Code {
        match self.lanes.get(&request.target) {
            Some(lane) => lane
                .breaker
                .call(|| lane.bulkhead.call(|| forward(&*lane.target, request))),
            None => Code::E902,
        }
    }

    /// The state of `target`'s breaker, if the relay knows the target.
    pub fn breaker_state(&self, target: &str) -> Option<State> {
        Some(self.lanes.get(target)?.breaker.state())
    }

    /// Every transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
