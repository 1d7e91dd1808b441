//! The result of a submission that cannot be graded (a declared file missing, or unsafe
//! to take), which every format can write, and where the grader looked for the files.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::provenance::Provenance;
use crate::lab::Lab;

/// Where a submission keeps its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// A copy of the kit: `crates/<student crate>/src/breaker.rs`.
    Kit,
    /// The student crate: `src/breaker.rs`.
    Crate,
    /// Just the files: `breaker.rs`.
    Flat,
}

impl Layout {
    /// The layout in words, for messages.
    pub fn describe(self, lab: &Lab) -> String {
        match self {
            Layout::Kit => format!(
                "a copy of the kit (it holds {}/)",
                lab.manifest.student_crate
            ),
            Layout::Crate => "the student crate (it holds src/)".to_owned(),
            Layout::Flat => {
                "a folder of files (it holds neither src/ nor the kit's crates/)".to_owned()
            }
        }
    }

    /// Where declared file `declared` (relative to the student crate) lives in a
    /// submission of this layout, relative to the submission folder.
    pub fn place(self, lab: &Lab, declared: &str) -> PathBuf {
        match self {
            Layout::Kit => Path::new(&lab.manifest.student_crate).join(declared),
            Layout::Crate => PathBuf::from(declared),
            Layout::Flat => Path::new(declared)
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(declared)),
        }
    }
}

/// Why one declared file could not be taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileProblem {
    /// The declared file (`src/breaker.rs`).
    pub file: String,
    /// Where it was looked for, relative to the submission folder.
    pub looked_at: String,
    /// What is wrong, and what to do.
    pub problem: String,
}

/// A submission that cannot be graded, and why: the "could not grade" result, which
/// every format can write.
#[derive(Clone, Debug, Serialize)]
pub struct Rejected {
    /// [`crate::report::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The lab.
    pub lab: String,
    /// The folder, as given.
    #[serde(rename = "subject")]
    pub given: PathBuf,
    /// Always `could_not_grade`.
    pub status: &'static str,
    /// Always 0.
    pub score: u32,
    /// Points available in the scenarios that would have run.
    pub max_score: u32,
    /// How the folder was read.
    pub layout: Layout,
    /// The same in words.
    pub read_as: String,
    /// One problem per declared file that could not be taken.
    pub problems: Vec<FileProblem>,
    /// The declared files that could be read (for the provenance hash).
    #[serde(skip)]
    pub files: Vec<(String, String)>,
    /// Where this result comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// The `status` of a could-not-grade result.
pub const COULD_NOT_GRADE: &str = "could_not_grade";

impl Rejected {
    /// Every problem on its own line, for people.
    pub fn explain(&self) -> String {
        let mut text = format!(
            "cannot grade the submission in {}: {} of the lab's files could not be taken",
            self.given.display(),
            self.problems.len()
        );
        for p in &self.problems {
            text.push_str(&format!("\n  {}: {}", p.looked_at, p.problem));
        }
        text.push_str(&format!("\n  (the folder was read as {})", self.read_as));
        text
    }
}
