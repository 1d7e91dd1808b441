//! One module per command: each has `exec(ctx, args) -> Result<exit status, Error>`.

pub mod audit;
pub mod check;
pub mod explain;
pub mod grade;
pub mod list;
pub mod rehearse;
pub mod release;
pub mod validate;
pub mod watch;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::build::confinement::Confinement;
use crate::cli::{BuildLimitArgs, RunArgs};
use crate::error::Error;
use crate::grade::RunOptions;
use crate::lab::Lab;
use crate::sandbox::BuildLimits;

/// What every command gets: where the kit is, and where to write.
pub struct Ctx<'a> {
    /// `--kit`, if given.
    pub kit: Option<PathBuf>,
    /// The labs this grader has plug-ins for.
    pub labs: crate::lab::Registry,
    /// Machine output: reports, lists.
    pub out: &'a mut dyn Write,
    /// Progress, logs and errors.
    pub err: &'a mut dyn Write,
}

impl Ctx<'_> {
    /// Finds the kit and loads lab `name` from it.
    pub fn lab(&self, name: &str) -> Result<Lab, Error> {
        let kit = crate::lab::kit::find(self.kit.as_deref())?;
        Lab::load(&self.labs, &kit, name)
    }
}

/// Run options from the lab's limits and the command line's overrides.
pub fn run_options(lab: &Lab, args: &RunArgs, backtrace: bool) -> Result<RunOptions, Error> {
    let timeout_ms = match args.timeout {
        Some(s) if s.is_finite() && s > 0.0 => (s * 1000.0) as u64,
        Some(s) => {
            return Err(Error::Usage(format!(
                "--timeout must be a positive number of seconds, not {s}"
            )));
        }
        None => lab.manifest.limits.timeout_ms,
    };
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs must be at least 1".into()));
    }
    Ok(RunOptions {
        timeout_ms,
        stuck_after_ms: lab
            .manifest
            .limits
            .stuck_after_ms
            .min(timeout_ms / 2)
            .max(1),
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from)),
        backtrace,
        schedule: None,
        race: lab
            .manifest
            .race
            .clone()
            .map(|settings| crate::grade::race::Settings {
                lab: lab.manifest.name.clone(),
                settings,
            }),
        confinement: None,
        album: None,
    })
}

/// How submissions are confined: the sandbox (none when `unconfined`, the instructor's
/// `--no-sandbox`) and the build limits, from the lab and the command line's overrides.
/// Fails when no sandbox can be set up and none was waived.
pub fn confinement(
    lab: &Lab,
    args: &BuildLimitArgs,
    unconfined: bool,
) -> Result<std::sync::Arc<Confinement>, Error> {
    Confinement::for_submissions(lab, build_limits(lab, args)?, unconfined)
}

/// The limits on each build of a submission: the lab's, or the command line's overrides.
pub fn build_limits(lab: &Lab, args: &BuildLimitArgs) -> Result<BuildLimits, Error> {
    let l = &lab.manifest.limits;
    let timeout = match args.build_timeout {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        Some(s) => {
            return Err(Error::Usage(format!(
                "--build-timeout must be a positive number of seconds, not {s}"
            )));
        }
        None => Duration::from_millis(l.build_timeout_ms.unwrap_or(DEFAULT_BUILD_TIMEOUT_MS)),
    };
    Ok(BuildLimits {
        timeout,
        cpu_seconds: args
            .build_cpu_seconds
            .or(l.build_cpu_seconds)
            .or(Some(DEFAULT_BUILD_CPU_SECONDS)),
        memory_bytes: args
            .build_memory_mb
            .or(l.build_memory_mb)
            .or(Some(DEFAULT_BUILD_MEMORY_MB))
            .map(|mb| mb.saturating_mul(1024 * 1024)),
    })
}

/// A submission's build, when its lab sets no limit: the wall time of the whole build,
/// the CPU time and the memory of each of its processes. A submission builds in seconds
/// and a few hundred megabytes.
const DEFAULT_BUILD_TIMEOUT_MS: u64 = 120_000;
const DEFAULT_BUILD_CPU_SECONDS: u64 = 120;
const DEFAULT_BUILD_MEMORY_MB: u64 = 2048;

/// A selection whose per-scenario CPU and memory limits follow the command line where it
/// overrides the lab.
pub fn with_limits(
    mut selection: crate::grade::Selection,
    args: &RunArgs,
) -> crate::grade::Selection {
    if let Some(cpu) = args.cpu_seconds {
        selection.limits.cpu_seconds = Some(cpu);
    }
    if let Some(mb) = args.memory_mb {
        selection.limits.memory_bytes = Some(mb.saturating_mul(1024 * 1024));
    }
    selection
}

/// Writes `what` to standard output, turning a failure into an [`Error`].
pub fn written(result: std::io::Result<()>) -> Result<(), Error> {
    result.map_err(|e| Error::io("write to", std::path::Path::new("standard output"), e))
}
