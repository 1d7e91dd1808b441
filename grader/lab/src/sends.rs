//! What labs whose scenarios send requests to scripted mocks share: judging the outcomes
//! of `send`, `send_concurrent` and `release` steps, and knowing, while checking a
//! scenario's steps in order, whether a mock holds calls and whether calls can be held in
//! it; the checks of those steps every lab makes (counts, outcomes that add up, a
//! concurrent send or a release with nothing held) and an expect step's state, counters
//! and answers, compared and worded. The lab's nouns (`Nouns`, `breaker` or `circuit`)
//! fill in the words; what only one lab checks stays in its plug-in.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::limits::{MAX_CONCURRENT_REQUESTS, MAX_REQUESTS};
use crate::{Checker, counts, quantity};

/// How a lab words what its requests are and where a held one waits.
#[derive(Clone, Copy, Debug)]
pub struct Nouns {
    /// One request: `request`, `message`.
    pub request: &'static str,
    /// Where a held request waits: `the target`, `the partner`.
    pub mock: &'static str,
}

/// Checks a `send` step's `count` (left out: 1): at least 1, at most [`MAX_REQUESTS`].
pub fn check_sent_count(c: &mut Checker<'_>, step: usize, count: u32, nouns: Nouns) {
    if count == 0 {
        c.problem(step, "count", "count must be at least 1", None);
    }
    let most = format!("send at most {MAX_REQUESTS} {}s", nouns.request);
    c.at_most(step, count.into(), MAX_REQUESTS.into(), &most);
}

/// Checks a `send_concurrent` step's `count`: at least 1, at most
/// [`MAX_CONCURRENT_REQUESTS`].
pub fn check_together_count(c: &mut Checker<'_>, step: usize, count: u32, nouns: Nouns) {
    if count == 0 {
        c.problem(step, "count", "count must be at least 1", None);
    }
    let most = format!(
        "start at most {MAX_CONCURRENT_REQUESTS} {}s at once (each is a thread)",
        nouns.request
    );
    c.at_most(step, count.into(), MAX_CONCURRENT_REQUESTS.into(), &most);
}

/// Checks a `release` step's `count` when it has one (left out: all): at least 1, at
/// most [`MAX_REQUESTS`].
pub fn check_released_count(c: &mut Checker<'_>, step: usize, count: Option<u32>, nouns: Nouns) {
    let Some(count) = count else {
        return;
    };
    if count == 0 {
        let message = "count must be at least 1 (leave it out to release all)";
        c.problem(step, "count", message, None);
    }
    let most = format!("release at most {MAX_REQUESTS} {}s", nouns.request);
    c.at_most(step, count.into(), MAX_REQUESTS.into(), &most);
}

/// Checks a `send` step's `expect` and `expect_each` together (`expect`: whether it has
/// one): not both, and as many outcomes in `expect_each` as requests sent.
pub fn check_each(
    c: &mut Checker<'_>,
    step: usize,
    count: u32,
    expect: bool,
    each: Option<&[String]>,
    nouns: Nouns,
) {
    if expect && each.is_some() {
        let both = "give either `expect` or `expect_each`, not both";
        c.problem(step, "expect_each", both, None);
    }
    let Some(each) = each.filter(|each| each.len() != count as usize) else {
        return;
    };
    let outcomes = quantity(each.len() as u64, "outcome");
    let requests = quantity(count, nouns.request);
    c.problem(
        step,
        "expect_each",
        format!("expect_each lists {outcomes} for {requests}"),
        Some(format!(
            "give one outcome per {}, or set `count` to match",
            nouns.request
        )),
    );
}

/// Checks that the outcomes a step expects counted (`send_concurrent`'s `expect`) add up
/// to the `count` requests it sends.
pub fn check_sum(
    c: &mut Checker<'_>,
    step: usize,
    expect: &BTreeMap<String, u32>,
    count: u32,
    nouns: Nouns,
) {
    let sum: u64 = expect.values().map(|&n| u64::from(n)).sum();
    if sum != u64::from(count) {
        let requests = quantity(count, nouns.request);
        let are = if count == 1 { "is" } else { "are" };
        let message = format!("expected outcomes add up to {sum}, but {requests} {are} sent");
        c.problem(step, "expect", message, None);
    }
}

