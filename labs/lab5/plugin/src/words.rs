//! Lab 5's steps and settings in words, for reports and `grader explain`.

use grader_lab::duration;
use grader_lab::records::{self, Form};
use grader_lab::sends::{self, Nouns};
use lab5_harness::wire::{Settings, seen};

use crate::steps::Step;

/// How the gateway writes its transition records.
pub const RECORDS: Form = Form {
    noun: "flow",
    plural: "records",
    a_record: "a transition record",
    none_yet: "no transition recorded yet",
    none: "no transition records",
    example: "00:01:40.000 acme/ORDERS CLOSED -> OPEN",
    or: None,
};

/// How the alert log shows the alerts the gateway sent.
pub const ALERTS: Form = Form {
    noun: "flow",
    plural: "alerts",
    a_record: "an alert",
    none_yet: "no alert sent yet",
    none: "no alerts",
    example: "00:01:40.000 acme/ORDERS opened: 5 of 10 calls failed",
    or: Some("00:01:50.000 acme/ORDERS closed"),
};

/// What this lab's requests are, and where a held one waits.
pub const NOUNS: Nouns = Nouns {
    request: "message",
    mock: "the partner",
};

/// A step in words: `send 3 messages on acme/ORDERS, one after the other`.
pub fn describe(step: &Step) -> String {
    let messages = |n: u32| if n == 1 { "message" } else { "messages" };
    match step {
        Step::Script(x) => match x.answer.as_str() {
            "hold" => format!("script {} to hold calls until released", x.flow),
            "panic" => format!("script {}'s client to panic", x.flow),
            answer => format!("script {} to answer {answer}", x.flow),
        },
        Step::Send(x) => match x.count.unwrap_or(1) {
            1 => format!("send 1 message on {}", x.flow),
            n => format!(
                "send {n} {} on {}, one after the other",
                messages(n),
                x.flow
            ),
        },
        Step::SendConcurrent(x) => format!(
            "send {} {} on {} at the same moment",
            x.count,
            messages(x.count),
            x.flow
        ),
        Step::Release(x) => match x.count {
            Some(n) => format!(
                "release {n} held {} at {} with {}",
                if n == 1 { "call" } else { "calls" },
                x.flow,
                x.answer
            ),
            None => format!("release every held call at {} with {}", x.flow, x.answer),
        },
        Step::Advance(x) => format!("advance the clock by {}", duration(x.ms)),
        Step::Expect(x) => format!("check {}", x.flow),
        Step::ExpectTransitions(_) => "check the transition records".to_owned(),
        Step::ExpectAlerts(_) => "check the alerts".to_owned(),
    }
}

/// What a step expects, in words, or `None` for a step that expects nothing.
pub fn expectation(step: &Step) -> Option<String> {
    match step {
        Step::Send(x) => {
            let each = x.expect_each.as_deref();
            sends::sent_words(NOUNS, x.count, x.expect.as_deref(), each)
        }
        Step::SendConcurrent(x) => {
            let expect = x.expect.as_ref()?;
            Some(sends::together_words(&x.flow, expect))
        }
        Step::Release(x) => sends::released_words(NOUNS, x.count, x.expect.as_deref()),
        Step::Expect(x) => {
            let counters = [x.calls, x.in_flight, x.peak];
            let state = x.state.as_deref();
            let parts = sends::expect_words("circuit", state, counters, x.answered.as_ref());
            Some(parts.join(", "))
        }
        Step::ExpectTransitions(lines) => Some(records::expectation(lines, RECORDS)),
        Step::ExpectAlerts(lines) => Some(records::expectation(lines, ALERTS)),
        Step::Script(_) | Step::Advance(_) => None,
    }
}

/// A flow's settings in words.
pub fn settings(s: &Settings) -> String {
    let age = match s.max_age_ms {
        Some(ms) => format!("each counted for {}", duration(ms)),
        None => "never age out".to_owned(),
    };
    format!(
        "opens when {} % of the latest {} outcomes fail (with at least {} of them; outcomes {age}), stays open {}, closes after {} successful probe{}, at most {} messages at once",
        s.failure_rate_percent,
        s.window,
        s.minimum_calls,
        duration(s.open_for_ms),
        s.probes,
        if s.probes == 1 { "" } else { "s" },
        s.max_concurrent
    )
}

/// The stuck hint when nothing tells whose lock the messages wait for.
pub const STUCK_HINT: &str = "A message that is neither answered nor inside the partner is still in your gateway. The usual causes: the bulkhead waits for a slot instead of returning no_capacity; a slot is never given back (a path that skips it: use a guard whose Drop gives it back); the breaker's lock is held while the partner answers, so every other message of the flow queues on the lock; a lock taken twice on one thread; or a loop that never ends.";

/// The hint for messages stuck inside the gateway, from what the harness saw while they
/// were: whether the flow's circuit state could still be read tells whether they wait
/// for the breaker's lock.
pub fn stuck_hint(seen: Option<&str>) -> String {
    let cause = match seen {
        Some(seen::STATE_READABLE) => {
            "The flow's circuit state could still be read while they waited, so it is not the breaker's lock they wait for: most likely it is the bulkhead. Either it waits for a free slot instead of answering no_capacity at once, or a slot is never given back (give it back in a guard's Drop, so every path returns it), or its lock is held while the partner answers (take the slot under the lock, let the guard go, then deliver)."
        }
        Some(seen::STATE_BLOCKED) => {
            "Reading the flow's circuit state blocked too: the breaker's lock is held while a message is inside the partner, so every other message of the flow, and every state read, queues on it. Decide under the lock, let the guard go, deliver, then lock again to learn from the answer. (If the bulkhead's lock is held across the delivery as well, the same fix applies there.)"
        }
        Some(seen::READ_BLOCKED) => {
            return "Reading the gateway after the step (Gateway::circuit_state or Gateway::transitions) blocked for good: one of its locks is held. Either a message inside the partner keeps it (a lock held across the delivery: decide under the lock, let the guard go, deliver, then lock again to learn from the answer), or the same thread takes it twice (a std Mutex is not re-entrant: a method that locks, called while the lock is held, waits forever).".to_owned();
        }
        _ => return STUCK_HINT.to_owned(),
    };
    format!(
        "A message that is neither answered nor inside the partner is still in your gateway. {cause}"
    )
}
