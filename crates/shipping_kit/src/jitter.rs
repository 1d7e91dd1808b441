//! The seeded source of jitter.

use std::time::Duration;

/// The random part of the pause before retry number `retry` (1 for the first retry) of
/// operation `operation`: whole milliseconds from 0 up to, not including, `below`
/// (nothing when `below` is under a millisecond).
///
/// It is a hash, not a generator: the same seed, operation and retry always give the same
/// value, whichever thread asks first, so a scenario can pin every pause; and different
/// operations get different values, so operations that failed together do not all retry
/// at the same instant.
pub fn jitter(seed: u64, operation: u64, retry: u32, below: Duration) -> Duration {
    let below = u64::try_from(below.as_millis()).unwrap_or(u64::MAX);
    if below == 0 {
        return Duration::ZERO;
    }
    let mixed = mix(seed ^ mix(operation ^ mix(u64::from(retry))));
    Duration::from_millis(mixed % below)
}

/// SplitMix64's finaliser: every input bit moves every output bit.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn jitter_is_pinned_by_its_inputs_and_stays_below_its_bound() {
        assert_eq!(jitter(1, 7, 1, ms(50)), jitter(1, 7, 1, ms(50)));
        let spread: std::collections::BTreeSet<Duration> =
            (1..=20).map(|op| jitter(1, op, 1, ms(50))).collect();
        assert!(
            spread.len() > 10,
            "operations get different pauses: {spread:?}"
        );
        assert!((1..=200).all(|op| jitter(3, op, 2, ms(100)) < ms(100)));
        assert_eq!(jitter(1, 7, 1, Duration::ZERO), Duration::ZERO);
        assert_eq!(jitter(1, 7, 1, Duration::from_micros(999)), Duration::ZERO);
    }
}
