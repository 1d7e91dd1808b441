//! Which of the kit's workspace members an edition of some labs holds.
//!
//! An edition holds the grader and, for each of its labs, the lab's own crates (every
//! member under `labs/<lab>/`) and its student crate, with every crate those depend on.
//! The grader is the one member that depends on every lab (through their plug-ins): its
//! edges to the plug-ins of labs the edition leaves out are not followed, and
//! [`super::cargo_files`] writes it without them. So a crate shared by several labs
//! (a kit crate, a fixture, a race twin) is kept when one of the edition's labs needs it,
//! and every crate only other labs need is left out, as are the reference solutions.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::error::Error;
use crate::lab::Lab;

/// A package of the kit's workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// Its name.
    pub name: String,
    /// Its folder, relative to the kit.
    pub dir: String,
    /// The workspace packages it depends on (any kind of dependency).
    pub deps: Vec<String>,
}

/// The members an edition keeps and leaves out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Members {
    /// Kept, in the kit's order.
    pub kept: Vec<Package>,
    /// Left out, in the kit's order.
    pub dropped: Vec<Package>,
}

impl Members {
    /// The folders of the members left out.
    pub fn dropped_dirs(&self) -> Vec<String> {
        self.dropped.iter().map(|p| p.dir.clone()).collect()
    }

    /// The names of the packages left out.
    pub fn dropped_names(&self) -> Vec<String> {
        self.dropped.iter().map(|p| p.name.clone()).collect()
    }
}

/// The kit's workspace packages, with their dependencies on each other, as cargo reads
/// the manifests (no dependency is resolved or downloaded).
pub fn packages(kit: &Path) -> Result<Vec<Package>, Error> {
    let out = Command::new(crate::sandbox::cargo::program())
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(kit.join("Cargo.toml"))
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .map_err(|e| Error::Cargo(format!("cargo metadata: {e}")))?;
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        Error::Usage(format!(
            "cannot read the kit's workspace: cargo metadata says {}\n  help: fix Cargo.toml so that `cargo metadata --no-deps` reads it",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })?;
    let root = Path::new(meta["workspace_root"].as_str().unwrap_or(""));
    let all = meta["packages"].as_array().cloned().unwrap_or_default();
    let names: BTreeSet<String> = all
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect();
    let mut packages = Vec::new();
    for p in &all {
        let name = p["name"].as_str().unwrap_or("").to_owned();
        let manifest = Path::new(p["manifest_path"].as_str().unwrap_or(""));
        let dir = manifest
            .parent()
            .and_then(|d| d.strip_prefix(root).ok())
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let mut deps: Vec<String> = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d.get("path").is_some())
            .filter_map(|d| d["name"].as_str().map(str::to_owned))
            .filter(|d| names.contains(d))
            .collect();
        deps.sort();
        deps.dedup();
        packages.push(Package { name, dir, deps });
    }
    Ok(packages)
}

/// A lab an edition holds, as [`select`] needs it.
#[derive(Clone, Debug)]
pub struct Wanted {
    /// The lab's name (`lab5`).
    pub name: String,
    /// Its student crate's folder, relative to the kit.
    pub student_crate: String,
    /// Its harness crate's folder (`lab.json`'s `harness`), which holds the harness
    /// program's package too.
    pub harness: String,
}

impl Wanted {
    /// What [`select`] needs of `lab`.
    pub fn of(lab: &Lab) -> Wanted {
        Wanted {
            name: lab.manifest.name.clone(),
            student_crate: lab.manifest.student_crate.clone(),
            harness: lab.manifest.harness.clone(),
        }
    }
}

