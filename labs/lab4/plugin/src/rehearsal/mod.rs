//! Lab 4's failure rehearsal (`grader rehearse lab4`): the cascade of handout section 1
//! and its cure, on real sockets.
//!
//! The program (`labs/lab4/rehearsal`) puts the relay under test and a relay that forwards
//! blindly behind HTTP fronts with a fixed pool of worker threads, gives each a pair of
//! dependency servers that follow the script over real time (healthy, slow, refusing,
//! healthy again), sends both the same load and records everything. From that record this
//! module computes the figures ([`figures`]), judges what should be seen ([`expect`]), and
//! describes the charts ([`charts`]) and tables ([`tables`]) the grader draws.

pub mod charts;
pub mod expect;
pub mod figures;
pub mod script;
pub mod tables;

use grader_lab::rehearsal::{
    NotReady, Plan, Program, Read, Rehearsal, Report, ScriptError, ScriptProblem,
};
use lab4_rehearsal_protocol::{PROTOCOL_VERSION, Readiness, Record, Script};

/// Lab 4's rehearsal.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lab4Rehearsal;

/// Milliseconds the program waits, after the last request is sent, beyond the relay's call
/// timeout, for answers still on their way.
const DRAIN_EXTRA_MS: f64 = 500.0;

impl Rehearsal for Lab4Rehearsal {
    fn program(&self) -> Program {
        Program {
            main: "labs/lab4/rehearsal/main/src/main.rs",
            code_under_test: "relay_base",
            dependencies: &[
                ("relay_kit", "crates/relay_kit"),
                ("lab4_rehearsal", "labs/lab4/rehearsal"),
            ],
        }
    }

    fn check_script(&self, text: &str) -> Result<f64, ScriptError> {
        let s = parse(text)?;
        let problems: Vec<ScriptProblem> = script::problems(&s);
        if problems.is_empty() {
            Ok(s.duration_s)
        } else {
            Err(ScriptError::Problems(problems))
        }
    }

    fn plan(&self, text: &str, duration_s: f64) -> Result<Plan, String> {
        let s = parse(text)
            .map_err(|e| format!("the script is not valid: {e:?}"))?
            .fitted_to(duration_s);
        let drain_ms = s.relay.call_timeout_ms + DRAIN_EXTRA_MS;
        let plan = lab4_rehearsal_protocol::Plan {
            protocol: PROTOCOL_VERSION,
            script: s.clone(),
            drain_ms,
        };
        let input = serde_json::to_vec(&plan).map_err(|e| e.to_string())?;
        Ok(Plan {
            input,
            runs_for_s: s.duration_s + drain_ms / 1000.0,
            script: serde_json::to_value(&s).map_err(|e| e.to_string())?,
            setting: format!(
                "Each relay sits behind an HTTP front with {} worker threads and gets the same load: {} requests per second, at most {} waiting for an answer at once. The relay gives up on a dependency after {}.",
                s.relay.workers,
                s.load.requests_per_s,
                s.load.concurrency,
                expect::ms(s.relay.call_timeout_ms)
            ),
            about: s.about.clone(),
        })
    }

    fn read(&self, plan: &Plan, record: &str, subject: &str) -> Result<Read, String> {
        let s: Script = serde_json::from_value(plan.script.clone())
            .map_err(|e| format!("the plan's script cannot be read back: {e}"))?;
        let record: Record = serde_json::from_str(record)
            .map_err(|e| format!("the rehearsal program's record is not valid: {e}"))?;
        if record.protocol != PROTOCOL_VERSION {
            return Err(format!(
                "the rehearsal program speaks protocol {}, this grader {PROTOCOL_VERSION}",
                record.protocol
            ));
        }
        if let Readiness::NotReady {
            during,
            message,
            location,
        } = &record.readiness
        {
            return Ok(Read::NotReady(NotReady {
                during: during.clone(),
                message: message.clone(),
                location: location.clone(),
            }));
        }
        let figures = figures::compute(&s, &record);
        let mut notes = record.notes.clone();
        for r in &record.relays {
            for p in &r.panics {
                notes.push(format!(
                    "{subject} panicked {} time{} in {} at {}: {}",
                    p.count,
                    if p.count == 1 { "" } else { "s" },
                    p.during,
                    p.location.as_deref().unwrap_or("an unknown place"),
                    p.message
                ));
            }
            if let Some(problem) = &r.state_problem {
                notes.push(format!("behind the {} relay: {problem}", r.name));
            }
        }
        let mut summary_before = Vec::new();
        if let Some(story) = &figures.story {
            let phases: Vec<String> = story
                .phases
                .iter()
                .map(|p| format!("{} from {:.1} s", p.what, p.from_ms / 1000.0))
                .collect();
            summary_before.push(format!("{}: {}", story.sick, phases.join(", ")));
        }
        Ok(Read::Report(Box::new(Report {
            expectations: expect::judge(&s, &record, &figures),
            summary_before,
            summary_after: tables::summary(&s, &figures),
            tables_before: vec![tables::script(&s)],
            charts: charts::all(&s, &record, &figures),
            tables_after: tables::phases(&s, &figures)
                .into_iter()
                .chain([tables::outcomes(&figures)])
                .collect(),
            notes,
            figures: serde_json::to_value(&figures).map_err(|e| e.to_string())?,
            raw: serde_json::to_value(&record).map_err(|e| e.to_string())?,
        })))
    }
}

fn parse(text: &str) -> Result<Script, ScriptError> {
    serde_json::from_str(text).map_err(ScriptError::Json)
}
