//! The shop: checkout needs a shipping quote, browsing needs the catalog, and each
//! dependency has its own protection, so a sick vendor never slows the catalog.
//!
//! Checkout degrades honestly: without a valid quote it says shipping is unavailable and
//! does not confirm the purchase. It never confirms with a price nobody quoted.

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
    /// A shop calling `dependencies` (each with its settings), found by name: `shipping`
    /// for checkout, `catalog` for browsing. Time is read and waited on through `clock`.
    pub fn new(
        clock: Arc<dyn Clock>,
        dependencies: Vec<(Arc<dyn Dependency>, DependencySettings)>,
    ) -> Self {
        let log = TransitionLog::new();
        let clients = dependencies
            .into_iter()
            .map(|(dependency, settings)| {
                Client::new(dependency, settings, clock.clone(), log.clone())
            })
            .collect();
        Self { clients, log }
    }

    /// Quotes the order's shipping and confirms the purchase with that price; or says
    /// there is no tariff, or that shipping is unavailable and why, and confirms nothing.
    pub fn checkout(&self, order: &Order) -> Checkout {
        let Some(shipping) = self.client(SHIPPING) else {
            return Checkout::Unavailable(Cause::Refused);
        };
        match shipping.call(order.id) {
            Attempt::Answered(Answer::Ok(price)) => Checkout::Confirmed { shipping: price },
            Attempt::Answered(Answer::NoTariff) => Checkout::NoTariff,
            other => Checkout::Unavailable(cause(other).unwrap_or(Cause::Refused)),
        }
    }

    /// Shows a page from the catalog, on the catalog's own capacity.
    pub fn browse(&self, page: &Page) -> Browse {
        let Some(catalog) = self.client(CATALOG) else {
            return Browse::Unavailable(Cause::Refused);
        };
        match cause(catalog.call(page.id)) {
            None => Browse::Shown,
            Some(cause) => Browse::Unavailable(cause),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use shipping_kit::{Call, FakeClock};

    struct Fixed(&'static str, Answer);

    impl Dependency for Fixed {
        fn name(&self) -> &str {
            self.0
        }
        fn start(&self, _: u64) -> Call {
            Call::answered(self.1)
        }
    }

    fn shop(shipping: Answer) -> Shop {
        let settings = DependencySettings {
            budget: std::time::Duration::from_millis(1),
            ..DependencySettings::default()
        };
        Shop::new(
            Arc::new(FakeClock::new()),
            vec![
                (Arc::new(Fixed(SHIPPING, shipping)), settings),
                (Arc::new(Fixed(CATALOG, Answer::Ok(1))), settings),
            ],
        )
    }

    #[test]
    fn checkout_confirms_only_a_quoted_price() {
        let order = Order { id: 1 };
        assert_eq!(
            shop(Answer::Ok(1290)).checkout(&order),
            Checkout::Confirmed { shipping: 1290 }
        );
        let no_tariff = shop(Answer::NoTariff);
        assert_eq!(no_tariff.checkout(&order), Checkout::NoTariff);
        assert_eq!(no_tariff.metrics(SHIPPING).unwrap().no_tariff, 1);
        // The budget of 1 ms leaves no room for a retry: one attempt, and no invented price.
        let down = shop(Answer::Unavailable);
        assert_eq!(
            down.checkout(&order),
            Checkout::Unavailable(Cause::Unavailable)
        );
        assert_eq!(down.browse(&Page { id: 2 }), Browse::Shown);
        assert_eq!(down.circuit_state(SHIPPING), Some(State::Closed));
        assert_eq!(down.circuit_state("payments"), None);
        assert!(down.metrics("payments").is_none() && down.transitions().is_empty());
    }
}
