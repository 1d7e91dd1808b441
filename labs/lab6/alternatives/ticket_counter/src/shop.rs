//! The shop: checkout needs the shipping vendor, browsing the catalog, each on its own
//! protection; without a quote, nothing is confirmed.

use std::collections::HashMap;
use std::sync::Arc;

use shipping_kit::{
    Answer, Browse, CATALOG, Cause, Checkout, Clock, Dependency, DependencySettings, Metrics,
    Order, Page, SHIPPING, State, Transition, TransitionLog,
};

use crate::{Attempt, Client, cause};

/// The shop's side of its dependencies.
pub struct Shop {
    clients: HashMap<String, Client>,
    log: TransitionLog,
}

impl Shop {
    /// A shop calling `dependencies` (each with its settings), found by name.
    pub fn new(
        clock: Arc<dyn Clock>,
        dependencies: Vec<(Arc<dyn Dependency>, DependencySettings)>,
    ) -> Self {
        let log = TransitionLog::new();
        let mut clients = HashMap::new();
        for (dependency, settings) in dependencies {
            let name = dependency.name().to_owned();
            let client = Client::new(dependency, settings, clock.clone(), log.clone());
            clients.insert(name, client);
        }
        Self { clients, log }
    }

    /// Quotes the order's shipping: confirmed at the quoted price, no tariff, or
    /// unavailable and why.
    pub fn checkout(&self, order: &Order) -> Checkout {
        let Some(vendor) = self.clients.get(SHIPPING) else {
            return Checkout::Unavailable(Cause::Refused);
        };
        let outcome = vendor.call(order.id);
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

    /// The state of `dependency`'s breaker, if the shop knows it.
    pub fn circuit_state(&self, dependency: &str) -> Option<State> {
        self.clients.get(dependency).map(Client::state)
    }

    /// `dependency`'s metrics, if the shop knows it.
    pub fn metrics(&self, dependency: &str) -> Option<Metrics> {
        self.clients.get(dependency).map(Client::metrics)
    }

    /// Every breaker transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }
}
