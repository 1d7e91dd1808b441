//! Lab 4's steps and settings in words, for reports and `grader explain`.

use grader_lab::records::{self, Form};
use grader_lab::sends::{self, Nouns};
use grader_lab::{duration, quantity};
use lab4_harness::systems;
use lab4_harness::wire::{Settings, seen};

use crate::steps::Step;

/// How the relay writes its transition records.
pub const RECORDS: Form = Form {
    noun: "target",
    plural: "records",
    a_record: "a transition record",
    none_yet: "no transition recorded yet",
    none: "no transition records",
    example: "00:02:00.000 core_banking CLOSED -> OPEN",
    or: None,
};

/// What this lab's requests are, and where a held one waits.
pub const NOUNS: Nouns = Nouns {
    request: "request",
    mock: "the target",
};

/// A step in words: `send 3 requests to core_banking, one after the other`.
pub fn describe(step: &Step) -> String {
    let plural = |n: u32| if n == 1 { "request" } else { "requests" };
    match step {
        Step::Script(x) => match x.answer.as_str() {
            "hold" => format!("script {} to hold calls until released", x.target),
            "panic" => format!("script {} to panic", x.target),
            code => format!("script {} to answer {}", x.target, answer(&x.target, code)),
        },
        Step::Send(x) => {
            let n = x.count.unwrap_or(1);
            if n == 1 {
                format!("send 1 request to {}", x.target)
            } else {
                format!(
                    "send {n} {} to {}, one after the other",
                    plural(n),
                    x.target
                )
            }
        }
        Step::SendConcurrent(x) => {
            format!(
                "send {} {} to {} at the same moment",
                x.count,
                plural(x.count),
                x.target
            )
        }
        Step::Release(x) => match x.count {
            Some(n) => format!(
                "release {n} held {} at {} with {}",
                if n == 1 { "call" } else { "calls" },
                x.target,
                answer(&x.target, &x.answer)
            ),
            None => format!(
                "release every held call at {} with {}",
                x.target,
                answer(&x.target, &x.answer)
            ),
        },
        Step::Advance(x) => format!("advance the clock by {}", duration(x.ms)),
        Step::Expect(x) => format!("check {}", x.target),
        Step::ExpectTransitions(_) => "check the transition records".to_owned(),
    }
}

/// An answer a target is scripted with, in its own domain where that says more than the
/// code: `B201 for insufficient funds`. The system errors read the same everywhere.
fn answer(target: &str, code: &str) -> String {
    match systems::meaning(target, code) {
        Some(meaning) if code == "B201" => format!("{code} for {meaning}"),
        _ => code.to_owned(),
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
            Some(sends::together_words(&x.target, expect))
        }
        Step::Release(x) => sends::released_words(NOUNS, x.count, x.expect.as_deref()),
        Step::Expect(x) => {
            let counters = [x.calls, x.in_flight, x.peak];
            let state = x.state.as_deref();
            let parts = sends::expect_words("breaker", state, counters, x.answered.as_ref());
            Some(parts.join(", "))
        }
        Step::ExpectTransitions(lines) => Some(records::expectation(lines, RECORDS)),
        Step::Script(_) | Step::Advance(_) => None,
    }
}

/// A target's settings in words.
pub fn settings(s: &Settings) -> String {
    format!(
        "opens after {} in a row, retries after {}, at most {} at once",
        quantity(s.failure_threshold, "failure"),
        duration(s.retry_after_ms),
        quantity(s.max_concurrent, "call")
    )
}

/// The hint for requests stuck inside the relay, from what the harness saw while they
/// were: whether the breaker's state could still be read tells whose lock they wait for.
pub fn stuck_hint(seen: Option<&str>) -> String {
    let cause = match seen {
        Some(seen::BREAKER_READABLE) => {
            "The breaker's state could still be read while they waited, so it is not the breaker's lock they wait for: it is the bulkhead. Either its lock is held while the target is called (take the slot under the lock, drop the guard, then call), or it waits for a free slot instead of returning E905 at once, or a slot is never given back (give it back in a guard's Drop, so every path returns it)."
        }
        Some(seen::BREAKER_BLOCKED) => {
            "Reading the breaker's state blocked too: the breaker's lock is held while a request is inside the target, and every other request to that target queues on it. Decide under the lock, let the guard go, call the target, then lock again to learn from the answer. (If the bulkhead's lock is held across the call as well, the same fix applies there.)"
        }
        Some(seen::READ_BLOCKED) => {
            return "Reading the relay's state after the step (Relay::breaker_state or Relay::transitions) blocked for good: one of its locks is held. Either a request inside the target keeps it (a lock held across the call: decide under the lock, let the guard go, then call), or the same thread takes it twice (a std Mutex is not re-entrant: a method that locks, called while the lock is held, waits forever).".to_owned();
        }
        _ => {
            "The usual causes: the bulkhead waits for a slot instead of returning E905; a slot is never given back (use a guard whose Drop gives it back); a lock (the breaker's or the bulkhead's) is held while the target is called; or a loop that never ends."
        }
    };
    format!(
        "A request that is neither answered nor inside the target is still in your relay. {cause}"
    )
}
