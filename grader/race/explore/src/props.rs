//! The properties more than one lab's monitor checks, written once: a lab gives its nouns,
//! its limits and its words (the rule as its handout states it, the mark on the story, the
//! hint), and its monitor names the ones it uses.
//!
//! - calls at once per target ([`Calls::entered`], [`crowded`]): lab 4 and 5's
//!   `bulkhead_limit`, lab 6's `slot_limit`;
//! - calls per HALF_OPEN round ([`Calls::entered`], [`too_many_probes`]): lab 4's
//!   `single_trial` (one probe a round), lab 5 and 6's `probe_limit`;
//! - no lock of the code under test held during a call or a wait ([`lock_held`]);
//! - records that chain ([`crate::record::Seen::out_of_order`]), old answers that change
//!   nothing ([`crate::record::old_answer`]) and slots given back once ([`lost_slots`]).
//!
//! The requests are named in the lab's noun ([`story::noun`]): `request #2`, `message #2`.

use std::collections::BTreeMap;

use grader_protocol::Violation;
use race_std::trace::{self, Held};

use crate::record::{Reader, slot_lost};
use crate::story;

/// `request #2`, in the lab's noun.
pub fn named(id: u64) -> String {
    format!("{} #{id}", story::noun())
}

/// `requests #2 and #4`, `request #3`, in the lab's noun.
pub fn listed(ids: &[u64]) -> String {
    let noun = story::noun();
    let names: Vec<String> = ids.iter().map(|id| format!("#{id}")).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => format!("{noun} {last}"),
        Some((last, rest)) => format!("{noun}s {} and {last}", rest.join(", ")),
    }
}

/// A violation of `property` found during step `step`, about `about`, its story ending
/// now: `expected` and `observed` in the lab's words, `hint` how to keep it.
pub fn broken(
    property: &str,
    step: usize,
    (expected, observed): (String, String),
    hint: &str,
    about: Vec<String>,
    mark: String,
) -> Violation {
    Violation {
        property: property.into(),
        step: Some(step),
        expected,
        observed,
        hint: hint.into(),
        unexplorable: false,
        about,
        until: Some(trace::len()),
        mark,
    }
}

/// What a lab says of a property it checks with this module: its name (as the lab's rules
/// name it), the rule in its words, the mark on the story and the hint.
#[derive(Clone, Debug)]
pub struct Said<'a> {
    /// The property's name: `bulkhead_limit`.
    pub property: &'a str,
    /// The rule, as the lab's handout states it.
    pub expected: String,
    /// The mark on the story's last line.
    pub mark: String,
    /// How to keep the rule.
    pub hint: &'a str,
}

impl Said<'_> {
    /// The violation, about the requests `ids` (named as `observed` lists them).
    fn about(self, step: usize, observed: String, ids: &[u64]) -> Violation {
        let about = ids.iter().map(|&i| named(i)).collect();
        broken(
            self.property,
            step,
            (self.expected, observed),
            self.hint,
            about,
            self.mark,
        )
    }
}

/// Which calls that reach a target while its breaker is HALF_OPEN count as probes of the
/// round running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    /// All but those the breaker let through while CLOSED (they reach the target late):
    /// for a lab whose round is one trial, which cannot end before the trial's call does.
    OneTrial,
    /// Nor those decided in an earlier round: a round can end, and the next begin, before
    /// a probe of the first reaches the target (with an open wait of 0).
    Counted,
}

/// The calls that reach one target on the running schedule: who is inside it now, and who
/// reached it in the running HALF_OPEN round.
#[derive(Clone, Debug, Default)]
pub struct Calls {
    /// Requests inside it now, in the order they entered.
    inside: Vec<u64>,
    /// HALF_OPEN rounds begun so far (records into HALF_OPEN).
    rounds: u64,
    /// Requests that reached it in the running HALF_OPEN round.
    probes: Vec<u64>,
}

impl Calls {
    /// A transition record `FROM -> TO` of the target: a round of probes begins or ends.
    pub fn recorded(&mut self, from: &str, to: &str) {
        if from == "HALF_OPEN" || to == "HALF_OPEN" {
            self.probes.clear();
        }
        if to == "HALF_OPEN" {
            self.rounds += 1;
        }
    }

