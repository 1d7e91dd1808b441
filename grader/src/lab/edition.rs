//! `edition.json`: what a student edition holds, written by `grader release` at the
//! edition's root. The instructors' kit has none.
//!
//! The grader reads it to know that it runs in an edition (so it offers neither `audit`,
//! `release` nor `--solution`, which need what an edition leaves out), which labs the
//! edition holds, and how many hidden scenarios each lab has, which an edition counts
//! without shipping them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;

/// The file's name, at the edition's root.
pub const FILE_NAME: &str = "edition.json";

/// The format version this grader reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// What an edition holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edition {
    /// Must be [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The command that wrote it (`grader release lab5`).
    pub written_by: String,
    /// Each lab it holds, in the order they were asked for.
    pub labs: Vec<EditionLab>,
}

/// One lab of an edition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditionLab {
    /// The lab's name (`lab5`).
    pub name: String,
    /// Its hidden scenarios, which run only when submissions are graded.
    pub hidden_scenarios: usize,
    /// Their points.
    pub hidden_points: u32,
    /// Whether the edition carries them (a grading image's edition does; a student's
    /// does not).
    pub hidden_included: bool,
}

impl Edition {
    /// The edition of the kit at `kit`, or `None` for the instructors' kit.
    pub fn load(kit: &Path) -> Result<Option<Edition>, Error> {
        let path = kit.join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("read", &path, e)),
        };
        let edition: Edition = serde_json::from_str(&text).map_err(|e| {
            Error::Invalid(vec![
                Diagnostic::at(
                    Path::new(FILE_NAME),
                    Pos {
                        line: e.line(),
                        col: e.column(),
                    },
                    crate::diagnostic::describe_json_error(&e),
                )
                .help("`grader release` writes this file: restore it from the edition as released"),
            ])
        })?;
        if edition.format_version != FORMAT_VERSION {
            return Err(Error::Invalid(vec![
                Diagnostic::file(
                    Path::new(FILE_NAME),
                    format!(
                        "format_version {} is not supported; this grader reads version {FORMAT_VERSION}",
                        edition.format_version
                    ),
                )
                .help("use the grader that came with this edition"),
            ]));
        }
        Ok(Some(edition))
    }

    /// The entry of lab `name`, if the edition holds it.
    pub fn lab(&self, name: &str) -> Option<&EditionLab> {
        self.labs.iter().find(|l| l.name == name)
    }

    /// The names of its labs.
    pub fn lab_names(&self) -> Vec<&str> {
        self.labs.iter().map(|l| l.name.as_str()).collect()
    }
}

/// Whether the kit at `kit` is a student edition; an unreadable `edition.json` counts as
/// one (the file is there), so that a damaged edition does not offer instructors' commands.
pub fn is_edition(kit: &Path) -> bool {
    kit.join(FILE_NAME).exists()
}

/// Why `what` cannot run in a student edition, as the error to give.
pub fn refusal(what: &str, needs: &str) -> Error {
    Error::Usage(format!(
        "{what} is not available in the student edition: it needs {needs}, which the edition leaves out\n  help: run it in the instructors' kit, the one this edition was released from"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edition_is_read_back_as_written_and_a_kit_has_none() {
        let dir = tempfile::tempdir().expect("a folder");
        assert_eq!(Edition::load(dir.path()).expect("no file"), None);
        assert!(!is_edition(dir.path()));
        let edition = Edition {
            format_version: FORMAT_VERSION,
            written_by: "grader release lab5".into(),
            labs: vec![EditionLab {
                name: "lab5".into(),
                hidden_scenarios: 7,
                hidden_points: 32,
                hidden_included: false,
            }],
        };
        std::fs::write(
            dir.path().join(FILE_NAME),
            serde_json::to_string_pretty(&edition).expect("JSON"),
        )
        .expect("write");
        assert_eq!(
            Edition::load(dir.path()).expect("read"),
            Some(edition.clone())
        );
        assert_eq!(edition.lab_names(), ["lab5"]);
        assert!(is_edition(dir.path()));
        std::fs::write(dir.path().join(FILE_NAME), "{\"format_version\": 2}").expect("write");
        assert!(Edition::load(dir.path()).is_err());
    }
}
