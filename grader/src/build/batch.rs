//! Building many submissions with one cargo call.
//!
//! Cargo holds a lock on its target folder for the length of a build, so separate builds
//! sharing the compiled dependencies run one after the other, each paying cargo's start-up
//! and using one core for one small crate. Here one generated workspace has a harness
//! package per submission (`batch_harness_<key>`, linked with `graded_<key>`; named apart
//! from `grader check`'s `lab_harness_<key>`, which may build the same code), and one
//! `cargo build --keep-going` compiles them side by side on every core; a submission
//! that does not compile stops only its own harness.
//!
//! Diagnostics are read as for one crate ([`super::blame`]): messages about a
//! submission's crate are its compile errors; errors in its harness program that involve
//! its code mean its public items do not match what the harness calls; anything else is
//! a broken kit.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::blame::{self, Linked};
use super::profile::{Incremental, profile};
use super::race;
use super::{Built, Subject, cargo_build, copy_kit_lock, harness_package, write_if_changed};
use crate::error::Error;
use crate::lab::Lab;
use crate::report::provenance::hex;

/// The harness programs of a batch: `batch_harness_<key>`.
const BIN_PREFIX: &str = "batch_harness_";
/// The race harness programs of a batch: `batch_race_<key>`.
const RACE_PREFIX: &str = "batch_race_";

/// Builds every one of `subjects`; one result each, in order. `Err` for the whole call
/// only when cargo cannot be started or the workspace cannot be written.
pub fn build_many(
    lab: &Lab,
    work: &Path,
    subjects: &[&Subject],
) -> Result<Vec<Result<Built, Error>>, Error> {
    if subjects.is_empty() {
        return Ok(Vec::new());
    }
    // Submissions graded in a sandbox never share a build (see `super::confined`).
    if subjects.iter().all(|s| s.confined.is_some()) {
        return Ok(super::confined::build_each(lab, work, subjects));
    }
    // Identical submissions share a key, and so one build.
    let mut unique: Vec<&Subject> = Vec::new();
    for s in subjects {
        if !unique.iter().any(|u| u.key == s.key) {
            unique.push(s);
        }
    }
    let keys: Vec<&str> = unique.iter().map(|s| s.key.as_str()).collect();
    let ws = work.join("builds").join(format!(
        "batch_{}",
        &hex(&Sha256::digest(keys.join(",")))[..16]
    ));
    let mut members: Vec<String> = Vec::new();
    let mut planned: Vec<race::Planned> = Vec::new();
    for s in &unique {
        let bin = format!("{BIN_PREFIX}{}", s.key);
        let manifest = format!(
            "# Written by the grader for a batch of submissions; do not edit.\n{}",
            harness_package(lab, &bin, s)
        );
        let dir = ws.join(&s.key);
        write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
        members.push(format!("{:?}", s.key));
        let plan = race::plan(lab, &dir, &format!("{RACE_PREFIX}{}", s.key), s)?;
        if plan.bin().is_some() {
            members.push(format!("\"{}/race\"", s.key));
        }
        planned.push(plan);
    }
    // Each submission is built once: incremental data would only cost time and disk.
    let mut under_test = Vec::new();
    let mut programs = Vec::new();
    for (s, plan) in unique.iter().zip(&planned) {
        under_test.push(s.package.clone());
        programs.push(format!("{BIN_PREFIX}{}", s.key));
        if let Some(bin) = plan.bin() {
            under_test.push(race::twin(s));
            programs.push(bin.to_owned());
        }
    }
    let root = format!(
        "# Written by the grader for a batch of submissions; do not edit.\n\
         [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n{}",
        members.join(", "),
        profile(lab, &under_test, &programs, Incremental::No)
    );
    write_if_changed(&ws.join("Cargo.toml"), &root)?;
    copy_kit_lock(lab, &ws)?;
    let output = cargo_build(&ws, work, &["--workspace", "--bins", "--keep-going"], None)?;

    let linked: Vec<Linked<'_>> = unique
        .iter()
        .zip(planned)
        .map(|(s, race)| Linked {
            subject: s,
            manifest: ws.join(&s.key).join("Cargo.toml"),
            bin: format!("{BIN_PREFIX}{}", s.key),
            race,
        })
        .collect();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let verdicts = blame::verdicts(lab, &linked, &stdout, &stderr);
    // One result per subject asked for; identical ones share their build's.
    let results = subjects
        .iter()
        .map(|s| match unique.iter().position(|u| u.key == s.key) {
            Some(i) => match &verdicts[i] {
                Ok(built) => Ok(built.clone()),
                Err(Error::KitBuild { what, log }) => Err(Error::KitBuild {
                    what: what.clone(),
                    log: log.clone(),
                }),
                Err(e) => Err(Error::KitBuild {
                    what: s.label.clone(),
                    log: e.to_string(),
                }),
            },
            None => Err(Error::KitBuild {
                what: s.label.clone(),
                log: "cargo said nothing about this harness".into(),
            }),
        })
        .collect();
    Ok(results)
}
