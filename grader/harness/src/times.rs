//! When each request was sent and returned on the fake clock, noted as it happens (by
//! [`crate::Requests`] given a clock) and handed to the loop at the end of every action,
//! which writes them as one [`Event::Requests`](grader_protocol::Event::Requests) for the
//! timeline picture. One process runs one scenario, so one log serves it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};

use grader_protocol::RequestTimes;

/// What happened since the last action ended, and which requests are still out.
struct Log {
    fresh: BTreeMap<u64, RequestTimes>,
    out: BTreeSet<u64>,
}

static LOG: Mutex<Log> = Mutex::new(Log {
    fresh: BTreeMap::new(),
    out: BTreeSet::new(),
});

fn with<T>(f: impl FnOnce(&mut Log) -> T) -> T {
    f(&mut LOG.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Request `id` was sent at fake-clock `at_ms`.
pub(crate) fn sent(id: u64, at_ms: u64) {
    with(|log| {
        log.out.insert(id);
        log.fresh.entry(id).or_insert_with(|| blank(id)).sent_ms = Some(at_ms);
    });
}

/// Request `id` returned (or its thread ended in a panic) at fake-clock `at_ms`.
pub(crate) fn returned(id: u64, at_ms: u64) {
    with(|log| {
        log.out.remove(&id);
        log.fresh.entry(id).or_insert_with(|| blank(id)).returned_ms = Some(at_ms);
    });
}

/// Everything noted since the last call, in id order, and the ids of the requests still
/// out (whose `waiting` the caller fills in), or `None` when nothing was ever noted.
pub(crate) fn take() -> Option<(Vec<RequestTimes>, Vec<u64>)> {
    with(|log| {
        if log.fresh.is_empty() && log.out.is_empty() {
            return None;
        }
        let fresh = std::mem::take(&mut log.fresh).into_values().collect();
        Some((fresh, log.out.iter().copied().collect()))
    })
}

fn blank(id: u64) -> RequestTimes {
    RequestTimes {
        id,
        ..RequestTimes::default()
    }
}

/// The record of one action: `fresh`, with each request still out in it, waiting as
/// `waiting` says (by id).
pub(crate) fn merge(
    mut fresh: Vec<RequestTimes>,
    out: &[u64],
    waiting: impl Fn(u64) -> Option<String>,
) -> Vec<RequestTimes> {
    for &id in out {
        let word = waiting(id);
        match fresh.iter_mut().find(|t| t.id == id) {
            Some(t) => t.waiting = word,
            None => fresh.push(RequestTimes {
                waiting: word,
                ..blank(id)
            }),
        }
    }
    fresh.sort_by_key(|t| t.id);
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_still_out_is_told_with_how_it_waits() {
        let fresh = vec![RequestTimes {
            id: 2,
            sent_ms: Some(5),
            ..blank(2)
        }];
        let merged = merge(fresh, &[1, 2], |id| Some(format!("held {id}")));
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].id, 1);
        assert_eq!(merged[0].waiting.as_deref(), Some("held 1"));
        assert_eq!(merged[1].sent_ms, Some(5));
        assert_eq!(merged[1].waiting.as_deref(), Some("held 2"));
    }
}
