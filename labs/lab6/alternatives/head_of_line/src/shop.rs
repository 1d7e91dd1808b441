//! The shop: checkout on the shipping vendor's protection, browsing on the catalog's.

use std::sync::Arc;

use shipping_kit::{
    Answer, Browse, CATALOG, Cause, Checkout, Clock, Dependency, DependencySettings, Metrics,
    Order, Page, SHIPPING, State, Transition, TransitionLog,
};

use crate::{Attempt, Client, cause};

/// The shop's side of its dependencies.
pub struct Shop {
    clients: Vec<Client>,
    log: TransitionLog,
}

impl Shop {
    /// A shop calling `dependencies` (each with its settings), found by name.
    pub fn new(
        clock: Arc<dyn Clock>,
        dependencies: Vec<(Arc<dyn Dependency>, DependencySettings)>,
    ) -> Self {
        let log = TransitionLog::new();
        let mut clients = Vec::with_capacity(dependencies.len());
        for (dependency, settings) in dependencies {
            clients.push(Client::new(dependency, settings, clock.clone(), log.clone()));
        }
        Self { clients, log }
    }

    /// Confirms the purchase with a quoted price, or says why it cannot. Nothing but a
    /// quote confirms.
    pub fn checkout(&self, order: &Order) -> Checkout {
        let outcome = self
            .find(SHIPPING)
            .map_or(Attempt::Answered(Answer::Refused), |c| c.call(order.id));
        match (outcome, cause(outcome)) {
            (Attempt::Answered(Answer::Ok(price)), _) => Checkout::Confirmed { shipping: price },
            (_, Some(why)) => Checkout::Unavailable(why),
            (_, None) => Checkout::NoTariff,
        }
    }

    /// Shows a page from the catalog, on the catalog's own capacity.
    pub fn browse(&self, page: &Page) -> Browse {
        match self.find(CATALOG).map(|c| cause(c.call(page.id))) {
            Some(None) => Browse::Shown,
            Some(Some(why)) => Browse::Unavailable(why),
            None => Browse::Unavailable(Cause::Refused),
        }
    }

    /// The state of `dependency`'s breaker, or `None` for one the shop does not know.
    pub fn circuit_state(&self, dependency: &str) -> Option<State> {
        self.find(dependency).map(Client::state)
    }

    /// How `dependency`'s attempts ended so far, or `None` for one the shop does not know.
    pub fn metrics(&self, dependency: &str) -> Option<Metrics> {
        self.find(dependency).map(Client::metrics)
    }

    /// Every breaker transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }

    fn find(&self, name: &str) -> Option<&Client> {
        self.clients.iter().position(|c| c.name() == name).map(|i| &self.clients[i])
    }
}
