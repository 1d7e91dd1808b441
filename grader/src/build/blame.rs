//! Whose fault a failed build is, decided from cargo's JSON messages, in one place for
//! every way the grader builds (one crate for `check` and `--submission`, a batch for
//! `grade`).
//!
//! Each compiler message names the package and target it is about:
//!
//! - a message about the crate under test is its own: its errors and warnings are the
//!   graded result "does not compile";
//! - an error in the harness program linked with it (the lab's `harness/main`) that
//!   involves the code under test (a span in its files, or its crate named in the
//!   message) means its public items are not what the harness calls: for a student's
//!   crate, a graded result too ("the grader cannot call your code");
//! - anything else (another error in the harness program, an error in the harness
//!   library, a fixture, the lab's contract crate, or in the harness program against the
//!   kit's own reference or mutants) is a broken kit: exit 3.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::race::{self, Planned};
use super::{Built, Harness, Subject, strip_ansi};
use crate::error::Error;
use crate::lab::Lab;

/// One crate under test in a cargo call, and the harness package built with it.
pub struct Linked<'a> {
    /// The crate under test.
    pub subject: &'a Subject,
    /// The harness package's manifest.
    pub manifest: PathBuf,
    /// The harness binary's name.
    pub bin: String,
    /// Its race build and race harness, if the lab has race checks.
    pub race: Planned,
}

/// What cargo said about one [`Linked`].
#[derive(Debug, Default)]
struct Found {
    executable: Option<PathBuf>,
    /// The crate under test's own messages: (is an error, rendered).
    own: Vec<(bool, String)>,
    /// Errors in its harness program that involve the code under test.
    cannot_call: Vec<String>,
    /// The race harness program.
    race_executable: Option<PathBuf>,
    /// The race build's errors in the crate under test: what the explorer cannot model.
    race_errors: Vec<String>,
}

/// Reads cargo's JSON messages (`stdout`) and `stderr` into one result per [`Linked`],
/// in order: a harness, code that does not compile, or a broken kit.
pub fn verdicts(
    lab: &Lab,
    linked: &[Linked<'_>],
    stdout: &str,
    stderr: &str,
) -> Vec<Result<Built, Error>> {
    let code = lab.plugin.harness().code_under_test;
    let mut found: Vec<Found> = linked.iter().map(|_| Found::default()).collect();
    let mut kit = Vec::new();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match msg["reason"].as_str() {
            Some("compiler-artifact") => {
                let name = msg["target"]["name"].as_str().unwrap_or("");
                let exe = msg["executable"].as_str();
                if let (Some(i), Some(exe)) = (linked.iter().position(|l| l.bin == name), exe) {
                    found[i].executable = Some(PathBuf::from(exe));
                } else if let (Some(i), Some(exe)) =
                    (linked.iter().position(|l| l.race.bin() == Some(name)), exe)
                {
                    found[i].race_executable = Some(PathBuf::from(exe));
                }
            }
            Some("compiler-message") => {
                let level = msg["message"]["level"].as_str().unwrap_or("");
                let rendered = strip_ansi(msg["message"]["rendered"].as_str().unwrap_or(""));
                let src = Path::new(msg["target"]["src_path"].as_str().unwrap_or(""));
                let manifest = Path::new(msg["manifest_path"].as_str().unwrap_or(""));
                // The race build compiles the crate under test's files a second time: what
                // it alone rejects is what the explorer cannot model, not a compile error.
                if let Some(i) = linked.iter().position(|l| l.race.owns(manifest)) {
                    // In the race harness program too, an error that involves the crate
                    // under test is about it (its public items, or what the explorer
                    // cannot model); the normal build says which.
                    // (Cargo names files relative to the workspace root: the harness's.)
                    let subject = linked[i].subject;
                    let about_subject = src.starts_with(&subject.crate_dir)
                        || involves(&msg["message"], subject, &linked[i].manifest, code);
                    if level == "error" && about_subject {
                        found[i].race_errors.push(tidy(&rendered, lab, subject));
                    } else if level == "error" {
                        kit.push(rendered);
                    }
                } else if let Some(i) = linked
                    .iter()
                    .position(|l| src.starts_with(&l.subject.crate_dir))
                {
                    if level == "error" || level == "warning" {
                        found[i].own.push((level == "error", rendered));
                    }
                } else if level == "error" {
                    let program = linked.iter().position(|l| manifest == l.manifest);
                    match program {
                        Some(i)
                            if is_student_code(linked[i].subject)
                                && involves(&msg["message"], linked[i].subject, manifest, code) =>
                        {
                            found[i].cannot_call.push(rendered);
                        }
                        _ => kit.push(rendered),
                    }
                }
            }
            _ => {}
        }
    }
    linked
        .iter()
        .zip(found)
        .map(|(l, f)| verdict(lab, l, f, &kit, stderr))
        .collect()
}

