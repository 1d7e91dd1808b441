//! The sandbox: the mechanism that keeps code written by someone who wants a good mark
//! away from what it must not see on the grading machine (the reference solution, the
//! hidden scenarios, the other submissions, the grader's own builds and results).
//!
//! - [`Sandbox`] runs a process where it sees only the folders it is given, has no network
//!   (or a loopback of its own), and where every process it starts dies with it:
//!   bubblewrap's namespaces ([`bwrap`]), or where those cannot be made, a user of its own
//!   with Landlock and seccomp ([`landlock`]);
//! - rlimits, capped capture of what a process prints, and group kills ([`process`]);
//! - cargo run under [`BuildLimits`] with its messages kept bounded, and the toolchain a
//!   sandboxed build uses ([`cargo`]).
//!
//! Which submission goes through it, and how its builds start from a base build, is the
//! builds' business ([`crate::build::confinement`]). When no sandbox can be set up,
//! grading a submission is refused unless the instructor passes `--no-sandbox`; the results
//! then say that it ran without one. Grading one's own crate (`grader check lab4`), the
//! reference or the mutants is not confined: that code is the kit's or the student's own,
//! on their own machine.

pub mod bwrap;
pub mod cargo;
pub mod landlock;
pub mod process;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::error::Error;

/// How submissions are kept apart from everything else.
#[derive(Debug)]
pub enum Sandbox {
    /// bubblewrap: user, mount, PID and network namespaces.
    Bwrap(bwrap::Bwrap),
    /// Where namespaces cannot be made and the grader is root: a user of its own,
    /// Landlock and seccomp.
    Landlock(landlock::Landlocked),
}

/// What a scenario's process holds until it ends: in the Landlock sandbox, its user,
/// whose every process is killed when this is dropped.
pub struct Lease<'a>(#[allow(dead_code)] Option<landlock::Lease<'a>>);

impl Sandbox {
    /// Finds a sandbox that works on this machine, or says why there is none:
    /// bubblewrap, else Landlock. `GRADER_SANDBOX` (`bubblewrap` or `landlock`) asks for
    /// one of them only.
    pub fn find() -> Result<Sandbox, String> {
        let wanted = std::env::var("GRADER_SANDBOX").unwrap_or_default();
        let bwrap = match wanted.as_str() {
            "" | "bubblewrap" => match bwrap::Bwrap::probe() {
                Ok(b) => return Ok(Sandbox::Bwrap(b)),
                Err(why) => why,
            },
            "landlock" => "not tried (GRADER_SANDBOX=landlock)".to_owned(),
            other => {
                return Err(format!(
                    "GRADER_SANDBOX={other} is not a sandbox this grader knows (bubblewrap, landlock)"
                ));
            }
        };
        if wanted == "bubblewrap" {
            return Err(bwrap);
        }
        landlock::Landlocked::probe()
            .map(Sandbox::Landlock)
            .map_err(|landlock| format!("bubblewrap: {bwrap}; Landlock: {landlock}"))
    }

    /// A sandbox whose code gets a loopback of its own and no other network, for a
    /// rehearsal, or why there is none: bubblewrap only (see [`landlock::NO_LOOPBACK`]).
    pub fn find_with_loopback() -> Result<Sandbox, String> {
        let wanted = std::env::var("GRADER_SANDBOX").unwrap_or_default();
        match wanted.as_str() {
            "" | "bubblewrap" => bwrap::Bwrap::probe().map(Sandbox::Bwrap).map_err(|why| {
                format!(
                    "bubblewrap: {why}; Landlock, the other sandbox, {}",
                    landlock::NO_LOOPBACK
                )
            }),
            "landlock" => Err(format!(
                "GRADER_SANDBOX=landlock asks for the Landlock sandbox, which {}",
                landlock::NO_LOOPBACK
            )),
            other => Err(format!(
                "GRADER_SANDBOX={other} is not a sandbox this grader knows (bubblewrap, landlock)"
            )),
        }
    }

