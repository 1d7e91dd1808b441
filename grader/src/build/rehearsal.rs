//! The workspace of a lab's rehearsal program, written like a harness's
//! (`builds/<key>-rehearsal/`): its one binary is the program's `main.rs` linked with the
//! crate under test, under the harness builds' profile so that both share the compiled
//! dependencies. Building it is [`crate::rehearse`]'s; a submission's rehearsal base
//! ([`super::seed::Base::Rehearsal`]) is built from it here.

use std::path::{Path, PathBuf};

use grader_lab::rehearsal::{Program, Rehearsal as LabRehearsal};

use super::profile::{Incremental, profile};
use super::{Subject, copy_kit_lock, program_package, write_if_changed};
use crate::error::Error;
use crate::lab::Lab;

/// The lab's rehearsal, or why there is none.
pub fn of(lab: &Lab) -> Result<&dyn LabRehearsal, Error> {
    lab.plugin.rehearsal().ok_or_else(|| {
        Error::Usage(format!(
            "lab {} has no failure rehearsal\n  help: `grader check {}` runs its scenarios",
            lab.manifest.name, lab.manifest.name
        ))
    })
}

/// The name of the rehearsal workspace of the crate keyed `key`.
pub fn workspace_key(key: &str) -> String {
    format!("{key}-rehearsal")
}

/// Writes the rehearsal workspace of `subject` (`<work>/builds/<key>-rehearsal/`);
/// returns its folder and the program's name.
pub(crate) fn workspace(
    lab: &Lab,
    program: &Program,
    subject: &Subject,
    work: &Path,
) -> Result<(PathBuf, String), Error> {
    let ws = work.join("builds").join(workspace_key(&subject.key));
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
    // The harness builds' profile, so that both share the compiled dependencies.
    let profile = profile(
        lab,
        std::slice::from_ref(&subject.package),
        std::slice::from_ref(&bin),
        Incremental::Yes,
    );
    let manifest = format!(
        "# Written by the grader for each crate it rehearses; do not edit.\n{package}\n[workspace]\n\n{profile}"
    );
    write_if_changed(&ws.join("Cargo.toml"), &manifest)?;
    copy_kit_lock(lab, &ws)?;
    Ok((ws, bin))
}
