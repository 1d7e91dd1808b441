//! The load generator: requests at a steady rate, a fixed mix of targets, at most
//! `concurrency` waiting for their answers at once, at most `max_requests` in all, and
//! none sent after the rehearsal's end.
//!
//! Request k is due at k / rate. Both relays get the same sequence of targets at the same
//! times, so they face the same load. A request that finds every sender still waiting for
//! an answer when it is due is not sent at all once it is late (recorded as `NOT_SENT`):
//! like a channel that gives up, the generator never sends a burst of overdue requests.

use std::collections::BTreeMap;
use std::sync::MutexGuard;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use lab4_rehearsal_protocol::{Load, Outcome, RequestRecord};

use crate::gauge::Gauge;
use crate::target::agent;
use crate::time::{Timeline, rounded};

/// A request is not sent once it is this late (or one interval between requests, if that
/// is longer).
const LATE_MS: f64 = 20.0;

/// A running load generator, aimed at one relay.
pub struct Generator {
    shared: Arc<Shared>,
}

struct Shared {
    book: Mutex<Book>,
    next: AtomicU64,
}

/// What the senders write and the end of the rehearsal reads, under one lock so that a
/// request is recorded exactly once: answered, or unanswered when the book closed.
#[derive(Default)]
struct Book {
    records: Vec<RequestRecord>,
    /// Per sender: the request it is waiting on (target, sent at).
    waiting: Vec<Option<(String, f64)>>,
    closed: bool,
}

impl Book {
    fn record(&mut self, target: String, sent_ms: f64, ms: f64, outcome: Outcome) {
        self.records.push(RequestRecord {
            target,
            sent_ms: rounded(sent_ms),
            ms: rounded(ms),
            outcome,
        });
    }
}

/// The target of request `k`: a fixed pseudo-random draw weighted by each target's share.
pub fn target_of(k: u64, weighted: &[(String, u32)]) -> &str {
    let total: u64 = weighted.iter().map(|(_, w)| u64::from(*w)).sum();
    // splitmix64: well spread, and the same for every run and both relays.
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let mut pick = z % total.max(1);
    for (name, w) in weighted {
        if pick < u64::from(*w) {
            return name;
        }
        pick -= u64::from(*w);
    }
    weighted.first().map_or("", |(n, _)| n)
}

impl Generator {
    /// Starts sending to the front on `port`. `weighted` names the targets and their shares,
    /// `in_relay` counts each target's requests waiting for their answers; requests are due
    /// until `until_ms`, and a request waits at most `patience_ms`.
    pub fn start(
        port: u16,
        load: &Load,
        weighted: &[(String, u32)],
        in_relay: &BTreeMap<String, Gauge>,
        timeline: &Timeline,
        (until_ms, patience_ms): (f64, f64),
    ) -> std::io::Result<Generator> {
        let senders = load.concurrency.max(1);
        let shared = Arc::new(Shared {
            book: Mutex::new(Book {
                waiting: vec![None; senders],
                ..Book::default()
            }),
            next: AtomicU64::new(0),
        });
        let every_ms = 1000.0 / load.requests_per_s;
        for i in 0..senders {
            let sender = Sender {
                index: i,
                url: format!("http://127.0.0.1:{port}"),
                shared: shared.clone(),
                in_relay: in_relay.clone(),
                weighted: weighted.to_vec(),
                timeline: timeline.clone(),
                every_ms,
                until_ms,
                max_requests: load.max_requests,
                agent: agent(Some(patience_ms), true),
            };
            std::thread::Builder::new()
                .name(format!("load-{i}"))
                .spawn(move || sender.run())?;
        }
        Ok(Generator { shared })
    }

    /// Closes the book: every request so far, those still waiting recorded as unanswered.
    pub fn finish(&self, now_ms: f64) -> Vec<RequestRecord> {
        let mut book = self
            .shared
            .book
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        book.closed = true;
        let waiting: Vec<(String, f64)> =
            book.waiting.iter_mut().filter_map(Option::take).collect();
        for (target, sent) in waiting {
            book.record(target, sent, now_ms - sent, Outcome::NoAnswer);
        }
        let mut records = std::mem::take(&mut book.records);
        records.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
        records
    }
}

struct Sender {
    index: usize,
    url: String,
    shared: Arc<Shared>,
    in_relay: BTreeMap<String, Gauge>,
    weighted: Vec<(String, u32)>,
    timeline: Timeline,
    every_ms: f64,
    until_ms: f64,
    max_requests: u64,
    agent: ureq::Agent,
}

impl Sender {
    fn run(self) {
        loop {
            let k = self.shared.next.fetch_add(1, Ordering::SeqCst);
            let due = k as f64 * self.every_ms;
            if k >= self.max_requests || due >= self.until_ms {
                return;
            }
            self.timeline.sleep_until(due);
            let sent = self.timeline.now_ms();
            let target = target_of(k, &self.weighted).to_owned();
            {
                let mut book = self.locked_book();
                if book.closed {
                    return;
                }
                if sent > due + LATE_MS.max(self.every_ms) {
                    book.record(target, due, 0.0, Outcome::NotSent);
                    continue;
                }
                book.waiting[self.index] = Some((target.clone(), sent));
            }
            let inside = self.in_relay.get(&target).map(Gauge::enter);
            let outcome = self.send(&target, k);
            drop(inside);
            let ms = self.timeline.now_ms() - sent;
            let mut book = self.locked_book();
            if book.closed {
                return;
            }
            book.waiting[self.index] = None;
            book.record(target, sent, ms, outcome);
        }
    }

    fn locked_book(&self) -> MutexGuard<'_, Book> {
        self.shared
            .book
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn send(&self, target: &str, id: u64) -> Outcome {
        match self
            .agent
            .get(format!("{}/{target}?id={id}", self.url))
            .call()
        {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let body = response.body_mut().read_to_string().unwrap_or_default();
                if status == 500 && body == "PANIC" {
                    return Outcome::Panic;
                }
                Outcome::ALL
                    .into_iter()
                    .find(|o| o.as_str() == body)
                    .unwrap_or(Outcome::NoAnswer)
            }
            Err(_) => Outcome::NoAnswer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_follows_the_shares() {
        let weighted = vec![("a".to_owned(), 3), ("b".to_owned(), 1)];
        let a = (0..4000)
            .filter(|&k| target_of(k, &weighted) == "a")
            .count();
        assert!((2800..3200).contains(&a), "{a}");
        assert_eq!(target_of(17, &weighted), target_of(17, &weighted));
    }
}
