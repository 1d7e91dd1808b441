//! Building a crate under test out of pieces: a pristine base crate from the kit, with some
//! files replaced (a student's declared files) or edited (a mutant's edits).
//!
//! The copy lives in the work folder with a `Cargo.toml` the grader writes itself, so
//! nothing outside the copied source files can change how it builds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::build::{Subject, write_if_changed};
use crate::error::Error;
use crate::lab::Lab;

/// The lints of every crate the grader builds from a student's or a mutant's files:
/// `unsafe` is forbidden, so an `allow` in one of the files cannot lift it (the handout
/// says so), and the rule is the same whatever `lib.rs` says.
pub(crate) const FORBID_UNSAFE: &str = "\n[lints.rust]\nunsafe_code = \"forbid\"\n";

/// Copies the `src/` folder of `base` (relative to the kit) into
/// `<work>/builds/<key>/subject/`, after `change` has edited the files (keyed by their path
/// relative to `src/`), writes its manifest, and returns it as a subject whose paths are
/// shown as `shown_dir`. Files that did not change keep their times, so cargo rebuilds
/// only what changed.
pub fn materialize(
    lab: &Lab,
    work: &Path,
    key: &str,
    label: &str,
    base: &str,
    shown_dir: &str,
    change: impl FnOnce(&mut BTreeMap<PathBuf, String>) -> Result<(), Error>,
) -> Result<Subject, Error> {
    let dir = work.join("builds").join(key).join("subject");
    let src = lab.kit.join(base).join("src");
    let files = source_files(&src)?;
    // Remove files the base no longer has, so a stale copy cannot change the build.
    let copy_src = dir.join("src");
    for old in source_files(&copy_src).unwrap_or_default() {
        if !files.contains(&old) {
            let _ = std::fs::remove_file(copy_src.join(&old));
        }
    }
    let mut sources = BTreeMap::new();
    for rel in &files {
        let from = src.join(rel);
        let text = std::fs::read_to_string(&from).map_err(|e| Error::io("read", &from, e))?;
        sources.insert(rel.clone(), text);
    }
    change(&mut sources)?;
    for (rel, text) in &sources {
        write_if_changed(&copy_src.join(rel), text)?;
    }
    let harness = lab.plugin.harness();
    let mut manifest = format!(
        "# Written by the grader; do not edit.\n[package]\nname = \"graded_{key}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[lib]\nname = \"{}\"\n\n[dependencies]\n",
        harness.code_under_test
    );
    for (name, path) in harness.subject_dependencies {
        manifest.push_str(&format!(
            "{name} = {{ path = {} }}\n",
            crate::build::toml_path(&lab.kit.join(path))
        ));
    }
    manifest.push_str(FORBID_UNSAFE);
    write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
    Ok(Subject {
        key: key.to_owned(),
        label: label.to_owned(),
        crate_dir: dir,
        // Cargo hashes a path package by its name and its path relative to the workspace,
        // which is the same for every materialized crate: only a unique name keeps their
        // builds apart in the shared target folder.
        package: format!("graded_{key}"),
        shown_dir: PathBuf::from(shown_dir),
        confined: None,
    })
}

/// Every file under `dir`, as paths relative to it, sorted.
pub(crate) fn source_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| Error::io("read", &d, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read", &d, e))?;
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                out.push(rel.to_path_buf());
            }
        }
    }
    out.sort();
    Ok(out)
}
