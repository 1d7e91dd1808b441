//! What a harness needs from a shop under test, and how it makes one. The race harness
//! compiles this same file against its own build of `shipping_kit` (the twin on the
//! explorer's runtime), so both harnesses ask the shop the same questions.

use std::sync::Arc;

use shipping_kit::{
    Browse, Checkout, Clock, Dependency, DependencySettings, Metrics, Order, Page, State,
    Transition,
};

/// What the harness needs from a shop: the public API of the lab's `Shop`.
pub trait ShopUnderTest: Send + Sync {
    /// `Shop::checkout`.
    fn checkout(&self, order: &Order) -> Checkout;
    /// `Shop::browse`.
    fn browse(&self, page: &Page) -> Browse;
    /// `Shop::circuit_state`.
    fn circuit_state(&self, dependency: &str) -> Option<State>;
    /// `Shop::metrics`.
    fn metrics(&self, dependency: &str) -> Option<Metrics>;
    /// `Shop::transitions`.
    fn transitions(&self) -> Vec<Transition>;
}

/// Builds one shop under test: `Shop::new`.
pub type BuildShop =
    fn(Arc<dyn Clock>, Vec<(Arc<dyn Dependency>, DependencySettings)>) -> Box<dyn ShopUnderTest>;

/// A shop's metrics as values, in the order of the names in `lab6_harness::wire::METRICS`.
pub fn metric_values(m: &Metrics) -> [u64; 5] {
    [
        m.timeout,
        m.no_capacity,
        m.queue_expired,
        m.circuit_open,
        m.no_tariff,
    ]
}

/// A shop's transition records, as text.
pub fn records(list: &[Transition]) -> Vec<String> {
    list.iter().map(ToString::to_string).collect()
}