    /// The command that runs a lab's rehearsal program `program`, writing only in the host
    /// folder `output`, with `env` as its whole environment; and where `output` is inside.
    /// Only bubblewrap can: see [`Sandbox::find_with_loopback`].
    pub fn rehearsal(
        &self,
        program: &Path,
        output: &Path,
        env: &[(&str, &str)],
    ) -> Result<(Command, PathBuf), Error> {
        match self {
            Sandbox::Bwrap(b) => Ok((
                b.rehearsal(program, output, env),
                PathBuf::from(bwrap::REHEARSAL_OUTPUT),
            )),
            Sandbox::Landlock(_) => Err(Error::RehearsalSandbox(format!(
                "the Landlock sandbox {}",
                landlock::NO_LOOPBACK
            ))),
        }
    }

    /// Its name and version alone: `bubblewrap 0.8.0`, `Landlock ABI 6`.
    pub fn name(&self) -> String {
        match self {
            Sandbox::Bwrap(b) => b.describe(),
            Sandbox::Landlock(l) => l.describe(),
        }
    }

    /// What it is and what it isolates, for provenance.
    pub fn describe(&self) -> String {
        match self {
            Sandbox::Bwrap(b) => format!(
                "{}: its own user, mount, PID and network namespaces; sees only the toolchain, the kit's public crates and its own files",
                b.describe()
            ),
            Sandbox::Landlock(l) => format!(
                "{}, a user of its own and seccomp: reads only the toolchain, the kit's public crates and its own files, no network; no PID namespace",
                l.describe()
            ),
        }
    }

    /// The command that runs one scenario's harness program `harness` in the private
    /// folder `dir`, writing its events to the host file `results` (inside `dir`), with
    /// `env` as its whole environment; and what it holds until it ends. The plan must
    /// name [`Sandbox::results_path`] as its results file.
    pub fn scenario(
        &self,
        harness: &Path,
        dir: &Path,
        results: &Path,
        env: &[(&str, &str)],
    ) -> Result<(Command, Lease<'_>), Error> {
        match self {
            Sandbox::Bwrap(b) => Ok((b.scenario(harness, results, env), Lease(None))),
            Sandbox::Landlock(l) => {
                let lease = l
                    .lease()
                    .ok_or_else(|| Error::Sandbox("every scenario user is in use".into()))?;
                let uid = l.uid(&lease);
                landlock::give(dir, uid).map_err(|e| Error::io("give", dir, e))?;
                let harness = l.reachable(harness).map_err(Error::Sandbox)?;
                let paths = landlock::Paths {
                    reads: vec![harness.clone()],
                    writes: vec![dir.to_path_buf()],
                };
                let mut command = l
                    .command(&harness, &paths, Some(uid))
                    .map_err(Error::Sandbox)?;
                command
                    .current_dir(dir)
                    .envs(env.iter().copied())
                    .env("PATH", "/usr/bin:/bin");
                Ok((command, Lease(Some(lease))))
            }
        }
    }

    /// Where the results file `host` is, as the sandboxed process sees it.
    pub fn results_path(&self, host: &Path) -> String {
        match self {
            Sandbox::Bwrap(_) => bwrap::RESULTS.to_owned(),
            Sandbox::Landlock(_) => host.display().to_string(),
        }
    }

    /// bubblewrap reports a process killed by signal N as exit status 128 + N.
    pub fn signal_of(&self, code: i32) -> Option<i32> {
        match self {
            Sandbox::Bwrap(_) => (129..=128 + 64).contains(&code).then(|| code - 128),
            Sandbox::Landlock(_) => None,
        }
    }
}

/// Limits on each build of a submission's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildLimits {
    /// Wall time of the whole build.
    pub timeout: Duration,
    /// CPU seconds of each process of the build (cargo, each rustc, the linker).
    pub cpu_seconds: Option<u64>,
    /// Address space of each process of the build, in bytes.
    pub memory_bytes: Option<u64>,
}
