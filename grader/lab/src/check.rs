//! Collecting the problems a plug-in finds in a scenario's steps.

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
    problems: Vec<Problem>,
    complete: bool,
}

impl<'a> Checker<'a> {
    /// A checker for a lab with these targets.
    pub fn new(targets: &'a [String]) -> Self {
        Checker {
            targets,
            problems: Vec::new(),
            complete: true,
        }
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
        self.one_of(step, "target", name, &targets, "target")
    }

    /// Every problem noted, in order.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }
}
