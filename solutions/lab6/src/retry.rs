//! The pause before each retry: growing, with jitter from the seeded source.

use std::time::Duration;

use shipping_kit::{RetrySettings, jitter};

/// The pause before retry number `retry` (1 before the second attempt, 2 before the
/// third, ...) of operation `operation`: `backoff × 2^(retry − 1)`, plus a jitter of up to
/// `jitter_percent` % of that, drawn from `shipping_kit::jitter` with the settings' seed.
pub fn pause(settings: &RetrySettings, operation: u64, retry: u32) -> Duration {
    let doubling = 2_u32.saturating_pow(retry.saturating_sub(1));
    let fixed = settings.backoff.saturating_mul(doubling);
    let spread = fixed.saturating_mul(settings.jitter_percent) / 100;
    fixed + jitter(settings.jitter_seed, operation, retry, spread)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn pauses_double_and_jitter_stays_within_its_share() {
        let flat = RetrySettings {
            jitter_percent: 0,
            ..RetrySettings::default()
        };
        assert_eq!(
            (1..=3).map(|r| pause(&flat, 1, r)).collect::<Vec<_>>(),
            [ms(50), ms(100), ms(200)]
        );
        let jittered = RetrySettings::default();
        for op in 1..=50 {
            let first = pause(&jittered, op, 1);
            let second = pause(&jittered, op, 2);
            assert!(first >= ms(50) && first < ms(100), "{first:?}");
            assert!(second >= ms(100) && second < ms(200), "{second:?}");
            assert_eq!(
                first - ms(50),
                jitter(1, op, 1, ms(50)),
                "the seeded source, nothing else"
            );
        }
    }
}
