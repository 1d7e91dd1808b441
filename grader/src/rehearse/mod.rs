//! `grader rehearse`: the cascade and its cure, on real sockets, measured and drawn.
//!
//! The scenarios prove the rules with a fake clock; a rehearsal shows what they are for. The
//! crate under test is linked into the rehearsal program (`grader/rehearsal`), which runs in
//! a child process, never in the grader's: on 127.0.0.1 it puts the relay under test and a
//! relay that forwards blindly behind HTTP fronts, gives each a pair of dependency servers
//! that follow the lab's script over real time (healthy, slow, refusing, healthy again),
//! sends both the same load, and records everything. From that record the grader computes
//! the figures ([`figures`]), judges what should be seen ([`expect`]), and writes a page with
//! charts ([`page`], [`charts`], [`plots`]), the raw data as JSON, and a terminal summary
//! ([`summary`]).
//!
//! A rehearsal runs on the real clock and decides no grade.

pub mod build;
pub mod charts;
pub mod child;
pub mod expect;
pub mod figures;
pub mod page;
pub mod plots;
pub mod script;
pub mod summary;

use std::io::Write;
use std::time::Duration;

use rehearsal_protocol::{Readiness, Record, Script};
use serde::Serialize;

use crate::build::{Subject, work_dir};
use crate::error::Error;
use crate::lab::Lab;

/// The rehearsal program's library, relative to the kit.
pub const PROGRAM_DIR: &str = "grader/rehearsal";

/// The version of the JSON a rehearsal writes.
pub const REPORT_VERSION: u32 = 1;

/// How long the program may run past the rehearsal's end before it is stopped.
const GRACE: Duration = Duration::from_secs(30);

/// A finished rehearsal: what ran, what was seen, and every raw observation.
#[derive(Clone, Debug, Serialize)]
pub struct Rehearsal {
    /// [`REPORT_VERSION`].
    pub format_version: u32,
    /// The lab.
    pub lab: String,
    /// The crate rehearsed, as people know it.
    pub subject: String,
    /// The script file, as people know it.
    pub script_path: String,
    /// By how much the script's times were multiplied to fit the run.
    pub time_scale: f64,
    /// The script as played (times already scaled).
    pub script: Script,
    /// What should be seen, and whether it was.
    pub expectations: Vec<expect::Expectation>,
    /// Figures computed from the record.
    pub figures: figures::Figures,
    /// Things that make the figures less trustworthy, or that went wrong in the relay.
    pub notes: Vec<String>,
    /// Everything the rehearsal program recorded.
    pub raw: Record,
}

impl Rehearsal {
    /// The setting in one sentence.
    pub fn setting(&self) -> String {
        let s = &self.script;
        let scaled = if (self.time_scale - 1.0).abs() > 1e-9 {
            format!(
                " (every time of {} multiplied by {:.3} to fit)",
                self.script_path, self.time_scale
            )
        } else {
            format!(" (script: {})", self.script_path)
        };
        format!(
            "{:.1} s on 127.0.0.1{scaled}. Each relay sits behind an HTTP front with {} worker threads and gets the same load: {} requests per second, at most {} waiting for an answer at once. The relay gives up on a dependency after {}.",
            s.duration_s,
            s.relay.workers,
            s.load.requests_per_s,
            s.load.concurrency,
            expect::ms(s.relay.call_timeout_ms)
        )
    }

    /// Whether every expectation that applies was seen.
    pub fn all_seen(&self) -> bool {
        self.expectations
            .iter()
            .all(|e| e.verdict != expect::Verdict::NotSeen)
    }
}

/// How a rehearsal ended.
#[derive(Debug)]
pub enum Outcome {
    /// It ran.
    Rehearsed(Box<Rehearsal>),
    /// The code under test could not be rehearsed: it does not compile, it panicked or hung
    /// in the quiet check, or it crashed the rehearsal program. The text says which, where,
    /// and what to do.
    NotReady(String),
}

