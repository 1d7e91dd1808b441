//! The lab kit's grader, as a library; `src/main.rs` only hands it the command line and
//! the output streams.
//!
//! The path of a `grader check`: [`kit`] finds the kit, [`lab`] reads the lab manifest,
//! [`scenario`] reads and validates the scenario files, [`build`] compiles the lab's
//! harness against the crate under test, [`runner`] runs each scenario in a child process,
//! [`judge`] compares what it observed with what the scenario expects, and [`report`]
//! writes the result. Nothing here prints directly or exits the process.

pub mod audit;
pub mod build;
pub mod check;
pub mod cli;
pub mod diagnostic;
pub mod error;
pub mod exit;
pub mod judge;
pub mod kit;
pub mod lab;
pub mod materialize;
pub mod mutants;
pub mod report;
pub mod runner;
pub mod scenario;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

pub use cli::Cli;
use cli::{AuditArgs, CheckArgs, ColorChoice, Command, Format};
pub use error::Error;
use lab::Lab;

/// Runs one command line; machine output goes to `out`, progress and errors to `err`.
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode {
    set_colour(cli.color);
    let result = match cli.command {
        Command::Check(args) => check_command(cli.kit.as_deref(), args, out, err),
        Command::Audit(args) => audit_command(cli.kit.as_deref(), args, out, err),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let _ = writeln!(
                err,
                "{} {e}",
                colored::Colorize::bold(colored::Colorize::red("error:"))
            );
            ExitCode::from(e.exit_code())
        }
    }
}

/// Colour on a terminal only, never with NO_COLOR, unless asked explicitly.
fn set_colour(choice: ColorChoice) {
    match choice {
        ColorChoice::Always => colored::control::set_override(true),
        ColorChoice::Never => colored::control::set_override(false),
        ColorChoice::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            colored::control::set_override(!no_color && std::io::stdout().is_terminal());
        }
    }
}

fn check_command(
    kit: Option<&std::path::Path>,
    args: CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, Error> {
    let kit = kit::find(kit)?;
    let lab = Lab::load(&kit, &args.lab)?;
    let selection = check::select(&lab, false, &args.scenarios)?;
    let subject = if args.solution {
        check::solution_subject(&lab)
    } else {
        check::student_subject(&lab)
    };
    let opts = run_options(&lab, args.timeout, args.jobs, args.verbose)?;
    let report = check::grade(&lab, &subject, &selection, &opts, err)?;
    let written = match args.format {
        Format::Json => report::json::write(&report, out),
        Format::Human => report::human::write(
            &report,
            &lab,
            report::human::Options {
                hints: !args.no_hints,
                verbose: args.verbose,
            },
            out,
        ),
    };
    written.map_err(|e| {
        Error::io(
            "write the report to",
            std::path::Path::new("standard output"),
            e,
        )
    })?;
    Ok(if report.all_passed() {
        exit::PASSED
    } else {
        exit::NOT_FULL_MARKS
    })
}

/// Run options from the lab's limits and the command line's overrides.
fn run_options(
    lab: &Lab,
    timeout: Option<f64>,
    jobs: Option<usize>,
    backtrace: bool,
) -> Result<check::RunOptions, Error> {
    let timeout_ms = match timeout {
        Some(s) if s.is_finite() && s > 0.0 => (s * 1000.0) as u64,
        Some(s) => {
            return Err(Error::Usage(format!(
                "--timeout must be a positive number of seconds, not {s}"
            )));
        }
        None => lab.manifest.limits.timeout_ms,
    };
    Ok(check::RunOptions {
        timeout_ms,
        stuck_after_ms: lab
            .manifest
            .limits
            .stuck_after_ms
            .min(timeout_ms / 2)
            .max(1),
        jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from)),
        backtrace,
    })
}

fn audit_command(
    kit: Option<&std::path::Path>,
    args: AuditArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, Error> {
    let kit = kit::find(kit)?;
    let lab = Lab::load(&kit, &args.lab)?;
    let selection = check::select(&lab, true, &[])?;
    let opts = run_options(&lab, args.timeout, args.jobs, false)?;
    if args.runs == 0 {
        return Err(Error::Usage("--runs must be at least 1".into()));
    }
    let audit = audit::audit(&lab, &selection, &opts, args.runs, err)?;
    let written = match args.format {
        Format::Json => serde_json::to_writer_pretty(&mut *out, &audit)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        Format::Human => audit::write_matrix(&audit, out),
    };
    written.map_err(|e| {
        Error::io(
            "write the audit to",
            std::path::Path::new("standard output"),
            e,
        )
    })?;
    Ok(if audit.problems.is_empty() {
        exit::PASSED
    } else {
        exit::NOT_FULL_MARKS
    })
}