/// The problem with a `send_concurrent` step to `target` while it answers at once (see
/// [`Holds::sent_together`]).
pub fn together_unheld(c: &mut Checker<'_>, step: usize, target: &str, nouns: Nouns) {
    c.problem(
        step,
        "send_concurrent",
        format!(
            "send_concurrent to `{target}`, which answers at once: which {} gets which outcome would depend on thread timing",
            nouns.request
        ),
        Some(format!(
            "script `{target}` to \"hold\" first, then release the held calls in a later step"
        )),
    );
}

/// The problem with a `release` step on `target` when no call to it can be held (see
/// [`Holds::can_release`]).
pub fn release_unheld(c: &mut Checker<'_>, step: usize, target: &str, nouns: Nouns) {
    c.problem(
        step,
        "release",
        format!("release on `{target}`, but no call to it can be held at this point"),
        Some(format!(
            "script `{target}` to \"hold\" and send {}s to it before releasing",
            nouns.request
        )),
    );
}

/// A `send` step's expectation against the outcomes observed: `expect` for each of
/// `count` requests (default 1), or `each` (its `expect_each`) in order; nothing when
/// neither is given.
pub fn expect_sent(
    count: Option<u32>,
    expect: Option<&str>,
    each: Option<&[String]>,
    got: &[String],
) -> Option<(String, String)> {
    let want: Vec<String> = match (expect, each) {
        (Some(outcome), _) => vec![outcome.to_owned(); count.unwrap_or(1) as usize],
        (None, Some(each)) => each.to_vec(),
        (None, None) => return None,
    };
    expect_each(&want, got)
}

/// A `send` step's expectation in words: `it must end with OK`.
pub fn sent_words(
    nouns: Nouns,
    count: Option<u32>,
    expect: Option<&str>,
    each: Option<&[String]>,
) -> Option<String> {
    let outcome = |o: &str| match o {
        "held" => format!("wait inside {} (held)", nouns.mock),
        o => format!("end with {o}"),
    };
    match (expect, each) {
        (Some(o), _) if count.unwrap_or(1) == 1 => Some(format!("it must {}", outcome(o))),
        (Some(o), _) => Some(format!("each must {}", outcome(o))),
        (None, Some(each)) => Some(format!("in order, they must end with: {}", each.join(", "))),
        (None, None) => None,
    }
}

/// A `send_concurrent` step's expectation in words: `exactly 1 held in core_banking and
/// 9 E904, in any order`.
pub fn together_words(target: &str, expect: &BTreeMap<String, u32>) -> String {
    let parts: Vec<String> = expect
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(o, n)| match o.as_str() {
            "held" => format!("{n} held in {target}"),
            o => format!("{n} {o}"),
        })
        .collect();
    format!("exactly {}, in any order", parts.join(" and "))
}

