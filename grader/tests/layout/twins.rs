//! The race twins (`labs/*/race/twins/*` and `grader/race/twins/*`: packages with no
//! source of their own, whose `[lib] path` is another package's) stand on the same crates as the originals they
//! build: `std` and `core` are the explorer's (`race_std`, `race_core`), each dependency of
//! the original is that dependency's twin under the name the code uses, and nothing else.
//! A crate with no twin is built on the real `std`: its locks and condition variables would
//! run outside the explorer, which would neither see nor schedule them. Only the crates in
//! [`REAL_STD`] may be, each used for the items named there and nothing else.
//!
//! The manifests are read through `cargo metadata --no-deps` (one call, no build), which
//! resolves what they inherit from the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Crates a twin may use although they run on the real `std`: (twin, crate, the items of
/// the crate its original's code may name). `fixture_script` implements the harness's
/// `Notifier` trait for its change counter; it calls none of the harness's locks.
const REAL_STD: &[(&str, &str, &[&str])] =
    &[("fixture_script_race", "grader_harness", &["Notifier"])];

/// `std` and `core`, as every twin must see them.
const RUNTIME: [(&str, &str); 2] = [("std", "race_std"), ("core", "race_core")];

/// One package of the workspace, as far as the check needs it.
struct Package {
    name: String,
    dir: PathBuf,
    /// Its library's root file.
    lib: Option<PathBuf>,
    /// Each dependency: (the name its code uses, the package, its kind).
    dependencies: Vec<(String, String, String)>,
}

