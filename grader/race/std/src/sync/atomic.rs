//! `std::sync::atomic` on the runtime: every operation is a scheduling point, and the record
//! keeps what each one read and left.
//!
//! The runtime treats every ordering as `SeqCst`; the bugs the race checks look for are
//! lock-level and check-then-act races, which need no weaker model.

use std::fmt;
use std::panic::Location;

pub use ::std::sync::atomic::{Ordering, compiler_fence};
pub use shuttle::sync::atomic::fence;

use crate::trace::{self, Object, What};

/// Records one operation of `object`, if a schedule is being recorded.
fn note(
    object: Object,
    op: &'static str,
    before: impl fmt::Debug,
    after: impl fmt::Debug,
    at: &'static Location<'static>,
) {
    if trace::recording() {
        // Exploring needs to know that the atomic was touched; only explaining needs what
        // it held.
        let (before, after) = if trace::detailed() {
            (format!("{before:?}"), format!("{after:?}"))
        } else {
            (String::new(), String::new())
        };
        trace::record(
            What::Atomic {
                object,
                op,
                before,
                after,
            },
            at,
        );
    }
}

/// What a compare-exchange left: `new` if it succeeded, the value it saw if not.
fn exchanged<T: Copy>(result: Result<T, T>, new: T) -> T {
    match result {
        Ok(_) => new,
        Err(seen) => seen,
    }
}

/// The value a compare-exchange or update saw.
fn seen<T: Copy>(result: Result<T, T>) -> T {
    match result {
        Ok(v) | Err(v) => v,
    }
}

/// The operations every atomic type has, for a value type `$t`.
macro_rules! common {
    ($name:ident, $t:ty) => {
        impl $name {
            /// A new atomic holding `v`.
            #[track_caller]
            pub const fn new(v: $t) -> Self {
                Self {
                    made: Location::caller(),
                    inner: shuttle::sync::atomic::$name::new(v),
                }
            }

            fn object(&self) -> Object {
                trace::object::<Self, $t>(self, stringify!($name), self.made)
            }

            /// Reads the value.
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                let v = self.inner.load(order);
                note(self.object(), "load", v, v, Location::caller());
                v
            }

            /// Writes `val`.
            #[track_caller]
            pub fn store(&self, val: $t, order: Ordering) {
                // A swap is the same single step, and tells the record what was replaced.
                let before = self.inner.swap(val, order);
                note(self.object(), "store", before, val, Location::caller());
            }

            /// Writes `val` and returns the value before.
            #[track_caller]
            pub fn swap(&self, val: $t, order: Ordering) -> $t {
                let before = self.inner.swap(val, order);
                note(self.object(), "swap", before, val, Location::caller());
                before
            }

            /// Writes `new` if the value is `current`; returns the value seen, as `Ok` if it
            /// matched.
            #[track_caller]
            pub fn compare_exchange(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                let r = self.inner.compare_exchange(current, new, success, failure);
                let op = if r.is_ok() {
                    "compare_exchange (won)"
                } else {
                    "compare_exchange (lost)"
                };
                note(
                    self.object(),
                    op,
                    seen(r),
                    exchanged(r, new),
                    Location::caller(),
                );
                r
            }

            /// As [`Self::compare_exchange`].
            #[track_caller]
            pub fn compare_exchange_weak(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                let r = self
                    .inner
                    .compare_exchange_weak(current, new, success, failure);
                let op = if r.is_ok() {
                    "compare_exchange_weak (won)"
                } else {
                    "compare_exchange_weak (lost)"
                };
                note(
                    self.object(),
                    op,
                    seen(r),
                    exchanged(r, new),
                    Location::caller(),
                );
                r
            }

            /// Applies `f` until no other thread changed the value in between; returns the
            /// value before, as `Ok` if `f` gave a new one.
            #[track_caller]
            pub fn fetch_update<F>(
                &self,
                set_order: Ordering,
                fetch_order: Ordering,
                mut f: F,
            ) -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                let at = Location::caller();
                let mut prev = self.load(fetch_order);
                while let Some(next) = f(prev) {
                    match self
                        .inner
                        .compare_exchange_weak(prev, next, set_order, fetch_order)
                    {
                        Ok(v) => {
                            note(self.object(), "fetch_update", v, next, at);
                            return Ok(v);
                        }
                        Err(now) => {
                            note(self.object(), "fetch_update (retry)", now, now, at);
                            prev = now;
                        }
                    }
                }
                Err(prev)
            }

            /// The value, through exclusive access.
            pub fn get_mut(&mut self) -> &mut $t {
                self.inner.get_mut()
            }

            /// The value, consuming the atomic.
            pub fn into_inner(self) -> $t {
                self.inner.into_inner()
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> Self {
                Self::new(<$t>::default())
            }
        }

        impl From<$t> for $name {
            #[track_caller]
            fn from(v: $t) -> Self {
                Self::new(v)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.inner.fmt(f)
            }
        }
    };
}

