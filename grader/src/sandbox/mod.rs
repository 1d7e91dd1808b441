//! Confining everything a submission influences: the build of its files and every
//! scenario process.
//!
//! A submission is code written by someone who wants a good mark, graded on a machine
//! that also holds what it must not see: the reference solution, the hidden scenarios,
//! the other submissions and the grader's own builds and results. A [`Confinement`] is
//! decided once per command (`grader check --submission`, `grader grade`) and carried by
//! each submission's [`crate::build::Subject`]:
//!
//! - its [`Sandbox`] runs each build and each scenario process of the submission where
//!   it sees only the toolchain, the crates it is built against and its own scratch
//!   folder, has no network, and where every process it starts dies with it
//!   ([`bwrap`]);
//! - each build gets a target folder of its own, started from a base build of the
//!   kit's pristine student crate, so no build ever sees another's files ([`seed`]);
//! - each build has a wall-time, CPU-time and memory limit ([`BuildLimits`]), and what
//!   any process prints is kept only up to a cap ([`process`], [`cargo`]).
//!
//! When no sandbox can be set up, grading a submission is refused unless the instructor
//! passes `--no-sandbox`; the results then say that it ran without one. Grading one's own
//! crate (`grader check lab4`), the reference or the mutants is not confined: that code is
//! the kit's or the student's own, on their own machine.

pub mod bwrap;
pub mod cargo;
pub mod landlock;
pub mod process;
pub mod seed;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::build::{Built, Subject};
use crate::error::Error;
use crate::grade::submit::Ready;
use crate::lab::Lab;

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

/// How submissions are graded: in which sandbox (none with `--no-sandbox`), with which
/// build limits.
#[derive(Debug)]
pub struct Confinement {
    /// The sandbox, or `None` when the instructor chose to grade without one.
    pub sandbox: Option<Sandbox>,
    /// Limits on each build.
    pub build: BuildLimits,
    /// The lab, for the base build every submission's build starts from.
    pub(crate) lab: Lab,
    /// Each base build's target folder and its stamp, made once per grader run (in the
    /// order of [`seed::Base::index`]).
    bases: [OnceLock<Result<(PathBuf, String), String>>; 2],
}

impl Confinement {
    /// A confinement for `lab`'s submissions: in a sandbox that works here, or none when
    /// `unconfined` (the instructor's `--no-sandbox`). Fails when no sandbox works and
    /// none was waived.
    pub fn for_submissions(
        lab: &Lab,
        build: BuildLimits,
        unconfined: bool,
    ) -> Result<Arc<Confinement>, Error> {
        let find = || Sandbox::find().map_err(Error::Sandbox);
        Confinement::new(lab, build, unconfined, find)
    }

    /// A confinement for rehearsing `lab`'s submissions: like
    /// [`Confinement::for_submissions`], in a sandbox whose code gets a loopback of its
    /// own ([`Sandbox::find_with_loopback`]).
    pub fn for_rehearsals(
        lab: &Lab,
        build: BuildLimits,
        unconfined: bool,
    ) -> Result<Arc<Confinement>, Error> {
        let find = || Sandbox::find_with_loopback().map_err(Error::RehearsalSandbox);
        Confinement::new(lab, build, unconfined, find)
    }

    /// In the sandbox `find` gives, unless `unconfined`.
    fn new(
        lab: &Lab,
        build: BuildLimits,
        unconfined: bool,
        find: impl FnOnce() -> Result<Sandbox, Error>,
    ) -> Result<Arc<Confinement>, Error> {
        let sandbox = if unconfined { None } else { Some(find()?) };
        Ok(Arc::new(Confinement {
            sandbox,
            build,
            lab: lab.clone(),
            bases: [OnceLock::new(), OnceLock::new()],
        }))
    }

    /// What protected the grading, in one line, for provenance.
    pub fn describe(&self) -> String {
        match &self.sandbox {
            Some(s) => s.describe(),
            None => "none (--no-sandbox): the code ran with the grader's user, files and network"
                .to_owned(),
        }
    }

    /// What protected a rehearsal of a submission, in one line, for the page and the
    /// data.
    pub fn describe_rehearsal(&self) -> String {
        match &self.sandbox {
            Some(Sandbox::Bwrap(b)) => format!(
                "{}: its own user, mount, PID and network namespaces; the build saw only the toolchain, the kit's public crates and its own files, the program only itself and its record's folder, with a loopback of its own as its only network",
                b.describe()
            ),
            Some(other) => other.describe(),
            None => "none (--no-sandbox): the code was built and ran with the grader's user, files and network"
                .to_owned(),
        }
    }

    /// The target folder and stamp of the base build `which`, built on first use.
    pub(crate) fn base(&self, work: &Path, which: seed::Base) -> Result<(PathBuf, String), Error> {
        self.bases[which.index()]
            .get_or_init(|| seed::build_base(self, work, which).map_err(|e| e.to_string()))
            .clone()
            .map_err(|log| Error::KitBuild {
                what: "the kit's student crate (the base every submission's build starts from)"
                    .into(),
                log,
            })
    }
}

/// Waits for the workspace of the build keyed `key` to be free of other graders, and
/// holds it until the returned lock is dropped.
pub fn take_turn(work: &Path, key: &str) -> Result<process::FileLock, Error> {
    let builds = work.join("builds");
    std::fs::create_dir_all(&builds).map_err(|e| Error::io("create", &builds, e))?;
    let path = builds.join(format!("{key}.lock"));
    process::FileLock::take(&path).map_err(|e| Error::io("lock", &path, e))
}

/// The sandbox a subject's scenario processes run in: a submission's, unless the
/// instructor chose to grade without one.
pub fn of(subject: &Subject) -> Option<&Sandbox> {
    subject.confined.as_deref().and_then(|c| c.sandbox.as_ref())
}

/// Marks a prepared submission as confined by `confinement`: its builds and scenario
/// runs go through it, and its provenance says so.
pub fn confine(ready: &mut Ready, confinement: &Option<Arc<Confinement>>) {
    if let Some(c) = confinement {
        ready.subject.confined = Some(c.clone());
        ready.provenance.sandbox = Some(c.describe());
    }
}

/// Builds confined submissions, each in its own target folder and sandbox, as many at
/// once as there are cores; one result each, in order. Identical submissions (one key)
/// are built once.
pub fn build_each(lab: &Lab, work: &Path, subjects: &[&Subject]) -> Vec<Result<Built, Error>> {
    let mut unique: Vec<&Subject> = Vec::new();
    for s in subjects {
        if !unique.iter().any(|u| u.key == s.key) {
            unique.push(s);
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Built, Error>>>> =
        Mutex::new((0..unique.len()).map(|_| None).collect());
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|scope| {
        for _ in 0..cores.min(unique.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(subject) = unique.get(i) else { break };
                    let built = crate::build::build(lab, subject, work);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(built);
                    }
                }
            });
        }
    });
    let built: Vec<Option<Result<Built, Error>>> = results.into_inner().unwrap_or_default();
    subjects
        .iter()
        .map(|s| {
            let slot = unique
                .iter()
                .position(|u| u.key == s.key)
                .and_then(|i| built.get(i))
                .and_then(Option::as_ref);
            match slot {
                Some(Ok(b)) => Ok(b.clone()),
                Some(Err(e)) => Err(Error::KitBuild {
                    what: s.label.clone(),
                    log: e.to_string(),
                }),
                None => Err(Error::KitBuild {
                    what: s.label.clone(),
                    log: "the build did not run".into(),
                }),
            }
        })
        .collect()
}
