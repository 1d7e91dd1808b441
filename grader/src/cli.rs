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
    /// Grade a lab: your crate by default, the reference with --solution, or a
    /// submission folder with --submission.
    Check(CheckArgs),
    /// Grade every sub-folder of a folder as one submission, and write a gradebook.
    Grade(GradeArgs),
    /// List a lab's scenarios with their category, points and visibility; with no lab,
    /// list the labs of the kit.
    List(ListArgs),
    /// Say what a scenario does and checks, in plain words, without running anything.
    Explain(ExplainArgs),
    /// Grade again whenever a file of the student crate is saved.
    Watch(WatchArgs),
    /// Check scenario files, or whole labs, without running any code.
    Validate(ValidateArgs),
    /// Check that the scenarios tell right from wrong: run the reference and every known
    /// buggy variant on every scenario and show which scenario catches which bug.
    Audit(AuditArgs),
    /// Write the student edition of the kit: no solutions, hidden scenarios or mutants.
    Release(ReleaseArgs),
    /// Rehearse a failure on real sockets, for a lab that has a rehearsal: your code and an
    /// unprotected stand-in, side by side, under the same load while a dependency slows
    /// down, refuses connections and recovers. Writes a page with charts, the raw data as
    /// JSON, and a summary.
    Rehearse(RehearseArgs),
}

/// How to run scenarios; shared by the commands that run them.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Wall-clock seconds one scenario may run before it is stopped (default: the lab's).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Scenarios run at once (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// CPU seconds one scenario's process may use, 1 or more (default: the lab's).
    #[arg(long, value_name = "SECONDS", value_parser = at_least::<1>)]
    pub cpu_seconds: Option<u64>,

    /// Megabytes of memory one scenario's process may map, 64 or more (default: the
    /// lab's).
    #[arg(long, value_name = "MB", value_parser = at_least::<{ crate::run::runner::MIN_MEMORY_MB }>)]
    pub memory_mb: Option<u64>,

    /// Limits on each build of a submission.
    #[command(flatten)]
    pub build: BuildLimitArgs,
}

/// Limits on each build of a submission's code; shared by the commands that build one.
#[derive(Debug, Clone, clap::Args)]
pub struct BuildLimitArgs {
    /// Wall-clock seconds one build of a submission may take (default: the lab's).
    #[arg(long, value_name = "SECONDS")]
    pub build_timeout: Option<f64>,

    /// CPU seconds each process of a submission's build may use, 1 or more (default:
    /// the lab's).
    #[arg(long, value_name = "SECONDS", value_parser = at_least::<1>)]
    pub build_cpu_seconds: Option<u64>,

    /// Megabytes of memory each process of a submission's build may map, 256 or more
    /// (default: the lab's).
    #[arg(long, value_name = "MB", value_parser = at_least::<256>)]
    pub build_memory_mb: Option<u64>,
}

/// A whole number of at least `MIN`, or why not.
fn at_least<const MIN: u64>(text: &str) -> Result<u64, String> {
    let n: u64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n < MIN {
        return Err(format!(
            "{n} is too little: it must be at least {MIN}, or no scenario's process could run"
        ));
    }
    Ok(n)
}

/// `grader check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The lab to grade, such as lab4.
    pub lab: String,

    /// Grade the lab's reference solution instead of the student crate.
    #[arg(long, conflicts_with = "submission")]
    pub solution: bool,

    /// Grade the student files found in DIR (a clone of a student's repository, or a
    /// folder holding just their files), hidden scenarios included.
    #[arg(long, value_name = "DIR")]
    pub submission: Option<PathBuf>,

    /// Run only this scenario (a name, or the path of a scenario file); repeat for more.
    #[arg(long = "scenario", value_name = "NAME_OR_PATH")]
    pub scenarios: Vec<String>,

    /// With one race scenario: run only its explored schedule N (the number its report
    /// gives) and tell that schedule in full. The same code always explores the same
    /// schedules, so N replays exactly the interleaving that was reported.
    #[arg(long, value_name = "N", requires = "scenarios")]
    pub schedule: Option<u64>,

    /// With --submission: grade without the sandbox that keeps the code away from the
    /// reference, the hidden scenarios and other submissions. Only for a machine that
    /// holds nothing the code must not read; the results say it ran without one.
    #[arg(long, requires = "submission")]
    pub no_sandbox: bool,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Leave hints out of the report (for exams).
    #[arg(long)]
    pub no_hints: bool,

    /// Show whole timelines and panic backtraces.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// Write the page of timelines, a picture of every scenario, to FILE. Without it the
    /// page is written with the human report of your own crate or the reference (to
    /// target/grader/<lab>/timeline.html); for a submission or a machine format, only
    /// when asked.
    #[arg(long, value_name = "FILE")]
    pub page: Option<PathBuf>,

    /// Write no page of timelines.
    #[arg(long, conflicts_with = "page")]
    pub no_page: bool,

    /// How to run scenarios.
    #[command(flatten)]
    pub run: RunArgs,
}

