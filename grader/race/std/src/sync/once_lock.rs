//! `OnceLock`, which the runtime lacks, built on its primitives: the first caller
//! initialises under a lock; readers see the value through an atomic flag, so both are
//! scheduling points as they would be with `std`.

use super::atomic::{AtomicBool, Ordering};
use super::{Mutex, PoisonError};
use std::fmt;

/// A cell written once, as [`std::sync::OnceLock`].
pub struct OnceLock<T> {
    /// Serialises initialisation.
    gate: Mutex<()>,
    /// Set, after `value`, once there is a value.
    ready: AtomicBool,
    /// The value itself: the standard cell gives out `&T` that live as long as `self`.
    value: std::sync::OnceLock<T>,
}

impl<T> OnceLock<T> {
    /// An empty cell.
    #[track_caller]
    pub const fn new() -> Self {
        Self {
            gate: Mutex::new(()),
            ready: AtomicBool::new(false),
            value: std::sync::OnceLock::new(),
        }
    }

    /// The value, if it was set.
    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        if self.ready.load(Ordering::SeqCst) {
            self.value.get()
        } else {
            None
        }
    }

    /// The value, setting it with `f` first if it was not set. Of several threads calling
    /// at once, one runs `f` and the others wait for it.
    #[track_caller]
    pub fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
        if let Some(v) = self.get() {
            return v;
        }
        let _gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        let v = self.value.get_or_init(f);
        self.ready.store(true, Ordering::SeqCst);
        v
    }

    /// Sets the value if it was not set; gives `value` back otherwise.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let _gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        self.value.set(value)?;
        self.ready.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// The value, through exclusive access.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.value.get_mut()
    }

    /// Empties the cell and returns what it held.
    pub fn take(&mut self) -> Option<T> {
        *self.ready.get_mut() = false;
        self.value.take()
    }

    /// What the cell held, consuming it.
    pub fn into_inner(self) -> Option<T> {
        self.value.into_inner()
    }
}

impl<T> Default for OnceLock<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new()
    }
}

impl<T> From<T> for OnceLock<T> {
    #[track_caller]
    fn from(value: T) -> Self {
        let mut cell = Self::new();
        let _ = cell.value.set(value);
        *cell.ready.get_mut() = true;
        cell
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OnceLock").field(&self.value.get()).finish()
    }
}
