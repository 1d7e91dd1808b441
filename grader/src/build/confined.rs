//! A submission's build: cargo in the submission's sandbox (or outside it, with
//! `--no-sandbox`), seeing only the toolchain, the kit's crates it is built against and its
//! own folders, under the build limits; and confined submissions built each on its own, as
//! many at once as there are cores. Which target folder it builds into is [`super::seed`]'s.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::confinement::Confinement;
use super::{Built, Subject};
use crate::error::Error;
use crate::lab::Lab;
use crate::sandbox::cargo::{
    BUILD_FILE_BYTES, Toolchain, Watch, build_args, plain, run, toolchain,
};
use crate::sandbox::process::{self, Rlimits};
use crate::sandbox::{BuildLimits, Sandbox, bwrap, landlock};

/// Runs `cargo build` of the workspace `ws` into `target` under `c`: in the sandbox if
/// there is one, under `limits` if given, telling `watch` when its program is linked.
pub fn cargo(
    ws: &Path,
    target: &Path,
    select: &[&str],
    c: &Confinement,
    limits: Option<BuildLimits>,
    watch: Option<Watch>,
) -> Result<Output, Error> {
    let target = target.to_path_buf();
    let tmp = target.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
    let mut command = match &c.sandbox {
        None => {
            let mut command = plain(ws, &target, select);
            command.env("CARGO_INCREMENTAL", "0");
            command
        }
        Some(Sandbox::Bwrap(b)) => {
            let tc = toolchain()?;
            let mut reads = vec![tc.sysroot.clone()];
            if let Some(dir) = tc.cargo.parent().filter(|d| !d.starts_with(&tc.sysroot)) {
                reads.push(dir.to_path_buf());
            }
            reads.extend(path_packages(&tc, ws)?);
            let env = [
                (
                    "PATH",
                    format!("{}:/usr/bin:/bin", tc.sysroot.join("bin").display()),
                ),
                ("CARGO_HOME", tc.cargo_home.display().to_string()),
                ("HOME", "/tmp".to_owned()),
                ("TMPDIR", tmp.display().to_string()),
                ("CARGO_INCREMENTAL", "0".to_owned()),
                ("CARGO_TERM_COLOR", "never".to_owned()),
            ];
            let view = bwrap::View {
                reads,
                writes: vec![ws.to_path_buf(), target.clone()],
                cargo_home: Some(tc.cargo_home.clone()),
                cwd: Some(ws.to_path_buf()),
                env: env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                ..bwrap::View::default()
            };
            let mut command = b.command(&view);
            command
                .arg(&tc.cargo)
                .args(build_args(ws, &target, select))
                .arg("--offline");
            command
        }
        Some(Sandbox::Landlock(l)) => {
            let tc = toolchain()?;
            let mut reads = vec![tc.sysroot.clone()];
            if let Some(dir) = tc.cargo.parent() {
                reads.push(dir.to_path_buf());
            }
            reads.extend(path_packages(&tc, ws)?);
            for part in ["registry", "git", ".package-cache"] {
                let path = tc.cargo_home.join(part);
                if path.exists() {
                    reads.push(path);
                }
            }
            let paths = landlock::Paths {
                reads,
                writes: vec![ws.to_path_buf(), target.clone()],
            };
            let mut command = l.command(&tc.cargo, &paths, None).map_err(Error::Sandbox)?;
            command
                .args(build_args(ws, &target, select))
                .arg("--offline")
                .current_dir(ws)
                .env(
                    "PATH",
                    format!("{}:/usr/bin:/bin", tc.sysroot.join("bin").display()),
                )
                .env("CARGO_HOME", &tc.cargo_home)
                .env("HOME", &tmp)
                .env("TMPDIR", &tmp)
                .env("CARGO_INCREMENTAL", "0")
                .env("CARGO_TERM_COLOR", "never");
            command
        }
    };
    if let Some(limits) = limits {
        process::set_rlimits(
            &mut command,
            Rlimits {
                cpu_seconds: limits.cpu_seconds,
                address_space: limits.memory_bytes,
                file_size: Some(BUILD_FILE_BYTES),
            },
        );
    }
    run(command, limits, watch)
}