fn metadata() -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(crate::root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn packages(meta: &Value) -> Vec<Package> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    meta["packages"]
        .as_array()
        .expect("cargo metadata lists packages")
        .iter()
        .map(|p| Package {
            name: text(&p["name"]),
            dir: Path::new(&text(&p["manifest_path"]))
                .parent()
                .expect("a manifest is in a folder")
                .to_path_buf(),
            lib: p["targets"].as_array().into_iter().flatten().find_map(|t| {
                let kinds = t["kind"].as_array()?;
                kinds
                    .iter()
                    .any(|k| k == "lib" || k == "rlib")
                    .then(|| canonical(Path::new(&text(&t["src_path"]))))
            }),
            dependencies: p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| {
                    let package = text(&d["name"]);
                    let used_as = d["rename"].as_str().map_or(package.clone(), str::to_owned);
                    let kind = d["kind"].as_str().unwrap_or("normal").to_owned();
                    (used_as.replace('-', "_"), package, kind)
                })
                .collect(),
        })
        .collect()
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `package` is a race twin: a package under `labs/<lab>/race/twins/` (a twin of
/// one lab's crate) or `grader/race/twins/` (of a crate several labs stand on).
fn is_twin(root: &Path, package: &Package) -> bool {
    if let Ok(rest) = package.dir.strip_prefix(root.join("labs")) {
        let parts: Vec<_> = rest.iter().collect();
        return parts.len() == 4 && parts[1] == "race" && parts[2] == "twins";
    }
    package
        .dir
        .strip_prefix(root.join("grader/race/twins"))
        .is_ok_and(|rest| rest.iter().count() == 1)
}

/// What is wrong with the twins of the workspace `meta` describes, each problem a line.
fn problems(root: &Path, meta: &Value) -> Vec<String> {
    let all = packages(meta);
    let (twins, others): (Vec<&Package>, Vec<&Package>) =
        all.iter().partition(|p| is_twin(root, p));
    let mut out = Vec::new();
    // Each twin's original, and the twin of each original.
    let mut original_of: BTreeMap<&str, &Package> = BTreeMap::new();
    let mut twin_of: BTreeMap<&str, &str> = BTreeMap::new();
    for twin in &twins {
        let original = others.iter().find(|o| o.lib.is_some() && o.lib == twin.lib);
        match original {
            Some(o) => {
                original_of.insert(&twin.name, o);
                twin_of.insert(&o.name, &twin.name);
            }
            None => out.push(format!(
                "{}/Cargo.toml: twin `{}` builds {}, which no other package of the workspace \
                 builds: point its `[lib] path` at the original's library",
                shown(root, &twin.dir),
                twin.name,
                twin.lib
                    .as_deref()
                    .map_or("no library".into(), |l| l.display().to_string())
            )),
        }
    }
    for twin in &twins {
        let Some(original) = original_of.get(twin.name.as_str()) else {
            continue;
        };
        let manifest = format!("{}/Cargo.toml", shown(root, &twin.dir));
        // What the twin must depend on: the runtime, and each of the original's crates.
        let mut wanted: Vec<(String, String)> = RUNTIME
            .iter()
            .map(|(used_as, package)| (used_as.to_string(), package.to_string()))
            .collect();
        for (used_as, package, kind) in &original.dependencies {
            if kind != "normal" {
                continue;
            }
            if let Some(twin_package) = twin_of.get(package.as_str()) {
                wanted.push((used_as.clone(), twin_package.to_string()));
            } else if let Some((_, _, items)) = REAL_STD
                .iter()
                .find(|(t, c, _)| *t == twin.name && c == package)
            {
                out.extend(uses_only(root, original, used_as, items));
                wanted.push((used_as.clone(), package.clone()));
            } else {
                out.push(format!(
                    "{manifest}: `{}` depends on `{package}`, which has no race twin, so \
                     `{}` would run its locks on the real std, outside the explorer: give \
                     `{package}` a twin under labs/<lab>/race/twins/ (or grader/race/twins/ \
                     if several labs use it) and depend on that",
                    original.name, twin.name
                ));
            }
        }
        for (used_as, package) in &wanted {
            let found = twin
                .dependencies
                .iter()
                .find(|(u, _, kind)| u == used_as && kind == "normal");
            match found {
                Some((_, p, _)) if p == package => {}
                Some((_, p, _)) => out.push(format!(
                    "{manifest}: `{used_as}` is `{p}`, but `{}`'s twin needs `{package}` there: \
                     `{used_as} = {{ package = \"{package}\", path = ... }}`",
                    original.name
                )),
                None => out.push(format!(
                    "{manifest}: `{}` has no dependency `{used_as}` (`{package}`), which the \
                     original `{}` needs: add it",
                    twin.name, original.name
                )),
            }
        }
        for (used_as, package, kind) in &twin.dependencies {
            // A wanted name bound to the wrong package is told above.
            if kind == "normal" && wanted.iter().any(|(u, p)| u == used_as && p != package) {
                continue;
            }
            let expected =
                kind == "normal" && wanted.iter().any(|(u, p)| u == used_as && p == package);
            if !expected {
                out.push(format!(
                    "{manifest}: `{}` depends on `{package}` (as `{used_as}`, {kind}), which the \
                     original `{}` does not: a twin stands on its original's crates only (a \
                     crate without a twin runs on the real std, outside the explorer): remove it, \
                     or add it to `{}` and give it a twin",
                    twin.name, original.name, original.name
                ));
            }
        }
    }
    out.extend(misplaced(root, &all, &twins));
    out
}

/// The lab whose folder holds `package` (`labs/<lab>/...`), or `None` for one outside the
/// labs' folders (the grader's, the kit's crates).
fn lab_of(root: &Path, package: &Package) -> Option<String> {
    let rest = package.dir.strip_prefix(root.join("labs")).ok()?;
    rest.iter()
        .next()
        .map(|lab| lab.to_string_lossy().into_owned())
}

/// Twins in one lab's folder that another lab's packages (or a shared twin) use: a twin
/// several labs stand on lives in `grader/race/twins/`, where no lab's edition leaves it
/// out and no lab's changes move it.
fn misplaced(root: &Path, all: &[Package], twins: &[&Package]) -> Vec<String> {
    let mut out = Vec::new();
    for twin in twins {
        let Some(home) = lab_of(root, twin) else {
            continue;
        };
        for user in all {
            let uses = user.dependencies.iter().any(|(_, p, _)| *p == twin.name);
            if !uses || lab_of(root, user).as_deref() == Some(home.as_str()) {
                continue;
            }
            out.push(format!(
                "{}: `{}` uses `{}`, a twin in {home}'s folder ({}): a twin several labs use \
                 belongs in grader/race/twins/",
                shown(root, &user.dir.join("Cargo.toml")),
                user.name,
                twin.name,
                shown(root, &twin.dir)
            ));
        }
    }
    out
}

/// Whether the sources of `package` name only `items` of the crate they call `used_as`.
fn uses_only(root: &Path, package: &Package, used_as: &str, items: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![package.dir.join("src")];
    let prefix = format!("{used_as}::");
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                for (at, _) in line.match_indices(&prefix) {
                    let rest = &line[at + prefix.len()..];
                    let item: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !items.contains(&item.as_str()) {
                        out.push(format!(
                            "{}:{}: `{}` uses `{prefix}{rest}`, but its race twin may use only \
                             {items:?} of `{used_as}`, which runs on the real std: give \
                             `{used_as}` a twin, or keep to those items",
                            shown(root, &path),
                            n + 1,
                            package.name,
                        ));
                    }
                }
            }
        }
    }
    out
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn twins_stand_on_their_originals_crates() {
    let root = canonical(&crate::root());
    let meta = metadata();
    let twins: Vec<Package> = packages(&meta)
        .into_iter()
        .filter(|p| is_twin(&root, p))
        .collect();
    assert!(
        twins.len() >= 13,
        "found only {} race twins under labs/*/race/twins and grader/race/twins",
        twins.len()
    );
    // The twins several labs use are found where they live too (waiting_clock's).
    assert!(
        twins
            .iter()
            .any(|t| t.dir.starts_with(root.join("grader/race/twins"))),
        "no race twin found under grader/race/twins"
    );
    let problems = problems(&root, &meta);
    assert!(
        problems.is_empty(),
        "the race twins drift:\n{}",
        problems.join("\n")
    );
}

