//! The shop: checkout needs a shipping quote, browsing needs the catalog, and each
//! dependency has its own protection, so a sick vendor never slows the catalog.

use std::sync::Arc;

use shipping_kit::{
    Browse, CATALOG, Checkout, Clock, Dependency, DependencySettings, Metrics, Order, Page,
    SHIPPING, State, Transition, TransitionLog,
};

use crate::Client;

/// The shop's side of its dependencies.
pub struct Shop {
    clients: Vec<Client>,
    log: TransitionLog,
}

impl Shop {
    /// A shop calling `dependencies` (each with its settings), found by name: `shipping`
    /// for checkout, `catalog` for browsing. Time is read and waited on through `clock`.
    pub fn new(
        clock: Arc<dyn Clock>,
        dependencies: Vec<(Arc<dyn Dependency>, DependencySettings)>,
    ) -> Self {
        let log = TransitionLog::new();
        // TODO(lab6): one `Client` per dependency, each with its own settings, the shared
        // `clock` and this `log`. Then `Self { clients, log }`.
        let _ = (clock, dependencies, log);
        todo!("lab 6: build one client per dependency in Shop::new")
    }

    /// Quotes the order's shipping and confirms the purchase with that price; or says
    /// there is no tariff, or that shipping is unavailable and why, and confirms nothing.
    pub fn checkout(&self, order: &Order) -> Checkout {
        let Some(shipping) = self.client(SHIPPING) else {
            return Checkout::Unavailable(shipping_kit::Cause::Refused);
        };
        // TODO(lab6): `shipping.call(order.id)`, then: a quote confirms the purchase with
        // its price; "no tariff" is `Checkout::NoTariff`; anything else is
        // `Checkout::Unavailable` with its cause. Never a price nobody quoted.
        let _ = (shipping, order);
        todo!("lab 6: turn the quote into a checkout in Shop::checkout")
    }

    /// Shows a page from the catalog, on the catalog's own capacity.
    pub fn browse(&self, page: &Page) -> Browse {
        let Some(catalog) = self.client(CATALOG) else {
            return Browse::Unavailable(shipping_kit::Cause::Refused);
        };
        // TODO(lab6): `catalog.call(page.id)`: shown, or unavailable with its cause.
        let _ = (catalog, page);
        todo!("lab 6: show a page in Shop::browse")
    }

    /// The state of `dependency`'s breaker, or `None` for a dependency the shop does not
    /// know.
    pub fn circuit_state(&self, dependency: &str) -> Option<State> {
        self.client(dependency).map(Client::state)
    }

    /// How `dependency`'s attempts ended so far, or `None` for one the shop does not know.
    pub fn metrics(&self, dependency: &str) -> Option<Metrics> {
        self.client(dependency).map(Client::metrics)
    }

    /// Every breaker transition so far, oldest first.
    pub fn transitions(&self) -> Vec<Transition> {
        self.log.snapshot()
    }

    fn client(&self, name: &str) -> Option<&Client> {
        self.clients.iter().find(|c| c.name() == name)
    }
}
