//! The relay: routes each request to its target (core banking, claims, ...).
//!
//! Today it forwards every request straight to the target, unprotected. Your job: give
//! every target its own breaker and its own bulkhead, and send each call through them.

use std::collections::HashMap;
use std::sync::Arc;

use relay_kit::{Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog};

/// Routes requests to targets, protecting each target separately.
pub struct Relay {
    lanes: HashMap<String, Lane>,
    log: TransitionLog,
}

/// Everything that belongs to one target.
struct Lane {
    target: Arc<dyn Target>,
    // TODO(lab4): this target's own breaker and bulkhead.
}

impl Relay {
    /// A relay for `targets`, each with its settings; breakers read time from `clock`.
    pub fn new(clock: Arc<dyn Clock>, targets: Vec<(Arc<dyn Target>, TargetConfig)>) -> Self {
        let log = TransitionLog::new();
        let lanes = targets
            .into_iter()
            .map(|(target, config)| {
                // TODO(lab4): build a Breaker (named after the target, with
                // `config.breaker`, `clock` and `log`) and a Bulkhead (with
                // `config.max_concurrent`) for this target alone, and keep them in its lane.
                let _ = (&clock, config);
                (target.name().to_owned(), Lane { target })
            })
            .collect();
        Self { lanes, log }
    }

    /// Sends one request to its target and returns how it ended. A request for a target
    /// this relay does not know gets E902: there is nothing to connect to.
    pub fn handle(&self, request: &Request) -> Code {
        let Some(lane) = self.lanes.get(&request.target) else {
            return Code::E902;
        };
        // TODO(lab4): ask the breaker first (an E904 must not take a bulkhead slot), then
        // the bulkhead, then forward. Unprotected, the call would be:
        //     relay_kit::forward(lane.target.as_ref(), request)
        let _ = lane.target.as_ref();
        todo!("lab 4: send the request through its breaker and bulkhead in Relay::handle")
    }

    /// The state of `target`'s breaker, or `None` for a target this relay does not know.
    pub fn breaker_state(&self, target: &str) -> Option<State> {
        let _ = self.lanes.get(target)?;
        // TODO(lab4): ask this target's breaker.
        todo!("lab 4: report the breaker state in Relay::breaker_state")
    }

    /// Every breaker transition so far, across all targets, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
