//! Where a result comes from: the grader's version, the scenarios that ran, the files that
//! were graded, and the command that runs the same grading again.
//!
//! Both hashes are SHA-256 over a `sha256sum`-style listing (`<sha256 of the content>
//! <name>\n` per item, sorted by name), so anyone can recompute them with coreutils:
//!
//! ```text
//! cd crates/<student crate> && sha256sum src/<each graded file> | sha256sum
//! ```

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::lab::Lab;
use crate::scenario::{Scenario, Visibility};

/// The provenance of one result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Provenance {
    /// The grader's version (its `Cargo.toml` version).
    pub kit_version: String,
    /// The lab.
    pub lab: String,
    /// How many scenarios ran.
    pub scenarios: usize,
    /// SHA-256 of the scenarios that ran: names and file contents.
    pub scenarios_sha256: String,
    /// How many of them are visible (shipped to students).
    pub visible_scenarios: usize,
    /// SHA-256 of the visible scenarios that ran: what a student's own run of the same
    /// command computes as `scenarios_sha256`, since hidden scenarios are not shipped.
    pub visible_scenarios_sha256: String,
    /// SHA-256 of the graded files (the lab's declared student files), by path.
    pub student_files_sha256: String,
    /// Each graded file and its own SHA-256, sorted by path.
    pub student_files: Vec<FileDigest>,
    /// The command that runs the same grading on a student's machine, from the root of
    /// their copy of the kit.
    pub reproduce: String,
    /// For a submission: what kept its code away from everything else while it was built
    /// and run (see `crate::sandbox`), or that nothing did (`--no-sandbox`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// One graded file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileDigest {
    /// Its path, relative to the student crate (`src/breaker.rs`).
    pub path: String,
    /// SHA-256 of its content.
    pub sha256: String,
}

impl Provenance {
    /// The provenance of grading `files` (path relative to the student crate, content) on
    /// `scenarios`, reproduced by `reproduce`.
    pub fn new(
        lab: &Lab,
        scenarios: &[Scenario],
        files: &[(String, Vec<u8>)],
        reproduce: String,
    ) -> Result<Provenance, Error> {
        let mut all = Vec::new();
        let mut visible = Vec::new();
        for s in scenarios {
            let path = if s.path.is_absolute() {
                s.path.clone()
            } else {
                lab.kit.join(&s.path)
            };
            let text = std::fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
            let digest = (s.name.clone(), hex(&Sha256::digest(&text)));
            if s.visibility == Visibility::Visible {
                visible.push(digest.clone());
            }
            all.push(digest);
        }
        let mut student_files: Vec<FileDigest> = files
            .iter()
            .map(|(path, text)| FileDigest {
                path: path.clone(),
                sha256: hex(&Sha256::digest(text)),
            })
            .collect();
        student_files.sort_by(|a, b| a.path.cmp(&b.path));
        let listed: Vec<(String, String)> = student_files
            .iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect();
        Ok(Provenance {
            kit_version: env!("CARGO_PKG_VERSION").to_owned(),
            lab: lab.manifest.name.clone(),
            scenarios: all.len(),
            scenarios_sha256: listing_hash(all),
            visible_scenarios: visible.len(),
            visible_scenarios_sha256: listing_hash(visible),
            student_files_sha256: listing_hash(listed),
            student_files,
            reproduce,
            sandbox: None,
        })
    }

    /// One line for people: version, the two hashes (short) and the command.
    pub fn line(&self) -> String {
        let mut line = format!(
            "grader {}, {} scenarios {} (visible: {}), student files {}; reproduce with `{}`",
            self.kit_version,
            self.scenarios,
            short(&self.scenarios_sha256),
            short(&self.visible_scenarios_sha256),
            short(&self.student_files_sha256),
            self.reproduce
        );
        if let Some(sandbox) = &self.sandbox {
            let what = sandbox.split(':').next().unwrap_or(sandbox);
            line.push_str(&format!("; sandbox: {what}"));
        }
        line
    }
}

impl Provenance {
    /// One line for a student reading their grade on a course platform: version and
    /// hashes, and the command that runs the visible scenarios in their own copy of the
    /// kit (`reproduce` is the staff's: it grades a folder as a submission).
    pub fn line_for_students(&self, lab: &str) -> String {
        format!(
            "grader {}, {} scenarios {} (visible: {}), your files {}; run the visible scenarios on your machine with `grader check {lab}`",
            self.kit_version,
            self.scenarios,
            short(&self.scenarios_sha256),
            short(&self.visible_scenarios_sha256),
            short(&self.student_files_sha256),
        )
    }
}

/// The first 12 hex digits of a hash, enough to tell two sets apart by eye.
pub fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// SHA-256 of `<hash>  <name>\n` lines sorted by name (the output of `sha256sum`).
fn listing_hash(mut items: Vec<(String, String)>) -> String {
    items.sort();
    let mut listing = String::new();
    for (name, hash) in items {
        listing.push_str(&hash);
        listing.push_str("  ");
        listing.push_str(&name);
        listing.push('\n');
    }
    hex(&Sha256::digest(listing.as_bytes()))
}

/// Lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The command line that reproduces a `grader check` of `lab`: `--submission .` for a
/// submission (run at the root of the student's copy of the kit), with the scenario
/// filters that narrowed the run.
pub fn command(lab: &str, mode: &str, only: &[String]) -> String {
    let mut line = format!("grader check {lab}");
    if !mode.is_empty() {
        line.push(' ');
        line.push_str(mode);
    }
    for s in only {
        line.push_str(" --scenario ");
        line.push_str(&shell_word(s));
    }
    line
}

/// `word`, quoted for a POSIX shell when it needs to be.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_hash_is_sha256sum_of_sha256sum() {
        // printf 'a' | sha256sum; the listing of one file named x.
        let a = hex(&Sha256::digest(b"a"));
        assert_eq!(
            a,
            "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
        );
        let listing = format!("{a}  x\n");
        assert_eq!(
            listing_hash(vec![("x".into(), a)]),
            hex(&Sha256::digest(listing.as_bytes()))
        );
    }

    #[test]
    fn order_does_not_matter() {
        let one = listing_hash(vec![("b".into(), "2".into()), ("a".into(), "1".into())]);
        let two = listing_hash(vec![("a".into(), "1".into()), ("b".into(), "2".into())]);
        assert_eq!(one, two);
    }

    #[test]
    fn commands_quote_what_needs_quoting() {
        assert_eq!(
            command(
                "lab4",
                "--submission .",
                &["sm_x".into(), "my file.json".into()]
            ),
            "grader check lab4 --submission . --scenario sm_x --scenario 'my file.json'"
        );
        assert_eq!(command("lab4", "", &[]), "grader check lab4");
    }
}
