//! Building a lab's rehearsal program against a crate under test, as the harness is built:
//! a generated workspace under the work folder (`builds/<key>-rehearsal/`) whose one
//! binary is the program's `main.rs` linked with the crate. The kit's own crates compile
//! into the target folder every harness build shares; a submission's, like its harness,
//! in the sandbox, under the build limits, in a target folder of its own started from the
//! rehearsal's base ([`crate::build::seed::Base::Rehearsal`]). Whose fault a failed
//! build is, is decided as for the harness ([`crate::build::blame`]).

use std::path::{Path, PathBuf};

use grader_lab::rehearsal::Program;

use crate::build::blame::{self, Linked};
use crate::build::confinement::take_turn;
use crate::build::race::Planned;
use crate::build::rehearsal::{workspace, workspace_key};
use crate::build::seed::{Base, build_confined};
use crate::build::{Built, Subject, cargo_build};
use crate::error::Error;
use crate::lab::Lab;

/// The rehearsal program built against `subject` in `work`, or the compiler's complaint
/// about `subject` (it does not compile, the program cannot call it, or its build was
/// stopped by a limit).
pub fn build(
    lab: &Lab,
    program: &Program,
    subject: &Subject,
    work: &Path,
) -> Result<Result<PathBuf, String>, Error> {
    // A submission's workspace is written and built by one grader at a time.
    let _turn = match &subject.confined {
        Some(_) => Some(take_turn(work, &workspace_key(&subject.key))?),
        None => None,
    };
    let (ws, bin) = workspace(lab, program, subject, work)?;
    let select = ["--bin", bin.as_str()];
    let output = match &subject.confined {
        Some(c) => build_confined(&ws, work, &select, c, Base::Rehearsal, None),
        None => cargo_build(&ws, work, &select, None),
    };
    let output = match output {
        // A build that a limit stopped is the code's doing, like a compile error.
        Err(Error::BuildStopped(why)) => return Ok(Err(why)),
        other => other?,
    };
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
