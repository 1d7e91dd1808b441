//! Everything that stops the grader from grading. A student's failing code is not an
//! error: it is a graded [`crate::report::Report`].

use std::fmt;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::exit;

/// Why the grader could not do its job. Each says what is wrong and what to do.
#[derive(Debug)]
pub enum Error {
    /// The command line asked for something impossible.
    Usage(String),
    /// No kit around the current folder.
    KitNotFound {
        /// Where the search started.
        from: PathBuf,
    },
    /// No such lab in this kit.
    LabNotFound {
        /// The name asked for.
        name: String,
        /// The labs that exist.
        available: Vec<String>,
    },
    /// A lab manifest or scenario file is wrong.
    Invalid(Vec<Diagnostic>),
    /// A file could not be read or written.
    Io {
        /// What was being done.
        action: String,
        /// To which file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The harness failed to build for a reason outside the code under test.
    KitBuild {
        /// What was being built.
        what: String,
        /// Cargo's output.
        log: String,
    },
    /// Cargo could not be started.
    Cargo(String),
    /// No sandbox for submissions can be set up on this machine, and grading without one
    /// was not asked for.
    Sandbox(String),
    /// A submission cannot be rehearsed: no sandbox that gives its code a loopback of
    /// its own and nothing else works here, and `--no-sandbox` was not given.
    RehearsalSandbox(String),
    /// A build of a submission was stopped by one of its limits; graded as code that does
    /// not compile.
    BuildStopped(String),
    /// A lab's files are missing or cannot be used: the kit is broken.
    BrokenLab {
        /// The lab.
        lab: String,
        /// The folder or file, as people see it.
        place: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A lab of the kit has no plug-in in this grader.
    NoPlugin {
        /// The lab.
        lab: String,
        /// The labs whose plug-ins this grader has.
        known: String,
    },
}

impl Error {
    /// An I/O error while doing `action` on `path`.
    pub fn io(action: &str, path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            action: action.to_owned(),
            path: path.to_path_buf(),
            source,
        }
    }

    /// The exit status this error maps to (see [`crate::exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_)
            | Error::KitNotFound { .. }
            | Error::LabNotFound { .. }
            | Error::Invalid(_) => exit::BAD_INPUT,
            Error::Io { .. }
            | Error::KitBuild { .. }
            | Error::Cargo(_)
            | Error::Sandbox(_)
            | Error::RehearsalSandbox(_)
            | Error::BuildStopped(_)
            | Error::NoPlugin { .. }
            | Error::BrokenLab { .. } => exit::KIT_FAILURE,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(why) => write!(f, "{why}"),
            Error::KitNotFound { from } => write!(
                f,
                "no lab kit found at or above {}\n  help: run the grader inside the kit (the folder with Cargo.toml and labs/), or pass --kit DIR",
                from.display()
            ),
            Error::LabNotFound { name, available } => {
                write!(f, "there is no lab `{name}` in this kit")?;
                match crate::diagnostic::did_you_mean(name, available.iter().map(String::as_str)) {
                    Some(close) => write!(f, "\n  help: did you mean `{close}`?"),
                    None if available.is_empty() => {
                        write!(f, "\n  help: this kit has no labs/*/lab.json")
                    }
                    None => write!(f, "\n  help: the labs are: {}", available.join(", ")),
                }
            }
            Error::Invalid(problems) => {
                for (i, p) in problems.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{p}")?;
                }
                let n = problems.len();
                write!(
                    f,
                    "\n{n} problem{} found; nothing was graded. Fix the file{} above and run again.",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "" } else { "s" }
                )
            }
            Error::Io {
                action,
                path,
                source,
            } => {
                write!(f, "cannot {action} {}: {source}", path.display())
            }
            Error::KitBuild { what, log } => write!(
                f,
                "the grader's harness does not build against {what}; the kit itself is broken, not the code under test\n{log}\n  help: check that the kit is unmodified (git status), then report this to the course staff"
            ),
            Error::BrokenLab { lab, place, why } => write!(
                f,
                "{}: {why}; {lab} is broken, so nothing was graded\n  help: restore the lab's files (git status shows what changed), or report this to the course staff",
                place.display()
            ),
            Error::NoPlugin { lab, known } => write!(
                f,
                "this grader has no plug-in for {lab} (it knows: {known}); the kit is broken\n  help: a lab's plug-in crate is registered in grader/src/labs.rs"
            ),
            Error::Cargo(why) => write!(
                f,
                "cannot run cargo: {why}\n  help: install Rust with rustup, or set CARGO to cargo's path"
            ),
            Error::Sandbox(why) => write!(
                f,
                "cannot set up the sandbox that keeps submissions away from the reference, the hidden scenarios and each other, so nothing was graded: {why}\n  help: install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or run the grader as root on a kernel with Landlock; see docs/ci.md. Only on a machine that holds nothing a submission must not read, pass --no-sandbox to grade without it (the results then say so)"
            ),
            Error::RehearsalSandbox(why) => write!(
                f,
                "cannot set up the sandbox a submission's rehearsal runs in (away from the reference, the hidden scenarios and the grader's files, with only its own loopback for a network), so nothing was built or run: {why}\n  help: install bubblewrap (apt-get install bubblewrap) and allow user namespaces; see docs/ci.md. Only on a machine that holds nothing a submission must not read, pass --no-sandbox to rehearse without it (the page and the data then say so)"
            ),
            Error::BuildStopped(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Error {}