/// The check on the workspace with `package` given one more dependency, `dependency`, as a
/// manifest that drifted would be.
fn problems_with_dependency(package: &str, dependency: &str) -> Vec<String> {
    let root = canonical(&crate::root());
    let mut meta = metadata();
    let found = meta["packages"]
        .as_array_mut()
        .expect("packages")
        .iter_mut()
        .find(|p| p["name"] == package)
        .unwrap_or_else(|| panic!("{package} is a package of the workspace"));
    found["dependencies"]
        .as_array_mut()
        .expect("its dependencies")
        .push(serde_json::json!({"name": dependency, "rename": null, "kind": null}));
    problems(&root, &meta)
}

/// A twin given a crate built on the real std (`grader_harness`, which takes locks).
#[test]
fn a_twin_with_a_real_std_crate_fails() {
    let problems = problems_with_dependency("relay_kit_race", "grader_harness");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`relay_kit_race` depends on `grader_harness`")),
        "{problems:?}"
    );
}

/// An original that gains a crate with no twin: its twin cannot follow without leaving the
/// explorer, and the check says so.
#[test]
fn an_original_with_an_untwinned_crate_fails() {
    let problems = problems_with_dependency("gateway_kit", "serde_json");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`gateway_kit` depends on `serde_json`, which has no race twin")),
        "{problems:?}"
    );
}

/// Another lab's packages on a twin that lives in lab 4's folder: the check says where
/// it belongs.
#[test]
fn a_twin_in_one_lab_s_folder_that_another_lab_uses_fails() {
    let problems = problems_with_dependency("lab5_race", "fixture_targets_race");
    assert!(
        problems.iter().any(|p| p
            .contains("`lab5_race` uses `fixture_targets_race`, a twin in lab4's folder")
            && p.contains("belongs in grader/race/twins/")),
        "{problems:?}"
    );
}
