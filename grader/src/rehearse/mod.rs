//! `grader rehearse`: a lab's failure rehearsal on real sockets, measured and drawn.
//!
//! The scenarios prove the rules with a fake clock; a rehearsal shows what they are for.
//! A lab that has one says so through its plug-in (`Plugin::rehearsal`): what its script
//! means, which program plays it, and what the program's record shows. Everything else is
//! here and the same for every lab: the script file and its problems ([`script`]),
//! building the program against the crate under test ([`build`]), running it in a child
//! process, never in the grader's ([`child`]), the message for code that is not ready,
//! and the page ([`page`], its charts drawn by [`plots`]), the raw data as JSON, and the
//! terminal summary ([`summary`]).
//!
//! A rehearsal runs on the real clock and decides no grade. A submission's code is built
//! and run as confined as when it is graded ([`crate::sandbox`]), and the page and the
//! data say in which sandbox.

pub mod build;
pub mod child;
pub mod page;
pub mod plots;
pub mod script;
pub mod summary;

use std::io::Write;
use std::time::Duration;

use grader_lab::rehearsal::{DURATION_RANGE, Expectation, NotReady, Read, Report, Verdict};
use serde::Serialize;
use serde_json::Value;

pub use crate::build::rehearsal::of;
use crate::build::{Subject, work_dir};
use crate::error::Error;
use crate::lab::Lab;

/// The version of the JSON a rehearsal writes.
pub const REPORT_VERSION: u32 = 3;

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
    /// For a submission, the sandbox its code was built and ran in, or that it had none
    /// (`--no-sandbox`); `null` for the kit's own crates.
    pub sandbox: Option<String>,
    /// The script file, as people know it.
    pub script_path: String,
    /// How long it lasted, in seconds.
    pub duration_s: f64,
    /// By how much the script's times were multiplied to fit the run.
    pub time_scale: f64,
    /// The script as played (times already scaled).
    pub script: Value,
    /// What should be seen, and whether it was.
    pub expectations: Vec<Expectation>,
    /// Figures computed from the record.
    pub figures: Value,
    /// Things that make the figures less trustworthy, or that went wrong in the code under
    /// test.
    pub notes: Vec<String>,
    /// Everything the rehearsal program recorded.
    pub raw: Value,
    /// What the script is about.
    #[serde(skip)]
    pub about: String,
    /// The setting, after where and how long.
    #[serde(skip)]
    pub setting_detail: String,
    /// The lab's charts, tables and summary lines.
    #[serde(skip)]
    pub report: Report,
}

impl Rehearsal {
    /// The setting in a sentence or two.
    pub fn setting(&self) -> String {
        let scaled = if (self.time_scale - 1.0).abs() > 1e-9 {
            format!(
                "every time of {} multiplied by {:.3} to fit",
                self.script_path, self.time_scale
            )
        } else {
            format!("script: {}", self.script_path)
        };
        format!(
            "{:.1} s on 127.0.0.1 ({scaled}). {}",
            self.duration_s, self.setting_detail
        )
    }

    /// Whether every expectation that applies was seen.
    pub fn all_seen(&self) -> bool {
        self.expectations
            .iter()
            .all(|e| e.verdict != Verdict::NotSeen)
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

/// `--duration`, checked, or the script's own length.
pub fn duration(asked: Option<f64>, loaded: &script::Loaded) -> Result<f64, Error> {
    let (lo, hi) = DURATION_RANGE;
    match asked {
        None => Ok(loaded.duration_s),
        Some(d) if (lo..=hi).contains(&d) => Ok(d),
        Some(d) => Err(Error::Usage(format!(
            "--duration must be between {lo} and {hi} seconds, not {d}"
        ))),
    }
}

/// Builds the lab's rehearsal program against `subject` and rehearses `loaded` over
/// `duration_s` seconds. `shown` turns paths in messages into the ones people know.
pub fn rehearse(
    lab: &Lab,
    subject: &Subject,
    loaded: &script::Loaded,
    duration_s: f64,
    shown: &dyn Fn(&str) -> String,
    progress: &mut dyn Write,
) -> Result<Outcome, Error> {
    let rehearsal = of(lab)?;
    let work = work_dir(lab);
    let sandbox = subject.sandbox();
    let confined = match sandbox {
        Some(s) => format!(", in the sandbox ({})", s.name()),
        None => String::new(),
    };
    let _ = writeln!(
        progress,
        "building the rehearsal of {}{confined} ...",
        subject.label
    );
    let binary = match build::build(lab, &rehearsal.program(), subject, &work)? {
        Ok(binary) => binary,
        Err(text) => {
            return Ok(Outcome::NotReady(format!(
                "{} does not build, so it cannot be rehearsed:\n\n{}",
                subject.label,
                shown(&text)
            )));
        }
    };
    let broken = |why: String| Error::KitBuild {
        what: format!("the rehearsal of lab {}", lab.manifest.name),
        log: why,
    };
    let plan = rehearsal.plan(&loaded.text, duration_s).map_err(broken)?;
    let _ = writeln!(
        progress,
        "rehearsing for {duration_s:.1} s on 127.0.0.1{confined} (the code under test and an unprotected stand-in, side by side) ..."
    );
    let record = match child::run(&binary, &plan, GRACE, sandbox)? {
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
    let report = match rehearsal
        .read(&plan, &record, &subject.label)
        .map_err(broken)?
    {
        Read::NotReady(not) => return Ok(Outcome::NotReady(not_ready(lab, subject, &not, shown))),
        Read::Report(report) => *report,
    };
    Ok(Outcome::Rehearsed(Box::new(Rehearsal {
        format_version: REPORT_VERSION,
        lab: lab.manifest.name.clone(),
        subject: subject.label.clone(),
        sandbox: subject.confined.as_ref().map(|c| c.describe_rehearsal()),
        script_path: loaded.shown.display().to_string(),
        duration_s,
        time_scale: duration_s / loaded.duration_s,
        script: plan.script.clone(),
        expectations: report.expectations.clone(),
        figures: report.figures.clone(),
        notes: report.notes.iter().map(|n| shown(n)).collect(),
        raw: report.raw.clone(),
        about: plan.about.clone(),
        setting_detail: plan.setting.clone(),
        report,
    })))
}

/// The message for code that failed the program's quiet check.
fn not_ready(
    lab: &Lab,
    subject: &Subject,
    not: &NotReady,
    shown: &dyn Fn(&str) -> String,
) -> String {
    let during = &not.during;
    let location = not.location.as_deref().map(shown);
    let what = match (not.message.strip_prefix("not yet implemented"), &location) {
        (Some(todo), Some(at)) => {
            let todo = todo.trim_start_matches(':').trim();
            let todo = if todo.is_empty() {
                String::new()
            } else {
                format!(": {todo}")
            };
            format!("{during} hit todo!() at {at}{todo}")
        }
        (_, Some(at)) => format!("{during} panicked at {at}: {}", not.message),
        (_, None) => format!("{during} {}", not.message),
    };
    format!(
        "{} is not ready for a rehearsal: {what}\n  help: a rehearsal needs code that works; `grader check {}` shows what is left to do",
        subject.label, lab.manifest.name
    )
}
