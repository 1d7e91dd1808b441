//! One module per command: each has `exec(ctx, args) -> Result<exit status, Error>`.

pub mod audit;
pub mod check;
pub mod explain;
pub mod grade;
pub mod list;
pub mod release;
pub mod validate;
pub mod watch;

use std::io::Write;
use std::path::PathBuf;

use crate::cli::RunArgs;
use crate::error::Error;
use crate::grade::RunOptions;
use crate::lab::Lab;

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
    })
}

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