/// A `release` step's expectation in words, or `None` when it expects nothing.
pub fn released_words(nouns: Nouns, count: Option<u32>, expect: Option<&str>) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(n) = count {
        parts.push(format!(
            "{n} call{} must be held",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(o) = expect {
        parts.push(format!("each released {} must end with {o}", nouns.request));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Requests sent one after the other: each must end with `want`'s outcome at its place.
/// Returns (expected, observed) in words when they differ.
pub fn expect_each(want: &[String], got: &[String]) -> Option<(String, String)> {
    (want != got).then(|| (list(want), list(got)))
}

/// Requests sent at the same moment: how many must end with each outcome, in any order
/// (outcomes expected 0 times may be listed). Returns (expected, observed) in words when
/// they differ.
pub fn expect_counts(want: &BTreeMap<String, u32>, got: &[String]) -> Option<(String, String)> {
    let want: BTreeMap<String, u32> = want
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let mut tally: BTreeMap<String, u32> = BTreeMap::new();
    for outcome in got {
        *tally.entry(outcome.clone()).or_default() += 1;
    }
    (want != tally).then(|| (counts(&want), counts(&tally)))
}

/// Held calls released: exactly `count` of them when given, each ending with `expect`
/// when given. Returns (expected, observed) in words at the first difference.
pub fn expect_released(
    count: Option<u32>,
    expect: Option<&str>,
    got: &[String],
) -> Option<(String, String)> {
    if let Some(n) = count {
        if got.len() != n as usize {
            return Some((
                format!("{n} held call{} to release", if n == 1 { "" } else { "s" }),
                format!("{} held", got.len()),
            ));
        }
    }
    let want = vec![expect?.to_owned(); got.len()];
    expect_each(&want, got)
}

fn list(outcomes: &[String]) -> String {
    if outcomes.is_empty() {
        "nothing".to_owned()
    } else {
        outcomes.join(", ")
    }
}

/// A counter a scripted mock keeps of the calls that reach it, as an expectation says it,
/// in words that agree in number with the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Calls that reached it so far: `3 calls reached core_banking`.
    Reached,
    /// Calls in progress there now: `1 call in progress at claims`.
    InProgress,
    /// The most calls ever in progress there at once: `a peak of 3 calls at once at
    /// core_banking`.
    Peak,
}

/// The first of a mock's counters (calls that reached it, in progress, peak) that is not
/// what a step expects (`None`: not checked): expected and observed, in words.
pub fn expect_counters(
    target: &str,
    want: [Option<u64>; 3],
    got: [u64; 3],
) -> Option<(String, String)> {
    let counters = [Counter::Reached, Counter::InProgress, Counter::Peak];
    counters
        .into_iter()
        .zip(want)
        .zip(got)
        .find_map(|((counter, want), got)| {
            let want = want.filter(|want| *want != got)?;
            Some((counter.words(want, target), got.to_string()))
        })
}

/// The first answer a mock was expected to have given a number of times (`want`, answer
/// to times; `None`: not checked) that it gave another number of times (`got`, answers
/// not listed: none): expected and observed, in words.
pub fn expect_answered(
    target: &str,
    want: Option<&BTreeMap<String, u64>>,
    got: &BTreeMap<String, u64>,
) -> Option<(String, String)> {
    want.into_iter().flatten().find_map(|(answer, want)| {
        let got = got.get(answer).copied().unwrap_or(0);
        (*want != got).then(|| {
            let calls = quantity(*want, "call");
            (
                format!("{calls} answered {answer} by {target}"),
                got.to_string(),
            )
        })
    })
}

/// A breaker's state against the one a step expects (`None`: not checked), in the lab's
/// words for it (`breaker`, `circuit`): `got` is what the code under test reported,
/// `None` when its observer (`observer`, such as `breaker_state`) returned none.
pub fn expect_state(
    target: &str,
    noun: &str,
    observer: &str,
    want: Option<&str>,
    got: Option<&str>,
) -> Option<(String, String)> {
    let want = want?;
    let got = got.map_or_else(
        || format!("no state ({observer} returned None)"),
        str::to_owned,
    );
    (got != want).then(|| {
        (
            format!("{target} {noun} {want}"),
            format!("{target} {noun} {got}"),
        )
    })
}

/// What an expect step checks of a mock and the breaker in front of it, each check in
/// words: the state ([`expect_state`]), then the counters ([`expect_counters`]), then the
/// answers ([`expect_answered`]): `breaker OPEN`, `3 calls reached it so far`,
/// `answered E500 2 times`.
/// `noun` is the lab's word for the breaker (`breaker`, `circuit`).
pub fn expect_words(
    noun: &str,
    state: Option<&str>,
    counters: [Option<u64>; 3],
    answered: Option<&BTreeMap<String, u64>>,
) -> Vec<String> {
    let [calls, in_flight, peak] = counters;
    let mut parts = Vec::new();
    if let Some(state) = state {
        parts.push(format!("{noun} {state}"));
    }
    if let Some(n) = calls {
        parts.push(format!("{} reached it so far", quantity(n, "call")));
    }
    if let Some(n) = in_flight {
        parts.push(format!("{n} in progress now"));
    }
    if let Some(n) = peak {
        parts.push(format!("never more than {n} at once"));
    }
    for (answer, n) in answered.into_iter().flatten() {
        parts.push(format!("answered {answer} {}", crate::times(*n)));
    }
    parts
}

impl Counter {
    /// `n` of this counter at `target`, in words.
    pub fn words(self, n: u64, target: &str) -> String {
        let calls = quantity(n, "call");
        match self {
            Counter::Reached => format!("{calls} reached {target}"),
            Counter::InProgress => format!("{calls} in progress at {target}"),
            Counter::Peak => format!("a peak of {calls} at once at {target}"),
        }
    }
}

/// While a scenario's steps are checked in order: which mocks hold calls right now, and
/// in which calls may be held, so that a concurrent send to a mock that answers at once
/// (whose outcomes would depend on thread timing) and a release with nothing to release
/// are refused.
#[derive(Debug, Default)]
pub struct Holds {
    holding: HashMap<String, bool>,
    may_have_held: HashSet<String>,
}

impl Holds {
    /// Nothing holds calls yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `target` was scripted; `hold` says whether to hold calls.
    pub fn script(&mut self, target: &str, hold: bool) {
        self.holding.insert(target.to_owned(), hold);
    }

    /// Requests were sent to `target` one after the other.
    pub fn sent(&mut self, target: &str) {
        if self.holds(target) {
            self.may_have_held.insert(target.to_owned());
        }
    }

    /// Requests were sent to `target` at the same moment; returns whether it holds calls,
    /// as it must.
    pub fn sent_together(&mut self, target: &str) -> bool {
        self.may_have_held.insert(target.to_owned());
        self.holds(target)
    }

    /// Whether calls to `target` can be held at this point, for a release.
    pub fn can_release(&self, target: &str) -> bool {
        self.may_have_held.contains(target)
    }

    fn holds(&self, target: &str) -> bool {
        self.holding.get(target).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_counter_agrees_in_number_with_its_count() {
        use super::Counter;
        assert_eq!(
            Counter::Reached.words(1, "shipping"),
            "1 call reached shipping"
        );
        assert_eq!(
            Counter::Reached.words(3, "claims"),
            "3 calls reached claims"
        );
        assert_eq!(Counter::InProgress.words(1, "x"), "1 call in progress at x");
        assert_eq!(
            Counter::Peak.words(2, "acme/ORDERS"),
            "a peak of 2 calls at once at acme/ORDERS"
        );
    }

    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn outcomes_are_compared_in_order_or_counted() {
        assert_eq!(expect_each(&words(&["OK"]), &words(&["OK"])), None);
        assert_eq!(
            expect_each(&words(&["OK", "E904"]), &words(&["OK", "E500"])),
            Some(("OK, E904".into(), "OK, E500".into()))
        );
        let want = BTreeMap::from([("held".into(), 1), ("E904".into(), 2), ("E905".into(), 0)]);
        assert_eq!(
            expect_counts(&want, &words(&["E904", "held", "E904"])),
            None
        );
        assert_eq!(
            expect_counts(&want, &words(&["held", "held", "E904"])),
            Some(("2x E904, 1x held".into(), "1x E904, 2x held".into()))
        );
    }

    #[test]
    fn a_release_counts_its_calls_before_their_outcomes() {
        assert_eq!(
            expect_released(Some(2), Some("OK"), &words(&["OK"])),
            Some(("2 held calls to release".into(), "1 held".into()))
        );
        assert_eq!(
            expect_released(None, Some("OK"), &words(&["OK", "OK"])),
            None
        );
        assert_eq!(expect_released(Some(1), None, &words(&["E500"])), None);
        assert_eq!(
            expect_released(None, Some("OK"), &[]),
            None,
            "nothing released, nothing to compare"
        );
    }

    #[test]
    fn counts_are_checked_in_the_lab_s_words() {
        let nouns = Nouns {
            request: "message",
            mock: "the partner",
        };
        let mut c = Checker::new(&[]);
        check_sent_count(&mut c, 0, 1000, nouns);
        check_released_count(&mut c, 1, None, nouns);
        check_sent_count(&mut c, 2, 0, nouns);
        check_together_count(&mut c, 3, 101, nouns);
        check_released_count(&mut c, 4, Some(1001), nouns);
        let found: Vec<(usize, String)> = c
            .into_problems()
            .into_iter()
            .map(|p| (p.step, p.message))
            .collect();
        assert_eq!(
            found,
            [
                (2, "count must be at least 1".to_owned()),
                (
                    3,
                    "count is 101, but one step may start at most 100 messages at once (each is a thread)"
                        .to_owned()
                ),
                (
                    4,
                    "count is 1001, but one step may release at most 1000 messages".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn calls_can_be_held_only_after_a_hold_and_a_send() {
        let mut holds = Holds::new();
        assert!(!holds.sent_together("a"));
        holds.script("b", true);
        assert!(!holds.can_release("b"));
        holds.sent("b");
        assert!(holds.can_release("b"));
        holds.script("c", false);
        holds.sent("c");
        assert!(!holds.can_release("c"));
        holds.script("c", true);
        assert!(holds.sent_together("c"));
        assert!(holds.can_release("c"));
    }

    #[test]
    fn outcomes_listed_or_counted_must_match_the_requests_in_the_lab_s_words() {
        let nouns = Nouns {
            request: "message",
            mock: "the partner",
        };
        let mut c = Checker::new(&[]);
        check_each(&mut c, 0, 2, true, Some(&words(&["200"])), nouns);
        check_each(&mut c, 1, 1, false, Some(&words(&["200"])), nouns);
        let mut expect = BTreeMap::new();
        expect.insert("200".to_owned(), 1);
        check_sum(&mut c, 2, &expect, 1, nouns);
        check_sum(&mut c, 3, &expect, 2, nouns);
        expect.insert("503".to_owned(), 1);
        check_sum(&mut c, 4, &expect, 1, nouns);
        together_unheld(&mut c, 5, "acme/ORDERS", nouns);
        release_unheld(&mut c, 6, "acme/ORDERS", nouns);
        let found: Vec<(usize, String, Option<String>)> = c
            .into_problems()
            .into_iter()
            .map(|p| (p.step, p.message, p.help))
            .collect();
        let hold = "script `acme/ORDERS` to \"hold\"";
        assert_eq!(
            found,
            [
                (0, "give either `expect` or `expect_each`, not both".into(), None),
                (
                    0,
                    "expect_each lists 1 outcome for 2 messages".into(),
                    Some("give one outcome per message, or set `count` to match".into())
                ),
                (3, "expected outcomes add up to 1, but 2 messages are sent".into(), None),
                (4, "expected outcomes add up to 2, but 1 message is sent".into(), None),
                (
                    5,
                    "send_concurrent to `acme/ORDERS`, which answers at once: which message gets which outcome would depend on thread timing".into(),
                    Some(format!("{hold} first, then release the held calls in a later step"))
                ),
                (
                    6,
                    "release on `acme/ORDERS`, but no call to it can be held at this point".into(),
                    Some(format!("{hold} and send messages to it before releasing"))
                ),
            ]
        );
    }

    #[test]
    fn answers_and_states_are_compared_only_where_a_step_expects_them() {
        let mut got = BTreeMap::new();
        got.insert("OK".to_owned(), 2);
        assert_eq!(expect_answered("claims", None, &got), None);
        let mut want = BTreeMap::new();
        want.insert("OK".to_owned(), 2);
        assert_eq!(expect_answered("claims", Some(&want), &got), None);
        want.insert("E500".to_owned(), 1);
        assert_eq!(
            expect_answered("claims", Some(&want), &got),
            Some(("1 call answered E500 by claims".into(), "0".into()))
        );
        assert_eq!(
            expect_state("claims", "breaker", "breaker_state", None, None),
            None
        );
        assert_eq!(
            expect_state(
                "claims",
                "breaker",
                "breaker_state",
                Some("OPEN"),
                Some("OPEN")
            ),
            None
        );
        assert_eq!(
            expect_state(
                "claims",
                "circuit",
                "circuit_state",
                Some("OPEN"),
                Some("CLOSED")
            ),
            Some(("claims circuit OPEN".into(), "claims circuit CLOSED".into()))
        );
        assert_eq!(
            expect_state("claims", "breaker", "breaker_state", Some("OPEN"), None),
            Some((
                "claims breaker OPEN".into(),
                "claims breaker no state (breaker_state returned None)".into()
            ))
        );
    }

    #[test]
    fn an_expect_step_is_worded_state_first_then_counters_then_answers() {
        let mut answered = BTreeMap::new();
        answered.insert("E500".to_owned(), 2);
        assert_eq!(
            expect_words(
                "breaker",
                Some("OPEN"),
                [Some(3), Some(0), Some(1)],
                Some(&answered)
            ),
            [
                "breaker OPEN",
                "3 calls reached it so far",
                "0 in progress now",
                "never more than 1 at once",
                "answered E500 2 times"
            ]
        );
        assert_eq!(
            expect_words("circuit", None, [Some(1), None, None], None),
            ["1 call reached it so far"]
        );
    }
}
