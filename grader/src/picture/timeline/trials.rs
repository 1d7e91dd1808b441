//! Which requests were trials: calls let through to a target while its breaker was
//! `HALF_OPEN`.
//!
//! Records carry fake-clock times, but many requests and records share one instant, so
//! their order within a step is worked out. Each record is one change, caused by one
//! request: an arrival moves an open breaker to `HALF_OPEN`; the return of a call that
//! reached the target with a failure opens it (from `CLOSED` or `HALF_OPEN`), with a
//! healthy answer closes it from `HALF_OPEN`. A request rejected as the circuit is open
//! arrived while it was open or half-open; one that reached the target, while it was
//! closed or half-open. Of the orders that fit, the one with the fewest trials is drawn:
//! the most a step's records prove. A step no order fits (code that breaks these rules
//! in ways the records cannot tell, a lab whose requests make several calls) gets no
//! trial drawn.

use grader_lab::picture::{Fate, Tone};

use super::Timeline;

/// Cost of an order that does not fit.
const NEVER: usize = usize::MAX / 2;

/// One request arriving or returning during a step.
#[derive(Clone, Copy)]
struct Move {
    lane: usize,
    arrives: bool,
    fate: Fate,
}

/// Marks the trials of every band of `t`.
pub fn mark(t: &mut Timeline) {
    let names: Vec<String> = t.bands.iter().map(|b| b.name.clone()).collect();
    for (b, name) in names.iter().enumerate() {
        let mut state = Tone::Closed;
        for column in 0..t.columns.len() {
            let changes: Vec<(Tone, Tone)> = t
                .marks
                .iter()
                .filter(|m| m.column == column && &m.band == name)
                .filter_map(|m| m.change)
                .collect();
            let mut moves: Vec<(u64, Move)> = Vec::new();
            for (k, lane) in t.lanes.iter().enumerate().filter(|(_, l)| &l.band == name) {
                let fate = lane.fate;
                if lane.sent.0 == column {
                    moves.push((
                        lane.id,
                        Move {
                            lane: k,
                            arrives: true,
                            fate,
                        },
                    ));
                }
                if lane.end.is_some_and(|(c, _)| c == column) {
                    moves.push((
                        lane.id,
                        Move {
                            lane: k,
                            arrives: false,
                            fate,
                        },
                    ));
                }
            }
            moves.sort_by_key(|&(id, m)| (id, !m.arrives));
            let moves: Vec<Move> = moves.into_iter().map(|(_, m)| m).collect();
            for lane in trials(state, &moves, &changes) {
                t.lanes[lane].probe = true;
            }
            if let Some((_, to)) = changes.last() {
                state = *to;
            }
            if let Some(Some((_, tone))) = t.bands[b].after.get(column) {
                if *tone != Tone::Unknown {
                    state = *tone;
                }
            }
        }
    }
}

/// Whether a request with this fate reached the target.
fn reached(fate: Fate) -> bool {
    fate.reached_target()
}

/// Whether `change` can be caused by `m`.
fn causes(change: (Tone, Tone), m: Move) -> bool {
    let failed = matches!(m.fate, Fate::Failed | Fate::Timeout | Fate::Panicked);
    match change {
        (Tone::Open, Tone::HalfOpen) => m.arrives,
        (Tone::Closed | Tone::HalfOpen, Tone::Open) => !m.arrives && reached(m.fate) && failed,
        (Tone::HalfOpen, Tone::Closed) => !m.arrives && m.fate == Fate::Answered,
        _ => true,
    }
}

/// Whether arriving while the breaker is `state` fits what `m` got; and whether it makes
/// `m` a trial.
fn arrival(state: Tone, m: Move) -> (bool, bool) {
    match m.fate {
        Fate::OpenCircuit => (matches!(state, Tone::Open | Tone::HalfOpen), false),
        f if reached(f) => (state != Tone::Open, state == Tone::HalfOpen),
        _ => (true, false),
    }
}

