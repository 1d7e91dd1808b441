//! Collecting the problems a plug-in finds in a scenario's steps.

use crate::limits::{MAX_ADVANCE_MS, MAX_CLOCK_MS};
use crate::words::unknown_word;

/// A problem in one step, placed by the core at `key` inside that step's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The step, counted from 0.
    pub step: usize,
    /// The key (or word) in the step's text where the problem shows.
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// What to do, when that is clear.
    pub help: Option<String>,
}

/// What a plug-in gets to check steps with: the lab's target names, and a place to put
/// problems.
#[derive(Debug)]
pub struct Checker<'a> {
    targets: &'a [String],
    /// What the lab calls a target (`Plugin::target_noun`).
    noun: &'static str,
    race: bool,
    problems: Vec<Problem>,
    complete: bool,
    /// Where the fake clock is after the `advance` steps checked so far.
    clock_ms: u64,
}

impl<'a> Checker<'a> {
    /// A checker for a lab with these targets.
    pub fn new(targets: &'a [String]) -> Self {
        Checker {
            targets,
            noun: "target",
            race: false,
            problems: Vec::new(),
            complete: true,
            clock_ms: 0,
        }
    }

    /// The same, for the steps of a race check (`"race": true`), which run once per
    /// explored schedule and are judged on each: outcomes that depend on how threads
    /// interleave are explored, not left to chance.
    pub fn for_race_check(mut self, race: bool) -> Self {
        self.race = race;
        self
    }

    /// The same, for a lab that calls its targets `noun` (a flow, a dependency): the
    /// messages about target names use it.
    pub fn calling_targets(mut self, noun: &'static str) -> Self {
        self.noun = noun;
        self
    }

    /// Whether the steps are a race check's.
    pub fn race_check(&self) -> bool {
        self.race
    }

    /// The same checker for a scenario some of whose steps could not be read (each has
    /// its own problem already): the steps checked are the others.
    pub fn with_unreadable_steps(mut self) -> Self {
        self.complete = false;
        self
    }

    /// Whether the steps checked are all the scenario's. When some could not be read,
    /// checks that depend on what earlier steps did (a `release` after a `hold`) are best
    /// left out: the missing step may be the one they look for.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The lab's target names, in its order.
    pub fn targets(&self) -> Vec<&'a str> {
        self.targets.iter().map(String::as_str).collect()
    }

    /// Notes a problem at `key` in step `step`.
    pub fn problem(
        &mut self,
        step: usize,
        key: &str,
        message: impl Into<String>,
        help: Option<String>,
    ) {
        self.problems.push(Problem {
            step,
            key: key.to_owned(),
            message: message.into(),
            help,
        });
    }

    /// Checks that `word` is one of `allowed`; `what` names the kind of word in messages
    /// ("target", "outcome"). A near miss gets a suggestion.
    pub fn one_of(
        &mut self,
        step: usize,
        key: &str,
        word: &str,
        allowed: &[&str],
        what: &str,
    ) -> bool {
        match unknown_word(word, allowed, what) {
            None => true,
            Some((message, help)) => {
                self.problem(step, key, message, Some(help));
                false
            }
        }
    }

    /// Checks that `name` is one of the lab's targets.
    pub fn target(&mut self, step: usize, name: &str) -> bool {
        let targets = self.targets();
        let noun = self.noun;
        self.one_of(step, "target", name, &targets, noun)
    }

    /// Notes a problem at `count` in step `step` when `count` is more than `max`; `limit`
    /// says what one step may do: "send at most 1000 requests".
    pub fn at_most(&mut self, step: usize, count: u64, max: u64, limit: &str) {
        if count > max {
            self.problem(
                step,
                "count",
                format!("count is {count}, but one step may {limit}"),
                Some(format!("use several steps of {max} or fewer")),
            );
        }
    }

    /// Checks an `advance` step of `ms` (at `ms` in its text): it must move the clock, by
    /// no more than a day, and not take it past a year (reported once, at the step that
    /// does).
    pub fn advance(&mut self, step: usize, ms: u64) {
        if ms == 0 {
            self.problem(step, "ms", "advancing by 0 ms does nothing", None);
        } else if ms > MAX_ADVANCE_MS {
            self.problem(
                step,
                "ms",
                format!(
                    "advancing by {ms} ms is more than a day ({MAX_ADVANCE_MS} ms), the most one step may"
                ),
                Some("advance in several steps, or by less: no rule of the lab needs more".into()),
            );
        } else {
            let before = self.clock_ms;
            self.clock_ms = before.saturating_add(ms);
            if before <= MAX_CLOCK_MS && self.clock_ms > MAX_CLOCK_MS {
                self.problem(
                    step,
                    "ms",
                    format!(
                        "this takes the fake clock past a year ({MAX_CLOCK_MS} ms), the furthest a scenario may go"
                    ),
                    None,
                );
            }
        }
    }

    /// Every problem noted, in order.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(c: Checker<'_>) -> Vec<(usize, String)> {
        c.into_problems()
            .into_iter()
            .map(|p| (p.step, p.message))
            .collect()
    }

    #[test]
    fn counts_over_the_limit_are_refused() {
        let mut c = Checker::new(&[]);
        c.at_most(0, 1000, 1000, "send at most 1000 requests");
        c.at_most(1, 1001, 1000, "send at most 1000 requests");
        assert_eq!(
            keys(c),
            [(
                1,
                "count is 1001, but one step may send at most 1000 requests".to_owned()
            )]
        );
    }

    #[test]
    fn the_clock_moves_by_a_day_at_most_and_a_year_in_all() {
        let mut c = Checker::new(&[]);
        c.advance(0, 0);
        c.advance(1, MAX_ADVANCE_MS + 1);
        for step in 2..=368 {
            c.advance(step, MAX_ADVANCE_MS);
        }
        let found = keys(c);
        let steps: Vec<usize> = found.iter().map(|(s, _)| *s).collect();
        // Steps 2 to 366 make a year; step 367 goes past it, and is the only one told.
        assert_eq!(steps, [0, 1, 367], "{found:?}");
        assert!(found[2].1.contains("past a year"), "{found:?}");
    }
}
