//! Building a lab's rehearsal program against a crate under test, as the harness is built:
//! a generated workspace under the work folder (`builds/<key>-rehearsal/`) whose one binary
//! is the program's `main.rs` linked with the crate, compiled into the target folder every
//! harness build shares. Whose fault a failed build is, is decided as for the harness
//! ([`crate::build::blame`]).

use std::path::{Path, PathBuf};

use grader_lab::rehearsal::Program;

use crate::build::blame::{self, Linked};
use crate::build::race::Planned;
use crate::build::{
    Built, DEV_PROFILE, Subject, cargo_build, copy_kit_lock, program_package, write_if_changed,
};
use crate::error::Error;
use crate::lab::Lab;

/// The rehearsal program built against `subject` in `work`, or the compiler's complaint
/// about `subject` (it does not compile, or the program cannot call it).
pub fn build(
    lab: &Lab,
    program: &Program,
    subject: &Subject,
    work: &Path,
) -> Result<Result<PathBuf, String>, Error> {
    let ws = work
        .join("builds")
        .join(format!("{}-rehearsal", subject.key));
    std::fs::create_dir_all(&ws).map_err(|e| Error::io("create", &ws, e))?;
    let bin = format!("lab_rehearsal_{}", subject.key);
    let package = program_package(
        lab,
        &bin,
        &lab.kit.join(program.main),
        program.code_under_test,
        program.dependencies,
        subject,
    );
    let manifest = format!(
        "# Written by the grader for each crate it rehearses; do not edit.\n{package}\n[workspace]\n\n{DEV_PROFILE}"
    );
    write_if_changed(&ws.join("Cargo.toml"), &manifest)?;
    copy_kit_lock(lab, &ws)?;
    let output = cargo_build(&ws, work, &["--bin", &bin], None)?;
    let linked = [Linked {
        subject,
        manifest: ws.join("Cargo.toml"),
        bin,
        race: Planned::None,
    }];
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let verdict = blame::verdicts(lab, &linked, &stdout, &stderr).pop();
    match verdict {
        Some(Ok(Built::Harness(built))) => Ok(Ok(built.main)),
        Some(Ok(Built::CompileFailed(text))) => Ok(Err(text)),
        Some(Err(e)) => Err(e),
        None => Err(Error::KitBuild {
            what: subject.label.clone(),
            log: "cargo said nothing about the rehearsal program".into(),
        }),
    }
}
