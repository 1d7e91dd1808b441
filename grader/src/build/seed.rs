//! A target folder of its own for each submission's build, started from a base build.
//!
//! Cargo keeps compiled dependencies in the target folder, and a build that shares one
//! can read what other builds left there (another submission's harness program, or the
//! reference's). So each submission builds into its own folder. To keep that cheap, the
//! grader first builds the lab's harness against the kit's pristine student crate into
//! a base folder (once per kit change, in the same sandbox and environment as the
//! submissions' builds), and starts each submission's folder as hard links to the base's
//! compiled dependencies: no copying, and cargo then compiles only the submission's crate
//! and the few lines of the harness program. Cargo accepts a target folder that moved;
//! the base holds nothing but public code.
//!
//! A submission's folder records the stamp of the base it was started from, and is
//! started again when the base changed.
//!
//! A lab's rehearsal program ([`super::rehearsal`]) is built against different crates
//! (an HTTP server and client) than its harness, so it has a base of its own
//! ([`Base::Rehearsal`]), built the first time a submission is rehearsed: grading never
//! pays for it.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use super::confinement::{Confinement, take_turn};
use super::materialize::materialize;
use super::{self as build, Built, blame, confined, rehearsal};
use crate::error::Error;
use crate::report::provenance::hex;
use crate::sandbox::Sandbox;
use crate::sandbox::cargo::Watch;

/// The key of the kit's pristine student crate every base is built against, and the
/// workspace name of the harness's base build.
pub const BASE_KEY: &str = "sandbox_base";

/// Which program a confined build makes; each starts from a base of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// The lab's harness programs (for grading).
    Harness,
    /// The lab's rehearsal program.
    Rehearsal,
}

impl Base {
    /// The workspace name of this base's own build.
    pub fn key(self) -> String {
        match self {
            Base::Harness => BASE_KEY.to_owned(),
            Base::Rehearsal => rehearsal::workspace_key(BASE_KEY),
        }
    }

    /// Its slot in [`Confinement`]'s list of bases.
    pub(super) fn index(self) -> usize {
        match self {
            Base::Harness => 0,
            Base::Rehearsal => 1,
        }
    }
}
impl Confinement {
    /// The target folder and stamp of the base build `which`, built on first use.
    fn base(&self, work: &Path, which: Base) -> Result<(PathBuf, String), Error> {
        self.bases[which.index()]
            .get_or_init(|| build_base(self, work, which).map_err(|e| e.to_string()))
            .clone()
            .map_err(|log| Error::KitBuild {
                what: "the kit's student crate (the base every submission's build starts from)"
                    .into(),
                log,
            })
    }
}

