//! The relay, finding each request's lane through a list of names built once, on first
//! use, in a OnceLock.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use relay_kit::{
    Clock, Code, Request, State, Target, TargetConfig, Transition, TransitionLog, forward,
};

use crate::{Breaker, Bulkhead};

pub struct Relay {
    lanes: HashMap<String, Lane>,
    names: OnceLock<Vec<String>>,
    log: TransitionLog,
}

struct Lane {
    target: Arc<dyn Target>,
    breaker: Breaker,
    bulkhead: Bulkhead,
}

impl Relay {
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
        Self {
            lanes,
            names: OnceLock::new(),
            log,
        }
    }

    fn known(&self, target: &str) -> bool {
        let names = self.names.get_or_init(|| {
            let mut names: Vec<String> = self.lanes.keys().cloned().collect();
            names.sort();
            names
        });
        names.iter().any(|n| n == target)
    }

    pub fn handle(&self, request: &Request) -> Code {
        if !self.known(&request.target) {
            return Code::E902;
        }
        let Some(lane) = self.lanes.get(&request.target) else {
            return Code::E902;
        };
        lane.breaker.call(|| {
            lane.bulkhead
                .call(|| forward(lane.target.as_ref(), request))
        })
    }

    pub fn breaker_state(&self, target: &str) -> Option<State> {
        self.lanes.get(target).map(|lane| lane.breaker.state())
    }

    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
