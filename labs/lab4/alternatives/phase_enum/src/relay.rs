//! The relay: a map from target name to that target's breaker and bulkhead.

use std::collections::HashMap;
use std::sync::Arc;

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::{Breaker, Bulkhead};

/// Routes each request to its target through that target's breaker and bulkhead.
pub struct Relay {
    by_name: HashMap<String, (Arc<dyn Target>, Breaker, Bulkhead)>,
    log: TransitionLog,
}

impl Relay {
    /// A relay for `targets`, each with its own settings.
    pub fn new(clock: Arc<dyn Clock>, targets: Vec<(Arc<dyn Target>, TargetConfig)>) -> Self {
        let log = TransitionLog::new();
        let by_name = targets
            .into_iter()
            .map(|(target, config)| {
                let name = target.name().to_owned();
                let breaker = Breaker::new(&name, config.breaker, clock.clone(), log.clone());
                (name, (target, breaker, Bulkhead::new(config.max_concurrent)))
            })
            .collect();
        Self { by_name, log }
    }

    /// Sends one request: breaker first, then bulkhead, then the target.
    pub fn handle(&self, request: &Request) -> Code {
        let Some((target, breaker, bulkhead)) = self.by_name.get(&request.target) else {
            return Code::E902;
        };
        breaker.call(|| bulkhead.call(|| forward(target.as_ref(), request)))
    }

    /// The state of `target`'s breaker, if the relay knows the target.
    pub fn breaker_state(&self, target: &str) -> Option<State> {
        self.by_name.get(target).map(|(_, breaker, _)| breaker.state())
    }

    /// Every transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