/// Builds a submission's workspace `ws` of the program `which` under `c`: in a target
/// folder of its own started from that program's base build, in the sandbox if there is
/// one, under the build limits, telling `watch` when its program is linked. The base
/// build itself (the workspace named [`Base::key`]) gets no limits.
pub fn build_confined(
    ws: &Path,
    work: &Path,
    select: &[&str],
    c: &Confinement,
    which: Base,
    watch: Option<Watch>,
) -> Result<Output, Error> {
    let key = ws
        .file_name()
        .map(|k| k.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (target, limits) = if key == which.key() {
        (base_dir(work, c, which), None)
    } else {
        let (base, stamp) = c.base(work, which)?;
        (target(work, c, &key, &base, &stamp)?, Some(c.build))
    };
    confined::cargo(ws, &target, select, c, limits, watch)
}

/// The file in a submission's target folder that names the base it started from.
const STAMP: &str = ".grader-base";

/// The folder of the confined builds: one per kind of confinement, since a build in the
/// sandbox and one outside see different environments.
fn flavour_dir(work: &Path, c: &Confinement) -> PathBuf {
    let flavour = match &c.sandbox {
        Some(Sandbox::Bwrap(_)) => "sandboxed",
        Some(Sandbox::Landlock(_)) => "landlocked",
        None => "unsandboxed",
    };
    work.join("confined").join(flavour)
}

/// The target folder of the base build `which`.
pub fn base_dir(work: &Path, c: &Confinement, which: Base) -> PathBuf {
    let name = match which {
        Base::Harness => "base",
        Base::Rehearsal => "base-rehearsal",
    };
    flavour_dir(work, c).join(name)
}

/// Builds the program `which` (the harness and race harness, or the rehearsal program)
/// against the kit's pristine student crate into its base folder, and returns the folder
/// and its stamp.
pub(super) fn build_base(
    c: &Confinement,
    work: &Path,
    which: Base,
) -> Result<(PathBuf, String), Error> {
    let lab = &c.lab;
    // Every base is built against the same copy of the student crate: one at a time.
    let _turn = take_turn(work, BASE_KEY)?;
    let subject = materialize(
        lab,
        work,
        BASE_KEY,
        "the kit's student crate",
        &lab.manifest.student_crate,
        &lab.manifest.student_crate,
        |_| Ok(()),
    )?;
    let (ws, bin, planned) = match which {
        Base::Harness => build::workspace(lab, &subject, work)?,
        Base::Rehearsal => {
            let program = rehearsal::of(lab)?.program();
            let (ws, bin) = rehearsal::workspace(lab, &program, &subject, work)?;
            (ws, bin, build::race::Planned::None)
        }
    };
    let mut select = vec!["--bin", bin.as_str()];
    let race_bin = planned.bin().map(str::to_owned);
    if let Some(race) = &race_bin {
        select.extend(["--workspace", "--bin", race]);
    }
    let output = build_confined(&ws, work, &select, c, which, None)?;
    if !output.status.success() {
        let linked = [blame::Linked {
            subject: &subject,
            manifest: ws.join("Cargo.toml"),
            bin,
            race: planned,
        }];
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let log = match blame::verdicts(lab, &linked, &stdout, &stderr).pop() {
            Some(Ok(Built::CompileFailed(text))) => text,
            Some(Err(e)) => e.to_string(),
            _ => stderr.into_owned(),
        };
        return Err(Error::KitBuild {
            what: subject.label,
            log: log.trim().to_owned(),
        });
    }
    let base = base_dir(work, c, which);
    Ok((base.clone(), stamp(&base)))
}

/// A stamp of the base's compiled state: every fingerprint file's name, size and time.
fn stamp(base: &Path) -> String {
    let mut listing = Vec::new();
    let prints = base.join("debug").join(".fingerprint");
    for unit in std::fs::read_dir(&prints).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(unit.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let Ok(meta) = file.metadata() else { continue };
            let time = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            listing.push(format!(
                "{}/{} {} {time}",
                unit.file_name().to_string_lossy(),
                file.file_name().to_string_lossy(),
                meta.len()
            ));
        }
    }
    listing.sort();
    hex(&Sha256::digest(listing.join("\n").as_bytes()))
}

/// The target folder of the build keyed `key`: started from `base` unless it already was
/// from the same base (`stamp`).
pub(super) fn target(
    work: &Path,
    c: &Confinement,
    key: &str,
    base: &Path,
    stamp: &str,
) -> Result<PathBuf, Error> {
    let targets = flavour_dir(work, c).join("targets");
    let target = targets.join(key);
    if std::fs::read_to_string(target.join(STAMP)).is_ok_and(|s| s == stamp) {
        return Ok(target);
    }
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let unique = format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    );
    if target.exists() {
        // Out of the way first, so a build that starts meanwhile never sees half of it.
        let old = targets.join(format!(".old-{key}-{unique}"));
        if std::fs::rename(&target, &old).is_ok() {
            let _ = std::fs::remove_dir_all(&old);
        }
    }
    let fresh = targets.join(format!(".new-{key}-{unique}"));
    link_tree(base, &fresh, 0)?;
    let stamp_file = fresh.join(STAMP);
    std::fs::write(&stamp_file, stamp).map_err(|e| Error::io("write", &stamp_file, e))?;
    if std::fs::rename(&fresh, &target).is_err() {
        // Another grader started the same folder at the same moment: use theirs.
        let _ = std::fs::remove_dir_all(&fresh);
    }
    Ok(target)
}

/// Recreates the folder `from` at `to` with every file a hard link to the original,
/// leaving out what belongs to the base build alone: cargo's lock, the programs it copied
/// to the top of the profile folder, incremental data and temporary files.
fn link_tree(from: &Path, to: &Path, depth: usize) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(|e| Error::io("create", to, e))?;
    let entries = std::fs::read_dir(from).map_err(|e| Error::io("read", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read", from, e))?;
        let name = entry.file_name();
        let (src, dst) = (entry.path(), to.join(&name));
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let skip = matches!(
            name.to_str(),
            Some(".cargo-lock" | "incremental" | "tmp" | ".rustc_info.json")
        ) || (depth == 1 && !kind.is_dir());
        if skip {
            continue;
        }
        if kind.is_dir() {
            link_tree(&src, &dst, depth + 1)?;
        } else if kind.is_symlink() {
            if let Ok(points_to) = std::fs::read_link(&src) {
                let _ = std::os::unix::fs::symlink(points_to, &dst);
            }
        } else if std::fs::hard_link(&src, &dst).is_err() {
            std::fs::copy(&src, &dst).map_err(|e| Error::io("copy", &src, e))?;
        }
    }
    Ok(())
}
