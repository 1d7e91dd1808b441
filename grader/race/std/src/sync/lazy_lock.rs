//! `LazyLock`, which the runtime lacks, built on [`OnceLock`].

use std::fmt;
use std::ops::Deref;

use super::OnceLock;

/// A value computed on first use, as [`std::sync::LazyLock`].
pub struct LazyLock<T, F = fn() -> T> {
    cell: OnceLock<T>,
    /// The initialiser, until it has run. A standard lock is enough: it is held only while
    /// taking the function out, never across a point where another task could run.
    init: std::sync::Mutex<Option<F>>,
}

impl<T, F: FnOnce() -> T> LazyLock<T, F> {
    /// A value that `f` will compute on first use.
    #[track_caller]
    pub const fn new(f: F) -> Self {
        Self {
            cell: OnceLock::new(),
            init: std::sync::Mutex::new(Some(f)),
        }
    }

    /// Computes the value if needed, and returns it.
    #[track_caller]
    pub fn force(this: &Self) -> &T {
        this.cell.get_or_init(|| {
            let f = this
                .init
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            match f {
                Some(f) => f(),
                None => panic!("LazyLock instance has previously been poisoned"),
            }
        })
    }
}

impl<T, F: FnOnce() -> T> Deref for LazyLock<T, F> {
    type Target = T;
    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T: Default> Default for LazyLock<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LazyLock").field(&self.cell).finish()
    }
}
