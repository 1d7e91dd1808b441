//! Lab 6's steps and settings in words, for reports and `grader explain`.

use std::collections::BTreeMap;

use grader_lab::records::{self, Form};
use grader_lab::sends::{self, Nouns};
use grader_lab::{duration, quantity};
use lab6_harness::wire::{Settings, seen};

use crate::steps::Step;

/// How the shop writes its transition records.
pub const RECORDS: Form = Form {
    noun: "dependency",
    plural: "records",
    a_record: "a transition record",
    none_yet: "no transition recorded yet",
    none: "no transition records",
    example: "00:00:00.150 shipping CLOSED -> OPEN",
    or: None,
};

/// What this lab's requests are, and where a held one waits.
pub const NOUNS: Nouns = Nouns {
    request: "request",
    mock: "the dependency",
};

/// `3 checkouts`, `1 page view`.
fn requests(target: &str, n: u32) -> String {
    let (one, many) = match target {
        "shipping" => ("checkout", "checkouts"),
        "catalog" => ("page view", "page views"),
        _ => ("request", "requests"),
    };
    format!("{n} {}", if n == 1 { one } else { many })
}

/// ` on instance 2`, or nothing for instance 1.
fn on(instance: Option<u32>) -> String {
    match instance {
        Some(n) if n > 1 => format!(" on instance {n}"),
        _ => String::new(),
    }
}

/// A step in words: `send 3 checkouts, one after the other`.
pub fn describe(step: &Step) -> String {
    match step {
        Step::Script(x) => match x.answer.as_str() {
            "hold" => format!("script {} to hold calls until released", x.target),
            "panic" => format!("script {}'s client to panic", x.target),
            answer => format!("script {} to answer {answer}", x.target),
        },
        Step::Send(x) => {
            let n = x.count.unwrap_or(1);
            let mut words = format!("send {}{}", requests(&x.target, n), on(x.instance));
            if n > 1 {
                words.push_str(", one after the other");
            }
            if let Some(layers) = x.layers.filter(|l| *l > 1) {
                words.push_str(&format!(", each through {layers} layers that all retry"));
            }
            words
        }
        Step::SendConcurrent(x) => format!(
            "send {}{} at the same moment",
            requests(&x.target, x.count),
            on(x.instance)
        ),
        Step::Release(x) => match x.count {
            Some(n) => format!(
                "answer {n} held {} at {} with {}",
                if n == 1 { "call" } else { "calls" },
                x.target,
                x.answer
            ),
            None => format!("answer every held call at {} with {}", x.target, x.answer),
        },
        Step::Advance(x) => format!("advance the clock by {}", duration(x.ms)),
        Step::WakeOrder(order) => match order.as_str() {
            "newest_first" => "from now on, requests woken together go on newest first".to_owned(),
            _ => "from now on, requests woken together go on oldest first".to_owned(),
        },
        Step::Expect(x) => format!("check {}{}", x.target, on(x.instance)),
        Step::ExpectTransitions(_) => "check the transition records".to_owned(),
    }
}

/// What a step expects, in words, or `None` for a step that expects nothing.
pub fn expectation(step: &Step) -> Option<String> {
    match step {
        Step::Send(x) => {
            let each = x.expect_each.as_deref();
            sends::sent_words(NOUNS, x.count, x.expect.as_deref(), each)
        }
        Step::SendConcurrent(x) => Some(counted(x.expect.as_ref()?)),
        Step::Release(x) => {
            let mut parts = Vec::new();
            if let Some(n) = x.count {
                parts.push(format!(
                    "{n} call{} must be held",
                    if n == 1 { "" } else { "s" }
                ));
            }
            if let Some(expect) = &x.expect {
                parts.push(format!("of their requests, {}", counted(expect)));
            }
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Step::Advance(x) => Some(match x.expect.as_ref()? {
            e if e.values().all(|n| *n == 0) => "no request returns meanwhile".to_owned(),
            e => format!("of the requests that return meanwhile, {}", counted(e)),
        }),
        Step::Expect(x) => {
            let counters = [x.calls, x.in_flight, x.peak];
            let state = x.state.as_deref();
            let mut parts = sends::expect_words("circuit", state, counters, x.answered.as_ref());
            for (n, what) in [
                (x.held, "waiting for its answer"),
                (x.queued, "queued"),
                (x.pausing, "pausing before a retry"),
            ] {
                if let Some(n) = n {
                    parts.push(format!("{} {what}", quantity(n, "request")));
                }
            }
            for (metric, n) in x.metrics.iter().flatten() {
                parts.push(format!("metric {metric} = {n}"));
            }
            Some(parts.join(", "))
        }
        Step::ExpectTransitions(lines) => Some(records::expectation(lines, RECORDS)),
        Step::Script(_) | Step::WakeOrder(_) => None,
    }
}

/// `exactly 8 held, 10 queued and 1 no_capacity, in any order`.
fn counted(expect: &BTreeMap<String, u32>) -> String {
    let parts: Vec<String> = expect
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(o, n)| format!("{n} {o}"))
        .collect();
    if parts.is_empty() {
        return "none at all".to_owned();
    }
    format!("exactly {}, in any order", parts.join(" and "))
}

