//! The relay: lanes sorted by target name and found by binary search.

use std::sync::Arc;

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::{Breaker, Bulkhead};

/// Routes each request to its target through that target's breaker and bulkhead.
pub struct Relay {
    lanes: Box<[Lane]>,
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
        let mut lanes: Vec<Lane> = Vec::with_capacity(targets.len());
        for (target, config) in targets {
            let name = target.name().to_owned();
            lanes.push(Lane {
                breaker: Breaker::new(name.as_str(), config.breaker, clock.clone(), log.clone()),
                bulkhead: Bulkhead::new(config.max_concurrent),
                name,
                target,
            });
        }
        lanes.sort_by(|a, b| a.name.cmp(&b.name));
        Self {
            lanes: lanes.into_boxed_slice(),
            log,
        }
    }

    fn lane(&self, name: &str) -> Option<&Lane> {
        let at = self
            .lanes
            .binary_search_by(|lane| lane.name.as_str().cmp(name))
            .ok()?;
        self.lanes.get(at)
    }

    /// Sends one request: breaker first, then bulkhead, then the target.
    pub fn handle(&self, request: &Request) -> Code {
        match self.lane(&request.target) {
            None => Code::E902,
            Some(lane) => lane.breaker.call(|| {
                lane.bulkhead
                    .call(|| forward(lane.target.as_ref(), request))
            }),
        }
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
