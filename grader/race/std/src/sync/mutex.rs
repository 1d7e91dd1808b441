//! `Mutex` on the runtime, recording every lock and unlock.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;

use super::{LockResult, TryLockError, TryLockResult, map_lock, map_try};
use crate::trace::{self, Mode, Object, Token, What};

/// A mutual exclusion lock, as [`std::sync::Mutex`]; taking it is a scheduling point.
pub struct Mutex<T: ?Sized> {
    made: &'static Location<'static>,
    inner: shuttle::sync::Mutex<T>,
}

/// The lock, held; as [`std::sync::MutexGuard`].
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    // Dropped first, so the record shows the release before the runtime makes it.
    pub(crate) token: Token,
    pub(crate) inner: shuttle::sync::MutexGuard<'a, T>,
}

impl<T> Mutex<T> {
    /// A new, unlocked mutex holding `value`.
    #[track_caller]
    pub const fn new(value: T) -> Self {
        Self {
            made: Location::caller(),
            inner: shuttle::sync::Mutex::new(value),
        }
    }
}

impl<T: ?Sized> Mutex<T> {
    pub(crate) fn object(&self) -> Object {
        trace::object::<Self, T>(self, "Mutex", self.made)
    }

    /// Takes the lock, waiting while another thread holds it.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let at = Location::caller();
        let object = self.object();
        trace::record(What::Acquire(object, Mode::Exclusive), at);
        let result = self.inner.lock();
        let token = trace::acquired(object, Mode::Exclusive, at);
        map_lock(result, |inner| MutexGuard { token, inner })
    }

    /// Takes the lock if it is free.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let at = Location::caller();
        let object = self.object();
        let result = self.inner.try_lock();
        if let Err(TryLockError::WouldBlock) = result {
            trace::record(What::TryFailed(object), at);
            return Err(TryLockError::WouldBlock);
        }
        let token = trace::acquired(object, Mode::Exclusive, at);
        map_try(result, |inner| MutexGuard { token, inner })
    }

    /// The value, without locking: `&mut self` proves no one else can hold the lock.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }

    /// The value, consuming the mutex.
    pub fn into_inner(self) -> LockResult<T>
    where
        T: Sized,
    {
        self.inner.into_inner()
    }

    /// Forgets that a thread panicked while holding the lock.
    pub fn clear_poison(&self) {
        self.inner.clear_poison();
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    #[track_caller]
    fn from(value: T) -> Self {
        Self::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