/// A dependency's settings in words.
pub fn settings(s: &Settings) -> String {
    let jitter = if s.jitter_percent == 0 {
        "no jitter".to_owned()
    } else {
        format!(
            "up to {} % jitter (seed {})",
            s.jitter_percent, s.jitter_seed
        )
    };
    format!(
        "at most {} calls at once and {} queued for at most {}; {} per operation; {} attempt{} in all, pauses from {} doubling, {jitter}; opens when {} % of the latest {} outcomes fail (at least {}), stays open {}, {} probe{}",
        s.max_active,
        s.max_queued,
        duration(s.max_queue_wait_ms),
        duration(s.budget_ms),
        s.max_attempts,
        if s.max_attempts == 1 { "" } else { "s" },
        duration(s.backoff_ms),
        s.failure_rate_percent,
        s.window,
        s.minimum_calls,
        duration(s.open_for_ms),
        s.probes,
        if s.probes == 1 { "" } else { "s" },
    )
}

/// The stuck hint when nothing tells whose lock the requests wait for.
pub const STUCK_HINT: &str = "A request that has neither returned nor waits on the injected clock is still running inside your shop. The usual causes: waiting with thread::sleep or Condvar::wait_timeout (real time: use clock.sleep_until, a Monitor guard's wait_until, or call.wait_until); a queue loop that waits until a deadline that has already come, which returns at once, every time (a request queued at T is still in time at exactly T + max_queue_wait: wait until shipping_kit::just_after(T + max_queue_wait), or the budget's end if that is sooner, and leave when the clock reaches it); a lock held while waiting for the dependency's answer or in the queue, so other requests block on it; a slot that is never given back; or a loop that never ends.";

/// The hint for requests blocked inside the shop, from what the harness saw while they
/// were: whether the dependency's circuit state could still be read tells whether they
/// wait for the breaker's lock.
pub fn stuck_hint(seen: Option<&str>) -> String {
    let cause = match seen {
        Some(seen::STATE_BLOCKED) => {
            "Reading the dependency's circuit state blocked too: the breaker's lock is held while a request waits (in the queue, in a pause or for the answer), so every other request of the dependency, and every state read, queues on it. Decide under the lock, let the guard go, make the attempt, then lock again to learn from it."
        }
        Some(seen::READ_BLOCKED) => {
            return "Asking the shop after the step (Shop::circuit_state, Shop::metrics or Shop::transitions) blocked for good: one of its locks is held. Either a request keeps it while it waits (in the queue, in a pause or for the dependency's answer: decide under the lock, let the guard go, wait or call, then lock again to learn from it), or the same thread takes it twice (a std Mutex is not re-entrant: a method that locks, called while the lock is held, waits forever).".to_owned();
        }
        Some(seen::STATE_READABLE) => {
            "The dependency's circuit state could still be read while they waited, so it is not the breaker's lock they wait for. The usual causes then: a real wait (thread::sleep, Condvar::wait_timeout: wait with clock.sleep_until, a Monitor guard's wait_until or call.wait_until); the bulkhead's lock held while waiting for the answer; a slot that is never given back; or a lock taken twice on one thread."
        }
        _ => return STUCK_HINT.to_owned(),
    };
    format!(
        "A request that has neither returned nor waits on the injected clock is still running inside your shop. {cause}"
    )
}