/// The lanes that were trials among `moves`, starting in `start` with `changes` to place
/// (each at one move, in order); none when no order fits.
fn trials(start: Tone, moves: &[Move], changes: &[(Tone, Tone)]) -> Vec<usize> {
    let (n, k) = (moves.len(), changes.len());
    let tone = |j: usize| if j == 0 { start } else { changes[j - 1].1 };
    // best[i][j]: the fewest trials among moves i.. with changes j.. still to place.
    let mut best = vec![vec![NEVER; k + 1]; n + 1];
    best[n][k] = 0;
    let step = |i: usize, j: usize, place: bool, best: &[Vec<usize>]| -> usize {
        let m = moves[i];
        let next = if place { j + 1 } else { j };
        if place && (j >= k || !causes(changes[j], m)) {
            return NEVER;
        }
        // An arrival sees the breaker after the change it causes; a return causes it
        // after it has come back.
        let cost = if m.arrives {
            let (fits, trial) = arrival(tone(next), m);
            if !fits {
                return NEVER;
            }
            usize::from(trial)
        } else {
            0
        };
        best[i + 1][next].saturating_add(cost)
    };
    for i in (0..n).rev() {
        for j in 0..=k {
            let keep = step(i, j, false, &best);
            let place = step(i, j, true, &best);
            best[i][j] = keep.min(place).min(NEVER);
        }
    }
    if best[0][0] >= NEVER {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut j = 0;
    for (i, m) in moves.iter().enumerate() {
        let place = step(i, j, true, &best) < step(i, j, false, &best);
        if place {
            j += 1;
        }
        if m.arrives && arrival(tone(j), *m).1 {
            out.push(m.lane);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::picture::timeline::{Band, Column, Lane, Mark};
    use grader_lab::picture::{Fate, MarkKind};
    use std::collections::BTreeMap;

    fn column() -> Column {
        Column {
            at_ms: 0,
            advance_ms: 0,
            action: String::new(),
            together: false,
        }
    }

    fn lane(id: u64, column: usize, end: Option<usize>, fate: Fate) -> Lane {
        Lane {
            id,
            band: "b".into(),
            sent: (column, 0),
            sent_ms: 0,
            end: end.map(|c| (c, 0)),
            outcome: String::new(),
            fate,
            waits: BTreeMap::new(),
            probe: false,
            deadline_ms: None,
            stuck: false,
        }
    }

    fn record(column: usize, from: Tone, to: Tone) -> Mark {
        Mark {
            column,
            at_ms: 0,
            band: "b".into(),
            text: String::new(),
            kind: MarkKind::Transition,
            change: Some((from, to)),
        }
    }

    #[test]
    fn the_call_after_the_opening_is_the_trial_even_at_the_same_instant() {
        // Three failures open the breaker; with no wait, the fourth call is the trial and
        // its success closes it, all in one step.
        let mut t = Timeline {
            columns: vec![column()],
            lanes: vec![
                lane(1, 0, Some(0), Fate::Failed),
                lane(2, 0, Some(0), Fate::Failed),
                lane(3, 0, Some(0), Fate::Failed),
                lane(4, 0, Some(0), Fate::Answered),
                lane(5, 0, Some(0), Fate::Answered),
            ],
            marks: vec![
                record(0, Tone::Closed, Tone::Open),
                record(0, Tone::Open, Tone::HalfOpen),
                record(0, Tone::HalfOpen, Tone::Closed),
            ],
            ..Timeline::default()
        };
        t.bands.push(Band {
            name: "b".into(),
            after: vec![Some(("CLOSED".into(), Tone::Closed))],
        });
        super::mark(&mut t);
        let trials: Vec<u64> = t.lanes.iter().filter(|l| l.probe).map(|l| l.id).collect();
        assert_eq!(trials, [4]);
    }

    #[test]
    fn every_call_let_through_while_half_open_is_a_trial() {
        // The breaker is open after step 1; in step 2 a call finds the wait over and is
        // held; in step 3 another reaches the target before it returns (one too many),
        // and a third is rejected: two trials.
        let half_open = || Some(("HALF_OPEN".into(), Tone::HalfOpen));
        let mut t = Timeline {
            columns: vec![column(), column(), column()],
            lanes: vec![
                lane(1, 1, None, Fate::Held),
                lane(2, 2, None, Fate::Held),
                lane(3, 2, Some(2), Fate::OpenCircuit),
            ],
            marks: vec![record(1, Tone::Open, Tone::HalfOpen)],
            ..Timeline::default()
        };
        t.bands.push(Band {
            name: "b".into(),
            after: vec![Some(("OPEN".into(), Tone::Open)), half_open(), half_open()],
        });
        super::mark(&mut t);
        let trials: Vec<u64> = t.lanes.iter().filter(|l| l.probe).map(|l| l.id).collect();
        assert_eq!(trials, [1, 2]);
    }

    #[test]
    fn records_that_no_order_fits_draw_no_trial() {
        // A record of opening with no failure to cause it: nothing is claimed.
        let mut t = Timeline {
            columns: vec![column()],
            lanes: vec![lane(1, 0, Some(0), Fate::Answered)],
            marks: vec![record(0, Tone::Closed, Tone::Open)],
            ..Timeline::default()
        };
        t.bands.push(Band {
            name: "b".into(),
            after: vec![Some(("OPEN".into(), Tone::Open))],
        });
        super::mark(&mut t);
        assert!(t.lanes.iter().all(|l| !l.probe));
    }
}