/// Builds the rehearsal program against `subject` and rehearses `loaded` over
/// `duration_s` seconds. `shown` turns paths in messages into the ones people know.
pub fn rehearse(
    lab: &Lab,
    subject: &Subject,
    loaded: &script::Loaded,
    duration_s: f64,
    shown: &dyn Fn(&str) -> String,
    progress: &mut dyn Write,
) -> Result<Outcome, Error> {
    let work = work_dir(&lab.kit);
    let _ = writeln!(progress, "building the rehearsal of {} ...", subject.label);
    let binary = match build::build(lab, subject, &work)? {
        build::Built::Program(binary) => binary,
        build::Built::CompileFailed(text) => {
            return Ok(Outcome::NotReady(format!(
                "{} does not compile, so it cannot be rehearsed:\n\n{}",
                subject.label,
                shown(&text)
            )));
        }
        build::Built::CannotCall(text) => {
            return Ok(Outcome::NotReady(crate::submission::api_mismatch(
                lab,
                subject,
                &shown(&text),
            )));
        }
    };
    let script = loaded.script.fitted_to(duration_s);
    let drain_ms = script.relay.call_timeout_ms + 500.0;
    let _ = writeln!(
        progress,
        "rehearsing for {duration_s:.1} s on 127.0.0.1 (the relay under test and an unprotected one, side by side) ..."
    );
    let record = match child::run(&binary, &script, drain_ms, GRACE)? {
        Ok(record) => record,
        Err(crashed) => {
            let mut text = format!("the rehearsal did not finish: {}", crashed.why);
            if !crashed.stderr.trim().is_empty() {
                text.push_str(&format!(
                    "\nit printed:\n{}",
                    shown(crashed.stderr.trim_end())
                ));
            }
            return Ok(Outcome::NotReady(text));
        }
    };
    if let Readiness::NotReady {
        during,
        message,
        location,
    } = &record.readiness
    {
        return Ok(Outcome::NotReady(not_ready(
            lab,
            subject,
            during,
            message,
            location.as_deref().map(shown),
        )));
    }
    let figures = figures::compute(&script, &record);
    let expectations = expect::judge(&script, &record, &figures);
    let mut notes = record.notes.clone();
    for r in &record.relays {
        for p in &r.panics {
            notes.push(format!(
                "{} panicked {} time{} in {} at {}: {}",
                subject.label,
                p.count,
                if p.count == 1 { "" } else { "s" },
                p.during,
                p.location
                    .as_deref()
                    .map_or_else(|| "an unknown place".into(), shown),
                p.message
            ));
        }
        if let Some(problem) = &r.state_problem {
            notes.push(format!("behind the {} relay: {problem}", r.name));
        }
    }
    Ok(Outcome::Rehearsed(Box::new(Rehearsal {
        format_version: REPORT_VERSION,
        lab: lab.manifest.name.clone(),
        subject: subject.label.clone(),
        script_path: loaded.shown.display().to_string(),
        time_scale: duration_s / loaded.script.duration_s,
        script,
        expectations,
        figures,
        notes,
        raw: record,
    })))
}

/// The message for a relay that failed the quiet check.
fn not_ready(
    lab: &Lab,
    subject: &Subject,
    during: &str,
    message: &str,
    location: Option<String>,
) -> String {
    let what = match (message.strip_prefix("not yet implemented"), &location) {
        (Some(todo), Some(at)) => {
            let todo = todo.trim_start_matches(':').trim();
            let todo = if todo.is_empty() {
                String::new()
            } else {
                format!(": {todo}")
            };
            format!("{during} hit todo!() at {at}{todo}")
        }
        (_, Some(at)) => format!("{during} panicked at {at}: {message}"),
        (_, None) => format!("{during} {message}"),
    };
    format!(
        "{} is not ready for a rehearsal: {what}\n  help: a rehearsal needs a relay that works; `grader check {}` shows what is left to do",
        subject.label, lab.manifest.name
    )
}
