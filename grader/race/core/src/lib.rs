//! The core library as the race checks see it, for code that writes `core::sync::atomic`:
//! the race build names this crate as its dependency `core`. Everything is the real `core`
//! except the atomics and `hint::spin_loop`, which come from [`race_std`].

pub use ::core::*;

/// `core::sync`: only the atomics, from the runtime.
pub mod sync {
    pub use race_std::sync::atomic;
}

/// `core::hint`, where a spin loop lets the other tasks run.
pub mod hint {
    pub use ::core::hint::*;
    pub use race_std::hint::spin_loop;
}
