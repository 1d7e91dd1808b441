//! The command line. The `///` comments are the help text.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Grades lab kit submissions against scripted scenarios, with a fake clock.
#[derive(Debug, Parser)]
#[command(name = "grader", version, about, long_about = None)]
pub struct Cli {
    /// The kit folder (default: the nearest folder at or above this one with Cargo.toml and labs/).
    #[arg(long, global = true, value_name = "DIR")]
    pub kit: Option<PathBuf>,

    /// When to use colour: auto (a terminal, and NO_COLOR unset), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The grader's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Grade a lab: your crate by default, or the reference solution with --solution.
    Check(CheckArgs),
    /// Check that the scenarios tell right from wrong: run the reference and every known
    /// buggy variant on every scenario and show which scenario catches which bug.
    Audit(AuditArgs),
}

/// `grader audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// The lab to audit, such as lab4.
    pub lab: String,

    /// Runs of each scenario on each variant; verdicts that differ between runs are flaky.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub runs: usize,

    /// Output format: human (the matrix), or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Wall-clock seconds one scenario may run before it is stopped (default: the lab's).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Scenarios run at once (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// `grader check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The lab to grade, such as lab4.
    pub lab: String,

    /// Grade the lab's reference solution instead of the student crate.
    #[arg(long)]
    pub solution: bool,

    /// Run only this scenario (a name, or the path of a scenario file); repeat for more.
    #[arg(long = "scenario", value_name = "NAME_OR_PATH")]
    pub scenarios: Vec<String>,

    /// Report format: human, or json (one object on standard output).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Wall-clock seconds one scenario may run before it is stopped (default: the lab's).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Scenarios run at once (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Leave hints out of the report (for exams).
    #[arg(long)]
    pub no_hints: bool,

    /// Show whole timelines and panic backtraces.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Human,
    /// The kit's JSON report.
    Json,
}
