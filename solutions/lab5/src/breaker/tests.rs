use std::time::Duration;

use gateway_kit::{AlertLog, FakeClock};

use super::*;

const OK: Outcome = Outcome::Status(200);
const DOWN: Outcome = Outcome::Status(503);

struct Bench {
    breaker: Breaker,
    clock: FakeClock,
    log: TransitionLog,
    alerts: AlertLog,
}

fn bench(settings: BreakerSettings) -> Bench {
    let clock = FakeClock::new();
    let log = TransitionLog::new();
    let alerts = AlertLog::new();
    let breaker = Breaker::new(
        Flow::new("acme", "ORDERS"),
        settings,
        Arc::new(clock.clone()),
        log.clone(),
        Arc::new(alerts.clone()),
    );
    Bench {
        breaker,
        clock,
        log,
        alerts,
    }
}

impl Bench {
    fn send_all(&self, outcomes: &[Outcome]) {
        for &outcome in outcomes {
            assert_eq!(self.breaker.call(|| outcome), outcome);
        }
    }

    fn records(&self) -> Vec<String> {
        self.log
            .snapshot()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn alert_lines(&self) -> Vec<String> {
        self.alerts
            .snapshot()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Opens the circuit with ten failures at the current time.
    fn open(&self) {
        self.send_all(&[DOWN; 10]);
        assert_eq!(self.breaker.state(), State::Open);
    }
}

fn repeat(pattern: &[(Outcome, usize)]) -> Vec<Outcome> {
    pattern
        .iter()
        .flat_map(|&(outcome, n)| std::iter::repeat_n(outcome, n))
        .collect()
}

#[test]
fn five_failures_in_ten_open_four_do_not_and_five_in_nine_do_not() {
    let b = bench(BreakerSettings::default());
    b.send_all(&repeat(&[(DOWN, 4), (OK, 6)]));
    assert_eq!(b.breaker.state(), State::Closed, "4 of 10");
    let b = bench(BreakerSettings::default());
    b.send_all(&[DOWN; 5]);
    b.send_all(&[OK; 4]);
    assert_eq!(b.breaker.state(), State::Closed, "5 of 9");
    b.send_all(&[OK]);
    assert_eq!(
        b.breaker.state(),
        State::Open,
        "5 of 10, opened by a success"
    );
    assert_eq!(
        b.alert_lines(),
        ["00:00:00.000 acme/ORDERS opened: 5 of 10 calls failed"]
    );
}

#[test]
fn the_oldest_outcome_leaves_the_window() {
    let b = bench(BreakerSettings::default());
    b.send_all(&repeat(&[(OK, 10), (DOWN, 4)]));
    assert_eq!(b.breaker.state(), State::Closed);
    b.send_all(&[DOWN]);
    assert_eq!(b.breaker.state(), State::Open, "5 of the latest 10");
}

#[test]
fn outcomes_older_than_max_age_no_longer_count() {
    let b = bench(BreakerSettings {
        max_age: Some(Duration::from_secs(60)),
        ..BreakerSettings::default()
    });
    b.send_all(&[DOWN; 9]);
    b.clock.advance(Duration::from_secs(60));
    b.send_all(&[DOWN]);
    assert_eq!(b.breaker.state(), State::Closed, "the first nine expired");
    b.clock.advance(Duration::from_millis(59_999));
    b.send_all(&[DOWN; 9]);
    assert_eq!(b.breaker.state(), State::Open);
}

#[test]
fn business_refusals_are_successes_and_rejections_are_nothing() {
    let b = bench(BreakerSettings::default());
    b.send_all(&repeat(&[
        (Outcome::Status(400), 3),
        (Outcome::Status(422), 2),
        (Outcome::NoCapacity, 20),
        (Outcome::Timeout, 2),
        (Outcome::Refused, 1),
        (Outcome::Status(429), 1),
        (Outcome::Status(502), 1),
    ]));
    assert_eq!(
        b.breaker.state(),
        State::Open,
        "5 failures among 10 outcomes"
    );
}

#[test]
fn every_probe_must_succeed_and_one_failure_reopens_with_a_fresh_wait() {
    let b = bench(BreakerSettings {
        probes: 3,
        ..BreakerSettings::default()
    });
    b.open();
    b.clock.advance(Duration::from_millis(9_999));
    assert_eq!(b.breaker.call(|| unreachable!()), Outcome::CircuitOpen);
    b.clock.advance(Duration::from_millis(1));
    b.send_all(&[OK, OK]);
    assert_eq!(b.breaker.state(), State::HalfOpen);
    b.send_all(&[DOWN]);
    assert_eq!(b.breaker.state(), State::Open);
    b.clock.advance(Duration::from_millis(9_999));
    assert_eq!(b.breaker.call(|| unreachable!()), Outcome::CircuitOpen);
    b.clock.advance(Duration::from_millis(1));
    b.send_all(&[OK, Outcome::Status(422), OK]);
    assert_eq!(b.breaker.state(), State::Closed);
    assert_eq!(
        b.records(),
        [
            "00:00:00.000 acme/ORDERS CLOSED -> OPEN",
            "00:00:10.000 acme/ORDERS OPEN -> HALF_OPEN",
            "00:00:10.000 acme/ORDERS HALF_OPEN -> OPEN",
            "00:00:20.000 acme/ORDERS OPEN -> HALF_OPEN",
            "00:00:20.000 acme/ORDERS HALF_OPEN -> CLOSED",
        ]
    );
    assert_eq!(
        b.alert_lines(),
        [
            "00:00:00.000 acme/ORDERS opened: 10 of 10 calls failed",
            "00:00:20.000 acme/ORDERS closed",
        ]
    );
    b.send_all(&[DOWN; 9]);
    assert_eq!(b.breaker.state(), State::Closed, "the window started empty");
}

#[test]
fn no_more_than_the_probe_count_while_probes_are_out() {
    let b = bench(BreakerSettings {
        probes: 2,
        ..BreakerSettings::default()
    });
    b.open();
    b.clock.advance(Duration::from_secs(10));
    let inner = b.breaker.call(|| {
        let second = b.breaker.call(|| {
            assert_eq!(b.breaker.call(|| unreachable!()), Outcome::CircuitOpen);
            OK
        });
        assert_eq!(second, OK);
        assert_eq!(
            b.breaker.call(|| unreachable!()),
            Outcome::CircuitOpen,
            "the second probe finished, but two were handed out"
        );
        OK
    });
    assert_eq!(inner, OK);
    assert_eq!(b.breaker.state(), State::Closed);
}

#[test]
fn answers_from_an_earlier_state_are_old_news() {
    let b = bench(BreakerSettings::default());
    let late = b.breaker.call(|| {
        b.open();
        DOWN
    });
    assert_eq!(late, DOWN);
    assert_eq!(b.records().len(), 1, "the late failure changed nothing");
    assert_eq!(b.alerts.snapshot().len(), 1);
    b.clock.advance(Duration::from_secs(10));
    assert_eq!(b.breaker.call(|| OK), OK);
    assert_eq!(b.breaker.state(), State::Closed);
}

#[test]
fn a_probe_the_bulkhead_turned_away_is_handed_back() {
    let b = bench(BreakerSettings::default());
    b.open();
    b.clock.advance(Duration::from_secs(10));
    assert_eq!(b.breaker.call(|| Outcome::NoCapacity), Outcome::NoCapacity);
    assert_eq!(b.breaker.state(), State::HalfOpen);
    assert_eq!(b.breaker.call(|| OK), OK);
    assert_eq!(b.breaker.state(), State::Closed);
}

#[test]
fn a_probe_from_an_earlier_round_cannot_close_the_next_one() {
    let b = bench(BreakerSettings {
        probes: 2,
        ..BreakerSettings::default()
    });
    b.open();
    b.clock.advance(Duration::from_secs(10));
    let slow = b.breaker.call(|| {
        assert_eq!(b.breaker.call(|| DOWN), DOWN, "the other probe fails");
        b.clock.advance(Duration::from_secs(10));
        assert_eq!(b.breaker.call(|| OK), OK, "first probe of the next round");
        OK
    });
    assert_eq!(slow, OK);
    assert_eq!(
        b.breaker.state(),
        State::HalfOpen,
        "one of two probes so far"
    );
    assert_eq!(b.breaker.call(|| OK), OK);
    assert_eq!(b.breaker.state(), State::Closed);
}
