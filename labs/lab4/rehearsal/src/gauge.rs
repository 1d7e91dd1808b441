//! Counters of things in progress that remember their peak between two samples.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use lab4_rehearsal_protocol::Level;

/// How many of something are in progress now, and the most there were since the last
/// [`Gauge::sample`]. Clones share one count.
#[derive(Clone, Debug, Default)]
pub struct Gauge {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    now: AtomicU32,
    peak: AtomicU32,
}

/// One unit in progress; dropping it ends it, on every path.
#[derive(Debug)]
pub struct InProgress {
    gauge: Gauge,
}

impl Gauge {
    /// A gauge at zero.
    pub fn new() -> Gauge {
        Gauge::default()
    }

    /// One more in progress until the returned guard is dropped.
    pub fn enter(&self) -> InProgress {
        let now = self.inner.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.inner.peak.fetch_max(now, Ordering::SeqCst);
        InProgress {
            gauge: self.clone(),
        }
    }

    /// The count now, without touching the peak.
    pub fn now(&self) -> u32 {
        self.inner.now.load(Ordering::SeqCst)
    }

    /// The count now, and the peak since the previous sample (which starts a new period).
    pub fn sample(&self) -> Level {
        let now = self.inner.now.load(Ordering::SeqCst);
        let peak = self.inner.peak.swap(now, Ordering::SeqCst).max(now);
        Level { now, peak }
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.gauge.inner.now.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_survives_until_the_next_sample() {
        let g = Gauge::new();
        let a = g.enter();
        let b = g.enter();
        drop(b);
        assert_eq!(g.sample(), Level { now: 1, peak: 2 });
        assert_eq!(g.sample(), Level { now: 1, peak: 1 });
        drop(a);
        assert_eq!(g.sample(), Level { now: 0, peak: 1 });
        assert_eq!(g.sample(), Level { now: 0, peak: 0 });
    }
}