/// One read-modify-write operation `$op` that returns the value before and leaves `$after`.
macro_rules! rmw {
    ($op:ident, $t:ty, |$old:ident, $val:ident| $after:expr) => {
        /// As the `std` operation of the same name: returns the value before.
        #[track_caller]
        pub fn $op(&self, $val: $t, order: Ordering) -> $t {
            let $old = self.inner.$op($val, order);
            note(
                self.object(),
                stringify!($op),
                $old,
                $after,
                Location::caller(),
            );
            $old
        }
    };
}

macro_rules! atomic_int {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        /// An integer shared between threads, as the `std` type of the same name; every
        /// operation is a scheduling point.
        pub struct $name {
            made: &'static Location<'static>,
            inner: shuttle::sync::atomic::$name,
        }

        common!($name, $t);

        impl $name {
            rmw!(fetch_add, $t, |old, val| old.wrapping_add(val));
            rmw!(fetch_sub, $t, |old, val| old.wrapping_sub(val));
            rmw!(fetch_and, $t, |old, val| old & val);
            rmw!(fetch_nand, $t, |old, val| !(old & val));
            rmw!(fetch_or, $t, |old, val| old | val);
            rmw!(fetch_xor, $t, |old, val| old ^ val);
            rmw!(fetch_max, $t, |old, val| old.max(val));
            rmw!(fetch_min, $t, |old, val| old.min(val));
        }
    )*};
}

atomic_int!(
    AtomicI8: i8,
    AtomicI16: i16,
    AtomicI32: i32,
    AtomicI64: i64,
    AtomicIsize: isize,
    AtomicU8: u8,
    AtomicU16: u16,
    AtomicU32: u32,
    AtomicU64: u64,
    AtomicUsize: usize,
);

/// A boolean shared between threads, as [`std::sync::atomic::AtomicBool`]; every operation
/// is a scheduling point.
pub struct AtomicBool {
    made: &'static Location<'static>,
    inner: shuttle::sync::atomic::AtomicBool,
}

common!(AtomicBool, bool);

impl AtomicBool {
    rmw!(fetch_and, bool, |old, val| old & val);
    rmw!(fetch_nand, bool, |old, val| !(old & val));
    rmw!(fetch_or, bool, |old, val| old | val);
    rmw!(fetch_xor, bool, |old, val| old ^ val);

    /// Flips the value; returns the value before.
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        let old = self.inner.fetch_xor(true, order);
        note(self.object(), "fetch_not", old, !old, Location::caller());
        old
    }
}

/// A raw pointer shared between threads, as [`std::sync::atomic::AtomicPtr`]; every
/// operation is a scheduling point.
pub struct AtomicPtr<T> {
    made: &'static Location<'static>,
    inner: shuttle::sync::atomic::AtomicPtr<T>,
}

impl<T> AtomicPtr<T> {
    /// A new atomic pointer.
    #[track_caller]
    pub const fn new(p: *mut T) -> Self {
        Self {
            made: Location::caller(),
            inner: shuttle::sync::atomic::AtomicPtr::new(p),
        }
    }

    fn object(&self) -> Object {
        trace::object::<Self, *mut T>(self, "AtomicPtr", self.made)
    }

    /// Reads the pointer.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        let v = self.inner.load(order);
        note(self.object(), "load", v, v, Location::caller());
        v
    }

    /// Writes `p`.
    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        let before = self.inner.swap(p, order);
        note(self.object(), "store", before, p, Location::caller());
    }

    /// Writes `p` and returns the pointer before.
    #[track_caller]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        let before = self.inner.swap(p, order);
        note(self.object(), "swap", before, p, Location::caller());
        before
    }

    /// Writes `new` if the pointer is `current`.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let r = self.inner.compare_exchange(current, new, success, failure);
        note(
            self.object(),
            "compare_exchange",
            seen(r),
            exchanged(r, new),
            Location::caller(),
        );
        r
    }

    /// As [`Self::compare_exchange`].
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let r = self
            .inner
            .compare_exchange_weak(current, new, success, failure);
        note(
            self.object(),
            "compare_exchange_weak",
            seen(r),
            exchanged(r, new),
            Location::caller(),
        );
        r
    }

    /// The pointer, through exclusive access.
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.inner.get_mut()
    }

    /// The pointer, consuming the atomic.
    pub fn into_inner(self) -> *mut T {
        self.inner.into_inner()
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(std::ptr::null_mut())
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
