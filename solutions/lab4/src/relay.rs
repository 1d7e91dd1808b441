//! The relay: routes each request to its target through that target's own breaker and
//! bulkhead.
//!
//! Every target gets a separate breaker and a separate bulkhead, so a dead or slow core
//! banking never costs a claims request anything.

use std::collections::HashMap;
use std::sync::Arc;

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::{Breaker, Bulkhead};

/// Routes requests to targets, protecting each target separately.
pub struct Relay {
    lanes: HashMap<String, Lane>,
    log: TransitionLog,
}

/// Everything that belongs to one target.
struct Lane {
    target: Arc<dyn Target>,
    breaker: Breaker,
    bulkhead: Bulkhead,
}

impl Relay {
    /// A relay for `targets`, each with its settings; breakers read time from `clock`.
    pub fn new(clock: Arc<dyn Clock>, targets: Vec<(Arc<dyn Target>, TargetConfig)>) -> Self {
        let log = TransitionLog::new();
        let lanes = targets
            .into_iter()
            .map(|(target, config)| {
                let name = target.name().to_owned();
                let lane = Lane {
                    breaker: Breaker::new(&name, config.breaker, clock.clone(), log.clone()),
                    bulkhead: Bulkhead::new(config.max_concurrent),
                    target,
                };
                (name, lane)
            })
            .collect();
        Self { lanes, log }
    }

    /// Sends one request to its target and returns how it ended.
    ///
    /// The breaker decides first, so a request to an open circuit takes no bulkhead slot;
    /// then the bulkhead; then the target. A request for a target this relay does not
    /// know gets E902: there is nothing to connect to.
    pub fn handle(&self, request: &Request) -> Code {
        let Some(lane) = self.lanes.get(&request.target) else {
            return Code::E902;
        };
        lane.breaker.call(|| {
            lane.bulkhead
                .call(|| forward(lane.target.as_ref(), request))
        })
    }

    /// The state of `target`'s breaker, or `None` for a target this relay does not know.
    pub fn breaker_state(&self, target: &str) -> Option<State> {
        self.lanes.get(target).map(|lane| lane.breaker.state())
    }

    /// Every breaker transition so far, across all targets, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
