//! An append-only list that clones share: the one shape behind transition logs and the
//! alert log.

use std::sync::{Arc, Mutex, PoisonError};

/// Entries in the order they were added; clones share one list.
#[derive(Debug)]
pub(crate) struct Journal<T> {
    entries: Arc<Mutex<Vec<T>>>,
}

impl<T> Default for Journal<T> {
    fn default() -> Self {
        Self {
            entries: Arc::default(),
        }
    }
}

impl<T> Clone for Journal<T> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
        }
    }
}

// Pushing and cloning cannot leave the list half-changed, so a poisoned lock still guards
// a consistent list.
impl<T: Clone> Journal<T> {
    pub(crate) fn push(&self, entry: T) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.push(entry);
    }

    /// Pushes `entry` after `note` has seen it, both under the list's lock: the race
    /// checks' record of the schedule has the entries in the list's order.
    #[cfg(feature = "race")]
    pub(crate) fn push_then(&self, entry: T, note: impl FnOnce(&T)) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        note(&entry);
        entries.push(entry);
    }

    pub(crate) fn snapshot(&self) -> Vec<T> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.clone()
    }
}
