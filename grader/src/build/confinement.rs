//! How a submission is confined, decided once per command (`grader check --submission`,
//! `grader grade`, `grader rehearse --submission`) and carried by each submission's
//! [`Subject`](super::Subject): the sandbox its builds and scenario processes run in
//! ([`crate::sandbox`]), the limits on each build, and the base builds its builds start from
//! ([`super::seed`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::error::Error;
use crate::lab::Lab;
use crate::sandbox::{BuildLimits, Sandbox, process};

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
    /// order of [`super::seed::Base::index`]).
    pub(super) bases: [OnceLock<Result<(PathBuf, String), String>>; 2],
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
}

/// Waits for the workspace of the build keyed `key` to be free of other graders, and
/// holds it until the returned lock is dropped.
pub fn take_turn(work: &Path, key: &str) -> Result<process::FileLock, Error> {
    let builds = work.join("builds");
    std::fs::create_dir_all(&builds).map_err(|e| Error::io("create", &builds, e))?;
    let path = builds.join(format!("{key}.lock"));
    process::FileLock::take(&path).map_err(|e| Error::io("lock", &path, e))
}
