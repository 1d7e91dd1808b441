//! Building the rehearsal program against a crate under test, as the harness is built: a
//! generated workspace under the work folder (`builds/<key>-rehearsal/`) whose one binary
//! is the program's `main.rs` linked with the crate as `relay_base`, compiled into the
//! target folder every harness build shares.

use std::path::{Path, PathBuf};

use crate::build::{
    DEV_PROFILE, Subject, cargo_build, copy_kit_lock, strip_ansi, write_if_changed,
};
use crate::error::Error;
use crate::lab::Lab;

use super::PROGRAM_DIR;

/// What building gave.
#[derive(Debug)]
pub enum Built {
    /// The program.
    Program(PathBuf),
    /// The crate under test does not compile: the compiler's errors.
    CompileFailed(String),
    /// The crate compiles, but the program cannot call it (a public item changed): the
    /// compiler's errors in the program.
    CannotCall(String),
}

/// Builds the rehearsal program against `subject`, in `work`.
pub fn build(lab: &Lab, subject: &Subject, work: &Path) -> Result<Built, Error> {
    let ws = work
        .join("builds")
        .join(format!("{}-rehearsal", subject.key));
    std::fs::create_dir_all(&ws).map_err(|e| Error::io("create", &ws, e))?;
    let bin = format!("lab_rehearsal_{}", subject.key);
    let main = lab.kit.join(PROGRAM_DIR).join("main/src/main.rs");
    let toml = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap_or_default();
    let manifest = format!(
        "# Written by the grader for each crate it rehearses; do not edit.\n\
         [package]\nname = \"{bin}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [[bin]]\nname = \"{bin}\"\npath = {main}\n\n\
         [dependencies]\n\
         relay_base = {{ path = {subject}, package = \"{package}\" }}\n\
         relay_kit = {{ path = {relay_kit} }}\n\
         lab4_rehearsal = {{ path = {program} }}\n\n\
         [workspace]\n\n{DEV_PROFILE}",
        main = toml(&main),
        subject = toml(&subject.crate_dir),
        package = subject.package,
        relay_kit = toml(&lab.kit.join("crates/relay_kit")),
        program = toml(&lab.kit.join(PROGRAM_DIR)),
    );
    write_if_changed(&ws.join("Cargo.toml"), &manifest)?;
    copy_kit_lock(lab, &ws)?;
    let output = cargo_build(&ws, work, &["--bin", &bin])?;
    let messages: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    if output.status.success() {
        let executable = messages.iter().find_map(|m| {
            let ours = m["reason"] == "compiler-artifact" && m["target"]["name"] == bin.as_str();
            ours.then(|| m["executable"].as_str().map(PathBuf::from))
                .flatten()
        });
        return executable
            .map(Built::Program)
            .ok_or_else(|| Error::KitBuild {
                what: subject.label.clone(),
                log: "cargo reported success but named no rehearsal program".into(),
            });
    }
    // Every error, with the source file of the crate it is in.
    let errors: Vec<(PathBuf, String)> = messages
        .iter()
        .filter(|m| m["reason"] == "compiler-message" && m["message"]["level"] == "error")
        .map(|m| {
            let src = PathBuf::from(m["target"]["src_path"].as_str().unwrap_or(""));
            (
                src,
                strip_ansi(m["message"]["rendered"].as_str().unwrap_or("")),
            )
        })
        .collect();
    let from = |pick: &dyn Fn(&Path) -> bool| -> Vec<String> {
        errors
            .iter()
            .filter(|(src, _)| pick(src))
            .map(|(_, text)| text.clone())
            .collect()
    };
    let in_subject = from(&|src| src.starts_with(&subject.crate_dir));
    if !in_subject.is_empty() {
        return Ok(Built::CompileFailed(
            in_subject.join("\n").trim_end().to_owned(),
        ));
    }
    let in_program = from(&|src| src == main);
    if !in_program.is_empty() {
        return Ok(Built::CannotCall(
            in_program.join("\n").trim_end().to_owned(),
        ));
    }
    let mut log = from(&|_| true).join("\n");
    log.push_str(&String::from_utf8_lossy(&output.stderr));
    Err(Error::KitBuild {
        what: subject.label.clone(),
        log: log.trim_end().to_owned(),
    })
}
