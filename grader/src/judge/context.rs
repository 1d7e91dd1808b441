//! What judging a race scenario needs besides the run, and how it shows the places a
//! schedule names as people know them; the verdict ([`super::race`]) and the schedule's
//! story ([`super::story`]) both read it.

use std::path::Path;

use crate::scenario::Scenario;

/// What judging needs besides the run.
pub struct Context<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The crate under test's folder: the story tells only its locks.
    pub crate_dir: &'a Path,
    /// The lab's name, for the replay command.
    pub lab: &'a str,
    /// The wall-clock limit per scenario.
    pub timeout_ms: u64,
    /// Paths as people know them.
    pub shown: &'a dyn Fn(&str) -> String,
    /// The schedule asked for (`--schedule`), when one is replayed rather than the
    /// schedules explored.
    pub replay: Option<u64>,
}

impl Context<'_> {
    /// `place` (`file:line:column`) with an absolute file. Cargo names the files of a crate
    /// inside the generated workspace relative to the workspace (`subject/src/relay.rs`).
    pub fn resolve(&self, place: &str) -> String {
        if Path::new(place).is_absolute() {
            return place.to_owned();
        }
        // A place a backtrace gives relative to where the grader runs.
        let file = place.split(':').next().unwrap_or(place);
        if Path::new(file).is_file() {
            if let Ok(full) = std::path::absolute(place) {
                return full.display().to_string();
            }
        }
        match self.crate_dir.parent() {
            Some(ws) => ws.join(place).display().to_string(),
            None => place.to_owned(),
        }
    }

    /// `place` as people know it (`crates/<student crate>/src/breaker.rs:96:20`).
    pub fn show(&self, place: &str) -> String {
        (self.shown)(&self.resolve(place))
    }

    /// `text` with every place in it (`path:line:column`) as people know it.
    pub fn show_places(&self, text: &str) -> String {
        text.split(' ')
            .map(|word| {
                let start = word.find(|c| c != '(').unwrap_or(0);
                let end = word
                    .rfind(|c: char| c.is_ascii_digit())
                    .map_or(0, |i| i + 1);
                let place = &word[start..end.max(start)];
                let looks_like_place = place.contains('/')
                    && place.rsplitn(3, ':').count() == 3
                    && place.rsplit(':').take(2).all(|n| n.parse::<u32>().is_ok());
                if looks_like_place {
                    format!("{}{}{}", &word[..start], self.show(place), &word[end..])
                } else {
                    word.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}