/// The folders of the path packages the workspace `ws` is built against (the kit's own
/// crates, outside `ws`), and the manifests above them up to their workspace's (for
/// inherited fields), found with `cargo metadata` outside the sandbox. Only these of the
/// kit are visible to the build.
fn path_packages(tc: &Toolchain, ws: &Path) -> Result<Vec<PathBuf>, Error> {
    // Workspaces that differ only in their key (every submission's, for one harness)
    // have the same packages: ask cargo once per grader run.
    static KNOWN: Mutex<Vec<(String, Vec<PathBuf>)>> = Mutex::new(Vec::new());
    let key = ws
        .file_name()
        .map(|k| k.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest = std::fs::read_to_string(ws.join("Cargo.toml"))
        .map_err(|e| Error::io("read", &ws.join("Cargo.toml"), e))?
        .replace(&key, "KEY");
    if let Some((_, dirs)) = KNOWN
        .lock()
        .ok()
        .and_then(|k| k.iter().find(|(m, _)| *m == manifest).cloned())
    {
        return Ok(dirs);
    }
    let dirs = ask_path_packages(tc, ws)?;
    if let Ok(mut known) = KNOWN.lock() {
        known.push((manifest, dirs.clone()));
    }
    Ok(dirs)
}

/// `cargo metadata` of `ws`, offline, as the sandboxed build will read it.
fn metadata(tc: &Toolchain, ws: &Path) -> Result<Output, Error> {
    Command::new(&tc.cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(ws.join("Cargo.toml"))
        .env("CARGO_TERM_COLOR", "never")
        // The toolchain's own rustc, not a rustup proxy, which takes longer to start.
        .env("RUSTC", tc.sysroot.join("bin/rustc"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::Cargo(format!("{}: {e}", tc.cargo.display())))
}

/// Downloads every crate the workspace `ws` can need (for any platform, as `cargo
/// metadata` reads them), outside the sandbox: the sandboxed build runs offline, and a
/// fresh machine has downloaded only what building the grader needed. These are the
/// kit's locked dependencies; no submission chooses them.
fn fetch(tc: &Toolchain, ws: &Path) -> Result<(), Error> {
    let out = Command::new(&tc.cargo)
        .args(["fetch", "--manifest-path"])
        .arg(ws.join("Cargo.toml"))
        .env("CARGO_TERM_COLOR", "never")
        .env("RUSTC", tc.sysroot.join("bin/rustc"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::Cargo(format!("{}: {e}", tc.cargo.display())))?;
    if out.status.success() {
        return Ok(());
    }
    Err(Error::Cargo(format!(
        "the crates a sandboxed build needs are not all downloaded, and `cargo fetch` could not download them: {}\n  help: where crates.io can be reached, run `cargo fetch --manifest-path {}` once (it downloads the kit's locked crates), then grade again",
        String::from_utf8_lossy(&out.stderr).trim(),
        ws.join("Cargo.toml").display()
    )))
}

/// [`path_packages`], asking cargo; the crates it needs are downloaded first if they
/// are not here yet.
fn ask_path_packages(tc: &Toolchain, ws: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = metadata(tc, ws)?;
    if !out.status.success() {
        fetch(tc, ws)?;
        out = metadata(tc, ws)?;
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|_| Error::KitBuild {
            what: ws.display().to_string(),
            log: format!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        })?;
    let mut dirs: Vec<PathBuf> = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        if !package["source"].is_null() {
            continue;
        }
        let Some(dir) = package["manifest_path"]
            .as_str()
            .and_then(|m| Path::new(m).parent())
        else {
            continue;
        };
        if dir.starts_with(ws) || dirs.iter().any(|d| dir.starts_with(d)) {
            continue;
        }
        dirs.retain(|d| !d.starts_with(dir));
        dirs.push(dir.to_path_buf());
    }
    // Cargo reads every manifest above a package up to its workspace's, which a package
    // that inherits fields needs; those manifests are public too.
    let mut above: Vec<PathBuf> = Vec::new();
    for dir in &dirs {
        for manifest in dir.ancestors().skip(1).map(|a| a.join("Cargo.toml")) {
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            if !above.contains(&manifest) {
                above.push(manifest);
            }
            if text.contains("[workspace]") {
                break;
            }
        }
    }
    dirs.extend(above);
    Ok(dirs)
}

/// Builds confined submissions, each in its own target folder and sandbox, as many at
/// once as there are cores; one result each, in order. Identical submissions (one key)
/// are built once.
pub fn build_each(lab: &Lab, work: &Path, subjects: &[&Subject]) -> Vec<Result<Built, Error>> {
    let mut unique: Vec<&Subject> = Vec::new();
    for s in subjects {
        if !unique.iter().any(|u| u.key == s.key) {
            unique.push(s);
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Built, Error>>>> =
        Mutex::new((0..unique.len()).map(|_| None).collect());
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|scope| {
        for _ in 0..cores.min(unique.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(subject) = unique.get(i) else { break };
                    let built = crate::build::build(lab, subject, work);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(built);
                    }
                }
            });
        }
    });
    let built: Vec<Option<Result<Built, Error>>> = results.into_inner().unwrap_or_default();
    subjects
        .iter()
        .map(|s| {
            let slot = unique
                .iter()
                .position(|u| u.key == s.key)
                .and_then(|i| built.get(i))
                .and_then(Option::as_ref);
            match slot {
                Some(Ok(b)) => Ok(b.clone()),
                Some(Err(e)) => Err(Error::KitBuild {
                    what: s.label.clone(),
                    log: e.to_string(),
                }),
                None => Err(Error::KitBuild {
                    what: s.label.clone(),
                    log: "the build did not run".into(),
                }),
            }
        })
        .collect()
}
