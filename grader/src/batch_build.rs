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
//! Diagnostics are read as in [`crate::build`]: messages about a submission's crate are
//! its compile errors; errors in the harness program that belong to a submission's
//! package mean its public items do not match what the harness calls; anything else is a
//! broken kit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::build::{
    Built, DEV_PROFILE, cargo_build, copy_kit_lock, harness_package, strip_ansi, write_if_changed,
};
use crate::error::Error;
use crate::lab::Lab;
use crate::provenance::hex;
use crate::submission::{self, Ready};

/// The harness programs of a batch: `batch_harness_<key>`.
const BIN_PREFIX: &str = "batch_harness_";

/// Builds every one of `readies`; one result each, in order. `Err` for the whole call
/// only when cargo cannot be started or the workspace cannot be written.
pub fn build_many(
    lab: &Lab,
    work: &Path,
    readies: &[&Ready],
) -> Result<Vec<Result<Built, Error>>, Error> {
    if readies.is_empty() {
        return Ok(Vec::new());
    }
    // Identical submissions share a key, and so one build.
    let mut unique: Vec<&Ready> = Vec::new();
    for r in readies {
        if !unique.iter().any(|u| u.subject.key == r.subject.key) {
            unique.push(r);
        }
    }
    let keys: Vec<&str> = unique.iter().map(|r| r.subject.key.as_str()).collect();
    let ws = work.join("builds").join(format!(
        "batch_{}",
        &hex(&Sha256::digest(keys.join(",")))[..16]
    ));
    for r in &unique {
        let bin = format!("{BIN_PREFIX}{}", r.subject.key);
        let manifest = format!(
            "# Written by the grader for a batch of submissions; do not edit.\n{}",
            harness_package(lab, &bin, &r.subject)
        );
        write_if_changed(&ws.join(&r.subject.key).join("Cargo.toml"), &manifest)?;
    }
    let members: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    let mut root = format!(
        "# Written by the grader for a batch of submissions; do not edit.\n\
         [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n{DEV_PROFILE}",
        members.join(", ")
    );
    // Each submission is built once: incremental data would only cost time and disk.
    for k in &keys {
        for package in [format!("graded_{k}"), format!("{BIN_PREFIX}{k}")] {
            root.push_str(&format!(
                "\n[profile.dev.package.{package}]\nincremental = false\n"
            ));
        }
    }
    write_if_changed(&ws.join("Cargo.toml"), &root)?;
    copy_kit_lock(lab, &ws)?;
    let output = cargo_build(&ws, work, &["--workspace", "--bins", "--keep-going"])?;

    #[derive(Default)]
    struct Found {
        executable: Option<PathBuf>,
        subject: Vec<(bool, String)>,
        harness: Vec<String>,
    }
    let mut found: BTreeMap<&str, Found> = keys.iter().map(|k| (*k, Found::default())).collect();
    let mut other = Vec::new();
    let owner = |manifest: &str| {
        keys.iter()
            .copied()
            .find(|k| Path::new(manifest) == ws.join(k).join("Cargo.toml"))
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        match msg["reason"].as_str() {
            Some("compiler-artifact") => {
                let name = msg["target"]["name"].as_str().unwrap_or("");
                if let Some(key) = name.strip_prefix(BIN_PREFIX) {
                    if let (Some(f), Some(exe)) = (found.get_mut(key), msg["executable"].as_str()) {
                        f.executable = Some(PathBuf::from(exe));
                    }
                }
            }
            Some("compiler-message") => {
                let level = msg["message"]["level"].as_str().unwrap_or("");
                let rendered = strip_ansi(msg["message"]["rendered"].as_str().unwrap_or(""));
                let src = Path::new(msg["target"]["src_path"].as_str().unwrap_or(""));
                let subject = unique
                    .iter()
                    .find(|r| src.starts_with(&r.subject.crate_dir));
                if let Some(r) = subject {
                    if level == "error" || level == "warning" {
                        if let Some(f) = found.get_mut(r.subject.key.as_str()) {
                            f.subject.push((level == "error", rendered));
                        }
                    }
                } else if level == "error" {
                    match owner(msg["manifest_path"].as_str().unwrap_or("")) {
                        Some(key) => {
                            if let Some(f) = found.get_mut(key) {
                                f.harness.push(rendered);
                            }
                        }
                        None => other.push(rendered),
                    }
                }
            }
            _ => {}
        }
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let results = readies
        .iter()
        .map(|r| {
            let f = found.get(r.subject.key.as_str());
            let f = Found {
                executable: f.and_then(|f| f.executable.clone()),
                subject: f.map(|f| f.subject.clone()).unwrap_or_default(),
                harness: f.map(|f| f.harness.clone()).unwrap_or_default(),
            };
            if let Some(exe) = f.executable {
                return Ok(Built::Harness(crate::build::Harness {
                    main: exe,
                    race: crate::race::Race::None,
                }));
            }
            if f.subject.iter().any(|(is_error, _)| *is_error) {
                let text: Vec<String> = f.subject.into_iter().map(|(_, t)| t).collect();
                return Ok(Built::CompileFailed(submission::tidy(
                    text.join("\n").trim_end(),
                    lab,
                    &r.subject,
                )));
            }
            if !f.harness.is_empty() && other.is_empty() {
                return Ok(Built::CompileFailed(submission::api_mismatch(
                    lab,
                    &r.subject,
                    &f.harness.join("\n"),
                )));
            }
            let mut log = other.join("\n");
            log.push_str(&stderr);
            Err(Error::KitBuild {
                what: r.subject.label.clone(),
                log: log.trim_end().to_owned(),
            })
        })
        .collect();
    Ok(results)
}
