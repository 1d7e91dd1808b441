//! `std::sync` on the runtime, item by item: only what is modelled here is offered, so
//! anything else is a compile error of the race build rather than a real lock the explorer
//! cannot see.

pub mod atomic;
mod condvar;
mod lazy_lock;
mod mutex;
mod once_lock;
mod rwlock;

pub use ::std::sync::{Arc, LockResult, PoisonError, TryLockError, TryLockResult, Weak};
pub use condvar::Condvar;
pub use lazy_lock::LazyLock;
pub use mutex::{Mutex, MutexGuard};
pub use once_lock::OnceLock;
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use shuttle::sync::{Barrier, BarrierWaitResult, Once, OnceState, WaitTimeoutResult, mpsc};

/// Maps the runtime's lock result onto one carrying our guard.
pub(crate) fn map_lock<G, H>(result: LockResult<G>, wrap: impl FnOnce(G) -> H) -> LockResult<H> {
    match result {
        Ok(guard) => Ok(wrap(guard)),
        Err(poisoned) => Err(PoisonError::new(wrap(poisoned.into_inner()))),
    }
}

/// Maps the runtime's `try_lock` result onto one carrying our guard.
pub(crate) fn map_try<G, H>(
    result: TryLockResult<G>,
    wrap: impl FnOnce(G) -> H,
) -> TryLockResult<H> {
    match result {
        Ok(guard) => Ok(wrap(guard)),
        Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(wrap(
            p.into_inner(),
        )))),
        Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
    }
}