    /// HALF_OPEN rounds begun so far.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Request `id` reached the target, which is HALF_OPEN if `half_open`; it first
    /// touched the code under test in `arrived` (see [`Arrivals`]). Returns the requests
    /// inside it now and, if `id` is a probe, the probes of this round (none otherwise).
    pub fn entered(
        &mut self,
        id: u64,
        half_open: bool,
        arrived: Option<&Arrival>,
        rounds: Rounds,
    ) -> (Vec<u64>, Vec<u64>) {
        let late = arrived.is_some_and(|a| {
            a.state == "CLOSED" || (rounds == Rounds::Counted && a.round < self.rounds)
        });
        self.inside.push(id);
        let probes = if half_open && !late {
            self.probes.push(id);
            self.probes.clone()
        } else {
            Vec::new()
        };
        (self.inside.clone(), probes)
    }

    /// Request `id`'s call at the target ended, however.
    pub fn left(&mut self, id: u64) {
        self.inside.retain(|&i| i != id);
    }

    /// How many requests are inside the target now.
    pub fn busy(&self) -> usize {
        self.inside.len()
    }
}

/// A request's target's state (as recorded) when the request first touched a lock or
/// atomic of the code under test (about when the breaker decided on it), and the HALF_OPEN
/// round it could be a probe of: the round then running, or the next if the circuit was
/// OPEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// `CLOSED`, `OPEN`, `HALF_OPEN`.
    pub state: String,
    /// The round it could be a probe of.
    pub round: u64,
}

impl Arrival {
    /// A first touch in `state`, with `rounds` HALF_OPEN rounds begun so far.
    pub fn new(state: String, rounds: u64) -> Self {
        let round = rounds + u64::from(state == "OPEN");
        Self { state, round }
    }
}

/// Each request's [`Arrival`].
pub type Arrivals = BTreeMap<u64, Arrival>;

/// `crowded` (`bulkhead_limit`, `slot_limit`): `inside` are the requests in progress at
/// `target` at once, more than its limit allows; `of` names the target's instance
/// (` of instance 2`) where a scenario runs several, and is empty otherwise.
pub fn crowded(
    said: Said<'_>,
    step: usize,
    (target, of): (&str, &str),
    inside: &[u64],
) -> Violation {
    let observed = format!(
        "{} calls{of} were in progress at {target} at once ({})",
        inside.len(),
        listed(inside)
    );
    said.about(step, observed, inside)
}

/// `single_trial`, `probe_limit`: `probes` reached `target` in one HALF_OPEN round, more
/// than its breaker hands out; `during` says when (`while its breaker was HALF_OPEN`, `in
/// one HALF_OPEN round`).
pub fn too_many_probes(
    said: Said<'_>,
    step: usize,
    (target, during): (&str, &str),
    probes: &[u64],
) -> Violation {
    let observed = format!(
        "{} calls reached {target} {during} ({})",
        probes.len(),
        listed(probes)
    );
    said.about(step, observed, probes)
}

/// `no_lock_during_call`: request `id` did `did` (`called relay_a`, `waited in the queue`)
/// while holding `held`, locks of the code under test (`system`: `relay`). `during` ends
/// the rule: `no lock of the relay is held while {during}`.
pub fn lock_held(
    (system, during): (&str, &str),
    step: usize,
    id: u64,
    did: &str,
    held: &[Held],
    hint: &str,
    mark: &str,
) -> Violation {
    let words = (
        format!("no lock of the {system} is held while {during}"),
        format!("{} {did} while holding {}", named(id), story::holding(held)),
    );
    broken(
        "no_lock_during_call",
        step,
        words,
        hint,
        vec![named(id)],
        mark.to_owned(),
    )
}

/// `no_lock_during_call` at a call: request `id` called `callee` (`relay_a`, `orders's
/// partner`) while holding `held`, locks of the code under test (`system`: `relay`).
pub fn called_holding(
    (system, callee): (&str, &str),
    step: usize,
    id: u64,
    held: &[Held],
    hint: &str,
) -> Violation {
    let (during, did) = (format!("{callee} is called"), format!("called {callee}"));
    let mark = "still holding a lock";
    lock_held((system, &during), step, id, &did, held, hint, mark)
}

