//! The shop: checkout on the shipping vendor's protection, browsing on the catalog's.

use std::collections::BTreeMap;
use std::sync::Arc;

use shipping_kit::{
    Answer, Browse, CATALOG, Cause, Checkout, Clock, Dependency, DependencySettings, Metrics,
    Order, Page, SHIPPING, State, Transition, TransitionLog,
};

use crate::{Attempt, Client, cause};

/// The shop's side of its dependencies.
pub struct Shop {
    clients: BTreeMap<String, Client>,
    log: TransitionLog,
}

impl Shop {
    /// A shop calling `dependencies` (each with its settings), found by name.
    pub fn new(
        clock: Arc<dyn Clock>,
        dependencies: Vec<(Arc<dyn Dependency>, DependencySettings)>,
    ) -> Self {
        let log = TransitionLog::new();
        let mut clients = BTreeMap::new();
        for (dependency, settings) in dependencies {
            let name = dependency.name().to_owned();
            clients.insert(
                name,
                Client::new(dependency, settings, clock.clone(), log.clone()),
            );
        }
        Self { clients, log }
    }

    /// Confirms the purchase with a quoted price, or says why it cannot.
    pub fn checkout(&self, order: &Order) -> Checkout {
        let outcome = match self.clients.get(SHIPPING) {
            Some(shipping) => shipping.call(order.id),
            None => return Checkout::Unavailable(Cause::Refused),
        };
        if let Attempt::Answered(Answer::Ok(price)) = outcome {
            return Checkout::Confirmed { shipping: price };
        }
        if outcome == Attempt::Answered(Answer::NoTariff) {
            return Checkout::NoTariff;
        }
        Checkout::Unavailable(cause(outcome).unwrap_or(Cause::Refused))
    }

    /// Shows a page from the catalog, on the catalog's own capacity.
    pub fn browse(&self, page: &Page) -> Browse {
        let Some(catalog) = self.clients.get(CATALOG) else {
            return Browse::Unavailable(Cause::Refused);
        };
        cause(catalog.call(page.id)).map_or(Browse::Shown, Browse::Unavailable)
    }

    /// The state of `dependency`'s breaker, or `None` for one the shop does not know.
    pub fn circuit_state(&self, dependency: &str) -> Option<State> {
        self.clients.get(dependency).map(Client::state)
    }

    /// How `dependency`'s attempts ended so far, or `None` for one the shop does not know.
    pub fn metrics(&self, dependency: &str) -> Option<Metrics> {
        self.clients.get(dependency).map(Client::metrics)
    }

    /// Every breaker transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
