//! What the relay forwards to, and what it forwards.

/// One request from a channel, addressed to one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// A number that identifies the request in reports.
    pub id: u64,
    /// The name of the target the request is for, such as `core_banking`.
    pub target: String,
}

impl Request {
    /// A request numbered `id` for the target named `target`.
    pub fn new(id: u64, target: impl Into<String>) -> Self {
        Self {
            id,
            target: target.into(),
        }
    }
}

/// A back-end system the relay forwards requests to (core banking, claims, ...).
///
/// `call` blocks until the target answers. It may be called from many threads at once.
pub trait Target: Send + Sync {
    /// The target's name, such as `core_banking`.
    fn name(&self) -> &str;

    /// Sends one request and waits for the answer.
    fn call(&self, request: &Request) -> crate::Code;
}

/// Sends `request` to `target` and returns its answer, containing a panicking target.
///
/// A target that panics has not processed the request: its panic is caught here and turned
/// into `E500`, so a crash inside one target call can never take a relay thread, a held
/// lock or a bulkhead slot down with it.
pub fn forward(target: &dyn Target, request: &Request) -> crate::Code {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target.call(request)))
        .unwrap_or(crate::Code::E500)
}