/// `bulkhead_limit`, in the words of a lab whose bulkhead allows `max_concurrent` calls
/// at once: `inside` are in progress at `target` at once, more than `limit`.
pub fn bulkhead_limit(
    step: usize,
    target: &str,
    limit: u64,
    inside: &[u64],
    hint: &str,
) -> Violation {
    let said = Said {
        property: "bulkhead_limit",
        expected: format!("at most {limit} calls in progress at {target} (its max_concurrent)"),
        mark: format!(
            "{} calls inside {target} at once; the limit is {limit}",
            inside.len()
        ),
        hint,
    };
    crowded(said, step, (target, ""), inside)
}

/// `slot_freed_once` for each request that returned since the last call: one that got
/// `rejection` (`E905`, `no_capacity`) while fewer other requests to its target were out
/// than its bulkhead allows (`limit` of the target's name) lost a slot.
pub fn lost_slots(
    record: &mut Reader,
    limit: impl Fn(&str) -> u64,
    rejection: &str,
    hint: &str,
) -> Vec<Violation> {
    record
        .returns()
        .iter()
        .filter_map(|back| {
            let limit = limit(&back.target);
            (back.words == rejection && (back.others as u64) < limit)
                .then(|| slot_lost(back, limit, rejection, hint))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_listed_in_the_default_noun() {
        assert_eq!(listed(&[]), "");
        assert_eq!(listed(&[3]), "request #3");
        assert_eq!(listed(&[2, 4]), "requests #2 and #4");
        assert_eq!(listed(&[1, 2, 5]), "requests #1, #2 and #5");
        assert_eq!(named(7), "request #7");
    }

    #[test]
    fn calls_inside_count_until_they_leave() {
        let mut calls = Calls::default();
        assert_eq!(calls.entered(1, false, None, Rounds::Counted).0, [1]);
        assert_eq!(calls.entered(2, false, None, Rounds::Counted).0, [1, 2]);
        calls.left(1);
        assert_eq!(calls.busy(), 1);
        assert_eq!(calls.entered(3, false, None, Rounds::Counted).0, [2, 3]);
    }

    #[test]
    fn probes_are_counted_per_half_open_round() {
        let mut calls = Calls::default();
        calls.recorded("CLOSED", "OPEN");
        calls.recorded("OPEN", "HALF_OPEN");
        assert_eq!(calls.rounds(), 1);
        let in_round = Arrival::new("HALF_OPEN".into(), calls.rounds());
        assert_eq!(
            calls.entered(1, true, Some(&in_round), Rounds::Counted).1,
            [1]
        );
        assert_eq!(calls.entered(2, true, None, Rounds::Counted).1, [1, 2]);
        // Not HALF_OPEN: no probe.
        assert!(calls.entered(3, false, None, Rounds::Counted).1.is_empty());
        // A new round forgets the last one's probes.
        calls.recorded("HALF_OPEN", "OPEN");
        calls.recorded("OPEN", "HALF_OPEN");
        assert_eq!(calls.entered(4, true, None, Rounds::Counted).1, [4]);
    }

    #[test]
    fn a_call_decided_while_closed_is_no_probe() {
        let mut calls = Calls::default();
        let closed = Arrival::new("CLOSED".into(), 0);
        calls.recorded("CLOSED", "OPEN");
        calls.recorded("OPEN", "HALF_OPEN");
        for rounds in [Rounds::OneTrial, Rounds::Counted] {
            assert!(calls.entered(1, true, Some(&closed), rounds).1.is_empty());
        }
    }

    #[test]
    fn only_counted_rounds_pass_over_a_call_of_an_earlier_round() {
        let mut calls = Calls::default();
        calls.recorded("CLOSED", "OPEN");
        // Decided while OPEN: a probe of round 1.
        let early = Arrival::new("OPEN".into(), calls.rounds());
        assert_eq!(early.round, 1);
        calls.recorded("OPEN", "HALF_OPEN");
        calls.recorded("HALF_OPEN", "OPEN");
        calls.recorded("OPEN", "HALF_OPEN");
        assert_eq!(calls.rounds(), 2);
        assert!(
            calls
                .entered(1, true, Some(&early), Rounds::Counted)
                .1
                .is_empty()
        );
        assert_eq!(
            calls.entered(2, true, Some(&early), Rounds::OneTrial).1,
            [2]
        );
    }
}