/// The members of an edition of `labs`, out of `packages`,
/// ordered as the kit's `members` lists them. `grader` is the grader's package name;
/// `solutions` the folders of every lab's reference solution; `all_labs` every lab of
/// the kit.
pub fn select(
    packages: &[Package],
    members: &[String],
    labs: &[Wanted],
    all_labs: &[String],
    grader: &str,
    solutions: &[String],
) -> Result<Members, Error> {
    let under = |dir: &str, folder: &str| Path::new(dir).starts_with(folder);
    let others: Vec<String> = all_labs
        .iter()
        .filter(|l| !labs.iter().any(|lab| &lab.name == *l))
        .map(|l| format!("labs/{l}"))
        .collect();
    let by_name = |name: &str| packages.iter().find(|p| p.name == name);
    let mut roots: Vec<&Package> = packages.iter().filter(|p| p.name == grader).collect();
    for lab in labs {
        let folder = format!("labs/{}", lab.name);
        roots.extend(packages.iter().filter(|p| {
            under(&p.dir, &folder)
                || under(&p.dir, &lab.harness)
                || Path::new(&p.dir) == Path::new(&lab.student_crate)
        }));
    }
    let mut kept: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<&Package> = roots;
    while let Some(p) = stack.pop() {
        if !kept.insert(p.name.clone()) {
            continue;
        }
        for dep in &p.deps {
            let Some(d) = by_name(dep) else { continue };
            // The grader reaches every lab through its plug-in: only the edition's.
            if p.name == grader && others.iter().any(|o| under(&d.dir, o)) {
                continue;
            }
            if solutions.iter().any(|s| under(&d.dir, s)) {
                return Err(Error::Usage(format!(
                    "{} depends on {}, a reference solution, which no student edition holds\n  help: remove that dependency from {}/Cargo.toml",
                    p.dir, d.dir, p.dir
                )));
            }
            stack.push(d);
        }
    }
    let mut out = Members::default();
    for member in members {
        let Some(p) = packages
            .iter()
            .find(|p| Path::new(&p.dir) == Path::new(member))
        else {
            continue;
        };
        if kept.contains(&p.name) {
            out.kept.push(p.clone());
        } else {
            out.dropped.push(p.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, dir: &str, deps: &[&str]) -> Package {
        Package {
            name: name.into(),
            dir: dir.into(),
            deps: deps.iter().map(|d| (*d).to_owned()).collect(),
        }
    }

    fn kit() -> Vec<Package> {
        vec![
            p("kit", "crates/kit", &[]),
            p("a_student", "crates/a", &["kit"]),
            p("b_student", "crates/b", &["kit"]),
            p("a_plugin", "labs/a/plugin", &["kit"]),
            p("b_plugin", "labs/b/plugin", &["b_twin", "kit"]),
            p("a_twin", "labs/a/twins/kit", &[]),
            p("b_twin", "labs/b/twins/kit", &["a_twin"]),
            p("a_solution", "solutions/a", &["kit"]),
            p("grader", "grader", &["a_plugin", "b_plugin"]),
        ]
    }

    fn names(ps: &[Package]) -> Vec<&str> {
        ps.iter().map(|p| p.name.as_str()).collect()
    }

    fn wanted(name: &str) -> Wanted {
        Wanted {
            name: name.into(),
            student_crate: format!("crates/{name}"),
            harness: format!("labs/{name}/harness"),
        }
    }

    #[test]
    fn a_shared_crate_stays_and_another_labs_crates_go() {
        let packages = kit();
        let members: Vec<String> = packages.iter().map(|p| p.dir.clone()).collect();
        let all = ["a".to_owned(), "b".to_owned()];
        let solutions = ["solutions/a".to_owned()];
        let b = select(
            &packages,
            &members,
            &[wanted("b")],
            &all,
            "grader",
            &solutions,
        )
        .expect("selected");
        // Lab b's plug-in and twin, the twin of lab a it stands on, the shared kit crate.
        assert_eq!(
            names(&b.kept),
            ["kit", "b_student", "b_plugin", "a_twin", "b_twin", "grader"]
        );
        assert_eq!(names(&b.dropped), ["a_student", "a_plugin", "a_solution"]);
        let both = select(
            &packages,
            &members,
            &[wanted("a"), wanted("b")],
            &all,
            "grader",
            &solutions,
        )
        .expect("selected");
        assert_eq!(names(&both.dropped), ["a_solution"]);
    }

    #[test]
    fn a_kept_crate_that_needs_a_solution_stops_the_release() {
        let mut packages = kit();
        packages[3].deps.push("a_solution".into());
        let members: Vec<String> = packages.iter().map(|p| p.dir.clone()).collect();
        let err = select(
            &packages,
            &members,
            &[wanted("a")],
            &["a".to_owned()],
            "grader",
            &["solutions/a".to_owned()],
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("labs/a/plugin depends on solutions/a"),
            "{err}"
        );
    }
}
