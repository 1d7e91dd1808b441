//! `RwLock` on the runtime, recording every read and write lock and unlock.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;

use super::{LockResult, TryLockError, TryLockResult, map_lock, map_try};
use crate::trace::{self, Mode, Object, Token, What};

/// A reader-writer lock, as [`std::sync::RwLock`]; taking it is a scheduling point.
pub struct RwLock<T: ?Sized> {
    made: &'static Location<'static>,
    inner: shuttle::sync::RwLock<T>,
}

/// Shared access, held; as [`std::sync::RwLockReadGuard`].
pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    _token: Token,
    inner: shuttle::sync::RwLockReadGuard<'a, T>,
}

/// Exclusive access, held; as [`std::sync::RwLockWriteGuard`].
pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    _token: Token,
    inner: shuttle::sync::RwLockWriteGuard<'a, T>,
}

impl<T> RwLock<T> {
    /// A new, unlocked lock holding `value`.
    #[track_caller]
    pub const fn new(value: T) -> Self {
        Self {
            made: Location::caller(),
            inner: shuttle::sync::RwLock::new(value),
        }
    }
}

impl<T: ?Sized> RwLock<T> {
    fn object(&self) -> Object {
        trace::object::<Self, T>(self, "RwLock", self.made)
    }

    /// Shared access, waiting while a writer holds the lock.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let at = Location::caller();
        let object = self.object();
        trace::record(What::Acquire(object, Mode::Shared), at);
        let result = self.inner.read();
        let token = trace::acquired(object, Mode::Shared, at);
        map_lock(result, |inner| RwLockReadGuard {
            _token: token,
            inner,
        })
    }

    /// Exclusive access, waiting while anyone else holds the lock.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let at = Location::caller();
        let object = self.object();
        trace::record(What::Acquire(object, Mode::Exclusive), at);
        let result = self.inner.write();
        let token = trace::acquired(object, Mode::Exclusive, at);
        map_lock(result, |inner| RwLockWriteGuard {
            _token: token,
            inner,
        })
    }

    /// Shared access if no writer holds the lock.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let at = Location::caller();
        let object = self.object();
        let result = self.inner.try_read();
        if let Err(TryLockError::WouldBlock) = result {
            trace::record(What::TryFailed(object), at);
            return Err(TryLockError::WouldBlock);
        }
        let token = trace::acquired(object, Mode::Shared, at);
        map_try(result, |inner| RwLockReadGuard {
            _token: token,
            inner,
        })
    }

    /// Exclusive access if no one holds the lock.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let at = Location::caller();
        let object = self.object();
        let result = self.inner.try_write();
        if let Err(TryLockError::WouldBlock) = result {
            trace::record(What::TryFailed(object), at);
            return Err(TryLockError::WouldBlock);
        }
        let token = trace::acquired(object, Mode::Exclusive, at);
        map_try(result, |inner| RwLockWriteGuard {
            _token: token,
            inner,
        })
    }

    /// The value, without locking.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }

    /// The value, consuming the lock.
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

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    #[track_caller]
    fn from(value: T) -> Self {
        Self::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
