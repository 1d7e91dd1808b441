//! What a lab gives the grader for `grader rehearse`: a failure rehearsal on real sockets.
//!
//! A rehearsal plays a script over real time against the code under test, in a program of
//! the lab's own linked with that code, and shows what happened on a page. The core owns
//! everything that is the same for every lab: finding the script file
//! (`labs/<lab>/rehearsal.json` or `--script`), placing its problems at a line and column,
//! `--duration`, building the program against the student's crate, the reference or a
//! submission, starting it, stopping it when it runs over, the "not ready" message for
//! code that hits `todo!()` or panics, and writing the page, the JSON and the terminal
//! summary. The lab's [`Rehearsal`] says what its script means, what its program is, and
//! what its record shows: expectations, charts ([`crate::plot`]), tables.
//!
//! The program's contract: it reads its plan on standard input, writes its record to the
//! file its one argument names, and ends by itself. Nothing it prints is read but its
//! standard error, shown when it crashes.

use serde_json::Value;

/// The shortest and longest rehearsal, in seconds, whatever the lab.
pub const DURATION_RANGE: (f64, f64) = (2.0, 600.0);

/// A lab's failure rehearsal.
pub trait Rehearsal: Send + Sync {
    /// The program that plays a rehearsal, linked with the code under test.
    fn program(&self) -> Program;

    /// Reads and checks a script: its length in seconds, or every problem in it.
    fn check_script(&self, text: &str) -> Result<f64, ScriptError>;

    /// The plan for a script that [`Rehearsal::check_script`] accepted, its times scaled to
    /// last `duration_s` seconds.
    fn plan(&self, script: &str, duration_s: f64) -> Result<Plan, String>;

    /// Reads the record the program wrote for `plan`. `subject` names the code under test
    /// in the page's words (the student crate's folder). `Err` when the record is not what the
    /// program writes.
    fn read(&self, plan: &Plan, record: &str, subject: &str) -> Result<Read, String>;
}

/// How the grader links the rehearsal program with a crate under test.
#[derive(Clone, Debug)]
pub struct Program {
    /// The program's `main.rs`, relative to the kit.
    pub main: &'static str,
    /// The crate name under which the program uses the code under test (the student crate's package name).
    pub code_under_test: &'static str,
    /// The program's other dependencies: crate name and folder, relative to the kit.
    pub dependencies: &'static [(&'static str, &'static str)],
}

/// Why a script cannot be played.
#[derive(Debug)]
pub enum ScriptError {
    /// It is not JSON of the script's shape.
    Json(serde_json::Error),
    /// It has that shape, but some values cannot work.
    Problems(Vec<ScriptProblem>),
}

/// A problem in a script, placed by the core at `key` inside the object that `within`
/// leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptProblem {
    /// From the top object, each step down a list: the field holding the list and the
    /// element's index (`[("targets", 1), ("phases", 0)]`); empty for the top object.
    pub within: Vec<(&'static str, usize)>,
    /// The key in that object where the problem shows.
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// What to do, when that is clear.
    pub help: Option<String>,
}

/// What the program is asked to do.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Written on the program's standard input.
    pub input: Vec<u8>,
    /// How long the program should run, in seconds, waiting for late answers included; it
    /// is stopped when it runs well past that.
    pub runs_for_s: f64,
    /// The script as played, for the JSON the grader writes.
    pub script: Value,
    /// The setting in one sentence, for the page and the summary.
    pub setting: String,
    /// What the script is about, in its author's words; may be empty.
    pub about: String,
}

/// What a record says.
#[derive(Debug)]
pub enum Read {
    /// What was seen.
    Report(Box<Report>),
    /// The code under test failed the program's quiet check before the rehearsal: it
    /// panicked (`todo!()` included) or did not answer.
    NotReady(NotReady),
}

/// Code under test that cannot be rehearsed yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotReady {
    /// What the program was doing: `Relay::handle`.
    pub during: String,
    /// The panic's message (`not yet implemented: ...`), or what happened instead.
    pub message: String,
    /// Where it panicked (`src/relay.rs:12:9`), as the program saw it.
    pub location: Option<String>,
}

/// What a rehearsal showed.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// What should be seen, and whether it was.
    pub expectations: Vec<Expectation>,
    /// Lines for the terminal summary under the setting (what happens when).
    pub summary_before: Vec<String>,
    /// Lines for the terminal summary after the expectations (a small table).
    pub summary_after: Vec<String>,
    /// The page's tables before the charts (the script in words).
    pub tables_before: Vec<Table>,
    /// The charts, in page order.
    pub charts: Vec<crate::plot::Chart>,
    /// The page's tables after the charts (figures per phase, outcomes).
    pub tables_after: Vec<Table>,
    /// Things that make the figures less trustworthy, or that went wrong in the code under
    /// test (panics, with their places as the program saw them).
    pub notes: Vec<String>,
    /// Figures computed from the record, for the JSON the grader writes.
    pub figures: Value,
    /// The record itself, for the same JSON.
    pub raw: Value,
}

impl Report {
    /// Whether every expectation that applies was seen.
    pub fn all_seen(&self) -> bool {
        self.expectations
            .iter()
            .all(|e| e.verdict != Verdict::NotSeen)
    }
}

/// One thing the page says should be seen.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Expectation {
    /// A stable name, for tests and scripts.
    pub id: &'static str,
    /// What should be seen, in one sentence.
    pub title: String,
    /// Whether it was.
    pub verdict: Verdict,
    /// The figures behind the verdict.
    pub evidence: String,
}

/// Whether an expectation was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Seen.
    Seen,
    /// Not seen.
    NotSeen,
    /// The script gives it no occasion (no slow phase, no recovery, ...).
    NotApplicable,
}

impl Verdict {
    /// [`Verdict::Seen`] or [`Verdict::NotSeen`].
    pub fn of(seen: bool) -> Verdict {
        if seen {
            Verdict::Seen
        } else {
            Verdict::NotSeen
        }
    }
}

/// A table of the page: plain text cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Its heading.
    pub title: String,
    /// The column headings, each with an optional tooltip.
    pub columns: Vec<(String, Option<String>)>,
    /// The rows.
    pub rows: Vec<Vec<String>>,
    /// A line under it (what the columns' words mean); may be empty.
    pub legend: String,
}