fn verdict(
    lab: &Lab,
    linked: &Linked<'_>,
    found: Found,
    kit: &[String],
    stderr: &str,
) -> Result<Built, Error> {
    let subject = linked.subject;
    if let Some(main) = found.executable {
        let race = race::outcome(
            linked.race.clone(),
            found.race_executable,
            &found.race_errors,
        );
        if let Some(race) = race {
            return Ok(Built::Harness(Harness { main, race }));
        }
    }
    if found.own.iter().any(|(is_error, _)| *is_error) {
        let text: Vec<String> = found.own.into_iter().map(|(_, t)| t).collect();
        return Ok(Built::CompileFailed(tidy(
            text.join("\n").trim_end(),
            lab,
            subject,
        )));
    }
    if !found.cannot_call.is_empty() && kit.is_empty() {
        return Ok(Built::CompileFailed(api_mismatch(
            lab,
            subject,
            &found.cannot_call.join("\n"),
        )));
    }
    let mut log = kit.join("\n");
    for error in &found.cannot_call {
        log.push('\n');
        log.push_str(error);
    }
    if log.is_empty() {
        log.push_str(stderr);
    }
    Err(Error::KitBuild {
        what: subject.label.clone(),
        log: tidy(log.trim(), lab, subject),
    })
}

/// Whether a crate under test is a student's (their crate in the kit, or a submission),
/// whose public items may differ from what the harness calls; the kit's reference and
/// mutants may not.
fn is_student_code(subject: &Subject) -> bool {
    subject.key == "student" || subject.key.starts_with("sub_")
}

/// Whether a compiler message (or a note under it) points into the crate under test, or
/// names it.
fn involves(message: &Value, subject: &Subject, manifest: &Path, code: &str) -> bool {
    let ws = manifest.parent().unwrap_or(Path::new(""));
    let in_subject = |span: &Value| {
        let file = Path::new(span["file_name"].as_str().unwrap_or(""));
        let file = if file.is_relative() {
            ws.join(file)
        } else {
            file.to_path_buf()
        };
        file.starts_with(&subject.crate_dir)
    };
    let text = message["message"].as_str().unwrap_or("");
    let names_it = text.contains(&format!("`{code}")) || text.contains(&format!("{code}::"));
    names_it
        || message["spans"]
            .as_array()
            .is_some_and(|spans| spans.iter().any(in_subject))
        || message["children"].as_array().is_some_and(|children| {
            children
                .iter()
                .any(|child| involves(child, subject, manifest, code))
        })
}

/// The compile result of a crate whose public items are not what the harness calls;
/// `log` holds the compiler's errors in the harness program.
pub fn api_mismatch(lab: &Lab, subject: &Subject, log: &str) -> String {
    format!(
        "the grader cannot call your code: a public item of {} that the grader uses has a different name, signature or type than in the kit. Keep the public items exactly as given.\n\n{}",
        lab.manifest.student_crate,
        tidy(log.trim_end(), lab, subject)
    )
}

/// Paths in compiler and panic messages as people know them. Cargo names the files of a
/// crate inside the generated workspace relative to it (`subject/src/relay.rs`), and kit
/// files by their absolute path.
pub fn tidy(text: &str, lab: &Lab, subject: &Subject) -> String {
    let shown = format!("{}/", subject.shown_dir.display());
    let out = replace_path(text, "subject/", &shown);
    let kit = format!("{}/", lab.kit.display());
    out.replace(
        &format!("{}", subject.crate_dir.display()),
        subject.shown_dir.display().to_string().as_str(),
    )
    .replace(&kit, "")
}

/// `text` with the path `from` replaced by `to` where it starts a path (not inside a
/// longer one, such as `other/subject/`).
pub fn replace_path(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        let starts_path = rest[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || "_-./".contains(c)));
        out.push_str(&rest[..i]);
        out.push_str(if starts_path { to } else { from });
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}