/// `grader grade`.
#[derive(Debug, clap::Args)]
pub struct GradeArgs {
    /// The lab to grade, such as lab4.
    pub lab: String,

    /// A folder whose every sub-folder is one submission.
    pub submissions: PathBuf,

    /// Where to write the gradebook and one results file per submission.
    #[arg(long, value_name = "DIR", default_value = "grader-results")]
    pub results_dir: PathBuf,

    /// Format of the per-submission results files.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,

    /// Grade only this scenario (a name, or the path of a scenario file); repeat for
    /// more. Default: every scenario, hidden ones included.
    #[arg(long = "scenario", value_name = "NAME_OR_PATH")]
    pub scenarios: Vec<String>,

    /// Grade without the sandbox that keeps each submission away from the reference, the
    /// hidden scenarios and the other submissions. Only for a machine that holds nothing
    /// the code must not read; the results say they ran without one.
    #[arg(long)]
    pub no_sandbox: bool,

    /// How to run scenarios; --jobs is the number of submissions graded at once.
    #[command(flatten)]
    pub run: RunArgs,
}

/// `grader list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// The lab, such as lab4 (default: list the labs).
    pub lab: Option<String>,
}

/// `grader explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The lab, such as lab4.
    pub lab: String,
    /// The scenario's name, or the path of a scenario file.
    pub scenario: String,
}

/// `grader watch`.
#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// The lab, such as lab4.
    pub lab: String,

    /// Leave hints out of the report.
    #[arg(long)]
    pub no_hints: bool,

    /// Stop after this many gradings (for scripts and tests; default: never).
    #[arg(long, value_name = "N", hide = true)]
    pub max_runs: Option<usize>,

    /// How to run scenarios.
    #[command(flatten)]
    pub run: RunArgs,
}

/// `grader validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Scenario files, scenario folders, or lab names / lab folders (default: every lab).
    pub paths: Vec<PathBuf>,

    /// Rewrite what the lab's data decides in each lab's handout (its README.md): the
    /// rubric table between its markers, and the numbers of scenarios and points.
    #[arg(long)]
    pub fix: bool,
}

/// `grader audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// The lab to audit, such as lab4.
    pub lab: String,

    /// Runs of each scenario on each variant; verdicts that differ between runs are flaky.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub runs: usize,

    /// Audit only this mutant (the reference and the correct alternatives run too); repeat
    /// for more. Whether each scenario catches a mutant is then not checked: it may catch
    /// one of the others.
    #[arg(long = "mutant", value_name = "NAME")]
    pub mutants: Vec<String>,

    /// Audit only this scenario (a name, hidden ones too, or the path of a scenario file,
    /// such as a draft); repeat for more. How many scenarios catch each mutant is then not
    /// checked: the others may catch it.
    #[arg(long = "scenario", value_name = "NAME_OR_PATH")]
    pub scenarios: Vec<String>,

    /// Output format: human (the matrix), or json.
    #[arg(long, value_enum, default_value_t = AuditFormat::Human)]
    pub format: AuditFormat,

    /// How to run scenarios.
    #[command(flatten)]
    pub run: RunArgs,
}

/// `grader release`.
#[derive(Debug, clap::Args)]
pub struct ReleaseArgs {
    /// The lab to release, such as lab4.
    pub lab: String,

    /// The folder to write the student edition to (must not exist, or be empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// `grader rehearse`.
#[derive(Debug, clap::Args)]
pub struct RehearseArgs {
    /// The lab to rehearse, such as lab4.
    pub lab: String,

    /// Rehearse the lab's reference solution instead of the student crate.
    #[arg(long, conflicts_with = "submission")]
    pub solution: bool,

    /// Rehearse the student files found in DIR (as `check --submission` reads them).
    /// Their code is built and run in the sandbox `check --submission` uses, with its
    /// loopback as its only network.
    #[arg(long, value_name = "DIR")]
    pub submission: Option<PathBuf>,

    /// With --submission: build and run the code without the sandbox. Only for a machine
    /// that holds nothing the code must not read; the page and the data say it ran
    /// without one.
    #[arg(long, requires = "submission")]
    pub no_sandbox: bool,

    /// Limits on the build of a submission (with --submission).
    #[command(flatten)]
    pub build: BuildLimitArgs,

    /// Seconds the rehearsal lasts; every time in the script is scaled to fit (default:
    /// the script's own length).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,

    /// The script to play (default: the lab's rehearsal.json).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// Where to write rehearsal.html and rehearsal.json (default: a folder under
    /// target/grader/rehearsal).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
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

/// Formats of the audit: a matrix of scenarios and mutants has no JUnit or Gradescope
/// form, so those are refused rather than answered with the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    /// The matrix, for people.
    Human,
    /// The audit as one JSON object.
    Json,
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Human,
    /// The kit's JSON report.
    Json,
    /// JUnit XML, for GitLab, Jenkins and GitHub test reporters.
    Junit,
    /// Gradescope's results.json.
    Gradescope,
}
