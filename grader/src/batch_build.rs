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
    Built, DEV_PROFILE, Harness, cargo_build, copy_kit_lock, harness_package, strip_ansi,
    write_if_changed,
};
use crate::error::Error;
use crate::lab::Lab;
use crate::provenance::hex;
use crate::race::build::Planned;
use crate::submission::{self, Ready};

/// The harness programs of a batch: `batch_harness_<key>`.
const BIN_PREFIX: &str = "batch_harness_";
/// The race harness programs of a batch: `batch_race_<key>`.
const RACE_PREFIX: &str = "batch_race_";

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
    let mut members: Vec<String> = Vec::new();
    let mut planned: BTreeMap<&str, Planned> = BTreeMap::new();
    for r in &unique {
        let key = r.subject.key.as_str();
        let bin = format!("{BIN_PREFIX}{key}");
        let manifest = format!(
            "# Written by the grader for a batch of submissions; do not edit.\n{}",
            harness_package(lab, &bin, &r.subject)
        );
        let dir = ws.join(key);
        write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
        members.push(format!("{key:?}"));
        let plan = crate::race::build::plan(lab, &dir, &format!("{RACE_PREFIX}{key}"), &r.subject)?;
        if plan.bin().is_some() {
            members.push(format!("\"{key}/race\""));
        }
        planned.insert(key, plan);
    }
    let race_profile = if planned.values().any(|p| p.bin().is_some()) {
        crate::race::build::profile()
    } else {
        String::new()
    };
    let mut root = format!(
        "# Written by the grader for a batch of submissions; do not edit.\n\
         [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n{DEV_PROFILE}{race_profile}",
        members.join(", ")
    );
    // Each submission is built once: incremental data would only cost time and disk.
    for k in &keys {
        let mut packages = vec![format!("graded_{k}"), format!("{BIN_PREFIX}{k}")];
        if planned.get(k).is_some_and(|p| p.bin().is_some()) {
            packages.extend([format!("race_{k}"), format!("{RACE_PREFIX}{k}")]);
        }
        for package in packages {
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
        race_executable: Option<PathBuf>,
        race: Vec<String>,
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
                let exe = msg["executable"].as_str().map(PathBuf::from);
                if let Some(key) = name.strip_prefix(BIN_PREFIX) {
                    if let Some(f) = found.get_mut(key) {
                        f.executable = exe;
                    }
                } else if let Some(key) = name.strip_prefix(RACE_PREFIX) {
                    if let Some(f) = found.get_mut(key) {
                        f.race_executable = exe;
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
                let manifest = msg["manifest_path"].as_str().unwrap_or("");
                let race_of = planned
                    .iter()
                    .find(|(_, p)| p.owns(manifest))
                    .map(|(k, _)| *k);
                if let Some(key) = race_of {
                    // The race build: its complaints about the crate under test say what
                    // the race checks cannot model; anything else is the kit's.
                    match (subject, found.get_mut(key)) {
                        (Some(r), Some(f)) if level == "error" => {
                            f.race.push(submission::tidy(&rendered, lab, &r.subject));
                        }
                        (None, _) if level == "error" => other.push(rendered),
                        _ => {}
                    }
                } else if let Some(r) = subject {
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
            let key = r.subject.key.as_str();
            let f = found.get(key);
            let f = Found {
                executable: f.and_then(|f| f.executable.clone()),
                subject: f.map(|f| f.subject.clone()).unwrap_or_default(),
                harness: f.map(|f| f.harness.clone()).unwrap_or_default(),
                race_executable: f.and_then(|f| f.race_executable.clone()),
                race: f.map(|f| f.race.clone()).unwrap_or_default(),
            };
            if let Some(main) = f.executable {
                let planned = planned.get(key).cloned().unwrap_or(Planned::None);
                return match crate::race::build::outcome(planned, f.race_executable, &f.race) {
                    Some(race) => Ok(Built::Harness(Harness { main, race })),
                    None => {
                        let mut log = other.join("\n");
                        log.push_str(&stderr);
                        Err(Error::KitBuild {
                            what: r.subject.label.clone(),
                            log: log.trim_end().to_owned(),
                        })
                    }
                };
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
