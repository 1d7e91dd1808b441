//! The command line. The `///` comments are the help text.

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

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

/// The command line of this process, as [`command`] describes it for the kit it runs in.
/// A bad command line ends the process, as clap does: with its usage, exit status 2.
pub fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let edition = crate::lab::kit::find(kit_given(&args).as_deref())
        .is_ok_and(|kit| crate::lab::edition::is_edition(&kit));
    let matches = command(edition).get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The command line's description: in a student edition without what it cannot do
/// (`audit` and `release`, which need the mutants, alternatives and solutions, and
/// `--solution`), which then says so when asked for anyway.
pub fn command(edition: bool) -> clap::Command {
    let command = Cli::command();
    if !edition {
        return command;
    }
    command
        .mut_subcommand("audit", |c| c.hide(true))
        .mut_subcommand("release", |c| c.hide(true))
        .mut_subcommand("check", |c| {
            c.about("Grade a lab: your crate by default, or a submission folder with --submission.")
                .long_about(None)
                .mut_arg("solution", |a| a.hide(true))
        })
        .mut_subcommand("rehearse", |c| c.mut_arg("solution", |a| a.hide(true)))
        .after_help(
            "This is a student edition: `audit`, `release` and `--solution` need what it leaves out (the reference solutions, the mutants, the hidden scenarios) and run in the instructors' kit.",
        )
}

/// The folder given with `--kit DIR` or `--kit=DIR`, if any.
fn kit_given(args: &[std::ffi::OsString]) -> Option<PathBuf> {
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            break;
        }
        if text == "--kit" {
            return it.next().map(PathBuf::from);
        }
        if let Some(dir) = text.strip_prefix("--kit=") {
            return Some(PathBuf::from(dir));
        }
    }
    None
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
    /// The lab to grade (`grader list` names the labs).
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

    /// Also run the published generated scenarios (gen_1, gen_2, ...): the first N, or
    /// all of them. Each is drawn at random from its seed and checks every step against
    /// what the reference solution does; `--scenario gen_N` runs one.
    #[arg(long, value_name = "N", num_args = 0..=1)]
    pub generated: Option<Option<u64>>,

    /// With --submission: leave out the generated scenarios graded in CI (to compare a
    /// grading with and without them; they are part of the lab's total).
    #[arg(long, requires = "submission")]
    pub no_generated: bool,

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
#[command(mut_arg("jobs", |a| a.help(
    "Submissions graded at once (default: the number of cores); their scenarios share a pool of processes, twice as many as cores"
)))]
pub struct GradeArgs {
    /// The lab to grade (`grader list` names the labs).
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

    /// A CSV file saying whose each submission is (columns: submission, github or
    /// gradescope_id to find the folder; name, email, student_id, canvas_id, sis_login_id,
    /// section). With it, the results folder also gets canvas.csv and moodle.csv, the
    /// layouts those platforms import.
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,

    /// The grade column's name in canvas.csv and moodle.csv (default: the lab's title).
    /// To fill in an existing Canvas assignment, write it as Canvas's own export heads
    /// its column: `Name (id)`.
    #[arg(long, value_name = "NAME")]
    pub assignment: Option<String>,

    /// How to run scenarios.
    #[command(flatten)]
    pub run: RunArgs,
}

/// `grader list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// The lab (default: list the labs).
    pub lab: Option<String>,
}

/// `grader explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The lab (`grader list` names the labs).
    pub lab: String,
    /// The scenario's name, or the path of a scenario file.
    pub scenario: String,
}

/// `grader watch`.
#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// The lab (`grader list` names the labs).
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
    /// The lab to audit.
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

    /// Generated scenarios to run besides the seeds graded in CI: seeds 1 to N (default:
    /// the published practice seeds). Every correct alternative must agree with the
    /// reference on each; each mutant is run until one catches it, and that one is shrunk.
    #[arg(long, value_name = "N")]
    pub generated: Option<u64>,

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
    /// The labs the edition holds: one, or several for a course that hands them out
    /// together (`grader release lab4 lab5`).
    #[arg(required = true, value_name = "LAB")]
    pub labs: Vec<String>,

    /// The folder to write the student edition to (must not exist, or be empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Carry each lab's hidden scenarios too: for the image a course platform grades in
    /// (the Gradescope bundle), never for students.
    #[arg(long)]
    pub hidden: bool,

    /// Scenarios run at once while the reference fills in a lab's generated scenarios
    /// (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// `grader rehearse`.
#[derive(Debug, clap::Args)]
pub struct RehearseArgs {
    /// The lab to rehearse.
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
    /// PrairieLearn's external-grader results.json (scores as fractions; hidden
    /// scenarios counted, not described).
    Prairielearn,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help(edition: bool, sub: Option<&str>) -> String {
        let mut c = command(edition);
        c.build();
        let mut c = match sub {
            Some(name) => c.find_subcommand_mut(name).expect("a subcommand").clone(),
            None => c,
        };
        c.render_help().to_string()
    }

    #[test]
    fn an_edition_offers_no_instructors_command_and_says_why() {
        command(false).debug_assert();
        command(true).debug_assert();
        let kit = help(false, None);
        assert!(kit.contains("audit") && kit.contains("release"), "{kit}");
        let edition = help(true, None);
        for hidden in ["  audit", "  release"] {
            assert!(!edition.contains(hidden), "{edition}");
        }
        assert!(edition.contains("This is a student edition"), "{edition}");
        assert!(help(false, Some("check")).contains("--solution"));
        assert!(!help(true, Some("check")).contains("--solution"));
        assert!(!help(true, Some("rehearse")).contains("--solution"));
        // Asked for anyway, they still parse: the command then says why it cannot run.
        let parsed = command(true)
            .try_get_matches_from(["grader", "check", "lab4", "--solution"])
            .expect("parsed");
        assert!(Cli::from_arg_matches(&parsed).is_ok());
    }

    #[test]
    fn the_kit_is_found_in_either_spelling() {
        let args = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            kit_given(&args(&["grader", "--kit", "k", "list"])),
            Some(PathBuf::from("k"))
        );
        assert_eq!(
            kit_given(&args(&["grader", "list", "--kit=k2"])),
            Some(PathBuf::from("k2"))
        );
        assert_eq!(kit_given(&args(&["grader", "list"])), None);
    }
}
