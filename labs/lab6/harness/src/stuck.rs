//! What the harness can still see while requests are blocked inside a shop: whether the
//! dependency's circuit state can be read, which tells whether they wait for the
//! breaker's lock or for something else.

use grader_harness::{Failure, LookKeys};

use crate::run::World;
use crate::wire::seen;

/// What a look at a dependency's circuit state showed while requests were blocked.
const LOOKED: LookKeys = LookKeys {
    readable: seen::STATE_READABLE,
    blocked: seen::STATE_BLOCKED,
    panicked: seen::STATE_PANICKED,
};

impl World {
    /// A stuck failure with what was seen of the breaker's lock: when the requests are
    /// blocked for good, whether the circuit state of the first stuck request's
    /// dependency, on its instance, can still be read (if it can, what they wait for is
    /// not the breaker's lock).
    pub(crate) fn seen(&self, failure: Failure) -> Failure {
        let Failure::Stuck(stuck) = &failure else {
            return failure;
        };
        let first = stuck.requests.first().and_then(|id| {
            let (_, instance, target) = self.sent.iter().find(|(sent, _, _)| sent == id)?;
            Some((self.shops.get(*instance)?.clone(), target.clone()))
        });
        let Some((shop, target)) = first else {
            return failure;
        };
        let look = move || {
            shop.circuit_state(&target);
        };
        self.requests.look(failure, look, &LOOKED)
    }
}
