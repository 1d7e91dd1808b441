//! The student edition of a kit: what `grader release` writes.
//!
//! The edition is built from an allowlist, never by deleting from a copy, so a folder
//! added to the kit later (notes, exams, a second solution) stays out until someone
//! decides it belongs in. What goes in:
//!
//! - the root files a build needs or a student reads ([`ROOT_FILES`]), with `Cargo.toml`'s
//!   workspace members and `Cargo.lock` rewritten to leave the solutions out, and the CI
//!   files a student repository runs ([`CI_PARTS`]);
//! - every workspace member that is not a lab's reference solution: its `Cargo.toml`,
//!   `build.rs`, `README.md` and `src/`; the lab's student crate whole;
//! - from the lab folder: `lab.json`, `README.md`, the scenario schema, `scenarios/` and
//!   the rehearsal script.
//!
//! So the reference solution, `hidden/`, `mutants/`, the instructors' documentation and
//! the grader's own test suite (which grades the reference and the mutants) stay out.
//! Before writing, the lab must validate; after writing, the edition is checked again:
//! its lab must validate, no file may be a copy of a solution file, and no file may name a
//! hidden scenario.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::lab::{Lab, available_labs};
use crate::validation;

/// Files of the kit root that go into the edition when they exist.
pub const ROOT_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "ARCHITECTURE.md",
    "clippy.toml",
    "rustfmt.toml",
    ".rustfmt.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".cargo/config.toml",
    ".gitignore",
    "LICENSE",
    "LICENSE-MIT",
    "LICENSE-APACHE",
];

/// CI files that go into the edition when they exist: the GitHub workflow of a student
/// repository checks out the student edition and runs its grading script.
pub const CI_PARTS: &[&str] = &["ci/github"];

/// Files and folders of a workspace member that go into the edition when they exist.
pub const MEMBER_PARTS: &[&str] = &["Cargo.toml", "build.rs", "README.md", "src"];

/// Files and folders of the lab folder that go into the edition when they exist.
pub const LAB_PARTS: &[&str] = &[
    "lab.json",
    "README.md",
    crate::schema::FILE_NAME,
    "scenarios",
    crate::rehearse::script::FILE_NAME,
];

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Released {
    /// Files written.
    pub files: usize,
    /// Kit paths not copied (top-level entries, and the lab folder's), for the record.
    pub left_out: Vec<String>,
    /// Workspace members dropped from `Cargo.toml`.
    pub dropped_members: Vec<String>,
    /// Hidden scenarios left out, and their points.
    pub hidden: (usize, u32),
}

/// Writes the student edition of `lab` to `out`, which must not exist or be empty.
pub fn release(lab: &Lab, out: &Path) -> Result<Released, Error> {
    let report = validation::lab(lab);
    let problems = report.all_problems();
    if !problems.is_empty() {
        return Err(validation::refusal(&problems, "released"));
    }
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| Error::io("read", out, e))?
            .next()
            .is_none();
        if !empty {
            return Err(Error::Usage(format!(
                "{} already exists and is not empty\n  help: give a new folder, or remove this one first",
                out.display()
            )));
        }
    }
    let created = !out.exists();
    std::fs::create_dir_all(out).map_err(|e| Error::io("create", out, e))?;
    let result = write(lab, out, &report);
    if result.is_err() {
        // Leave nothing half-written behind.
        if created {
            let _ = std::fs::remove_dir_all(out);
        } else if let Ok(entries) = std::fs::read_dir(out) {
            for entry in entries.flatten() {
                let p = entry.path();
                let _ = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
            }
        }
    }
    result
}

fn write(lab: &Lab, out: &Path, report: &validation::LabReport) -> Result<Released, Error> {
    let kit = &lab.kit;
    let manifest_text = read(&kit.join("Cargo.toml"))?;
    let members = workspace_members(&manifest_text);
    let solutions = solution_crates(kit);
    let (kept, dropped): (Vec<String>, Vec<String>) = members
        .into_iter()
        .partition(|m| !is_solution(m, &solutions));
    // Every kit path to copy, relative to the kit.
    let mut sources: Vec<PathBuf> = ROOT_FILES
        .iter()
        .filter(|name| !matches!(**name, "Cargo.toml" | "Cargo.lock" | "README.md"))
        .chain(CI_PARTS)
        .map(PathBuf::from)
        .collect();
    for member in &kept {
        sources.extend(MEMBER_PARTS.iter().map(|part| Path::new(member).join(part)));
    }
    sources.push(PathBuf::from(&lab.manifest.student_crate));
    let lab_rel = Path::new("labs").join(&lab.manifest.name);
    sources.extend(LAB_PARTS.iter().map(|part| lab_rel.join(part)));
    sources.retain(|rel| kit.join(rel).exists());
    let out_abs = out.canonicalize().map_err(|e| Error::io("open", out, e))?;
    if let Some(inside) = sources
        .iter()
        .find(|rel| out_abs.starts_with(kit.join(rel)))
    {
        return Err(Error::Usage(format!(
            "{} is inside {}, which the student edition copies\n  help: write the edition outside the kit, such as ../{}-student",
            out.display(),
            inside.display(),
            lab.manifest.name
        )));
    }
    let mut files = 0;
    for rel in &sources {
        files += copy_tree(&kit.join(rel), &out.join(rel))?;
    }
    let mut copied: BTreeSet<PathBuf> = sources.into_iter().collect();
    // The rewritten files.
    let rewritten = rewrite_manifest(&manifest_text, &dropped)?;
    put(&out.join("Cargo.toml"), &rewritten)?;
    files += 1;
    let dropped_packages: Vec<String> = dropped
        .iter()
        .filter_map(|m| std::fs::read_to_string(kit.join(m).join("Cargo.toml")).ok())
        .filter_map(|t| package_name(&t))
        .collect();
    if let Ok(lock) = std::fs::read_to_string(kit.join("Cargo.lock")) {
        put(
            &out.join("Cargo.lock"),
            &rewrite_lock(&lock, &dropped_packages),
        )?;
        files += 1;
    }
    let hidden: Vec<_> =
        validation::load_scenarios(lab, &validation::json_files(&lab.hidden_dir())).scenarios;
    let hidden_points: u32 = hidden.iter().map(|s| s.points).sum();
    let readme = std::fs::read_to_string(kit.join("README.md")).unwrap_or_default();
    let note = edition_note(lab, hidden.len(), hidden_points, report.counts.mutants);
    put(
        &out.join("README.md"),
        &format!(
            "{}{}{note}",
            readme,
            if readme.is_empty() { "" } else { "\n" }
        ),
    )?;
    files += 1;
    for extra in ["Cargo.toml", "Cargo.lock", "README.md"] {
        copied.insert(PathBuf::from(extra));
    }
    let mut left_out = Vec::new();
    list_left_out(kit, Path::new(""), &copied, &mut left_out);
    check_edition(lab, out, &hidden)?;
    Ok(Released {
        files,
        left_out,
        dropped_members: dropped,
        hidden: (hidden.len(), hidden_points),
    })
}

/// The note appended to the edition's README, wrapped like the rest of it.
fn edition_note(lab: &Lab, hidden: usize, hidden_points: u32, mutants: usize) -> String {
    let name = &lab.manifest.name;
    let mut left_out = vec![format!(
        "the reference solution (`{}`);",
        lab.manifest.solution_crate
    )];
    if hidden > 0 {
        left_out.push(format!(
            "{hidden} hidden scenario{} worth {hidden_points} points, which run only when submissions are graded;",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    if mutants > 0 {
        left_out.push(
            "the known-wrong variants of the reference that check the scenarios (`grader audit`);"
                .to_owned(),
        );
    }
    left_out.push(
        "the instructors' documentation, and the grader's own test suite (`grader/tests/`), which grades the reference solution and those variants."
            .to_owned(),
    );
    let mut text = String::from("## About this edition\n\n");
    text.push_str(&wrap(
        &format!(
            "This is the student edition of {name}, written by `grader release {name}`. \
             `cargo run -p grader -- check {name}` grades `{}` on the visible scenarios in \
             `labs/{name}/scenarios/`.",
            lab.manifest.student_crate
        ),
        "",
    ));
    text.push_str("\nLeft out, because they belong to the instructors:\n\n");
    for item in &left_out {
        text.push_str(&wrap(item, "- "));
    }
    text.push('\n');
    text.push_str(&wrap(
        "Links above to files that are not here point into the instructors' edition.",
        "",
    ));
    text
}

/// `text` as lines of at most 90 characters (a `code span` is never split), the first
/// starting with `first` and the others indented to match it.
fn wrap(text: &str, first: &str) -> String {
    const WIDTH: usize = 90;
    // Words, with each code span kept whole.
    let mut tokens: Vec<String> = Vec::new();
    let mut in_code = false;
    for word in text.split_whitespace() {
        match tokens.last_mut() {
            Some(last) if in_code => {
                last.push(' ');
                last.push_str(word);
            }
            _ => tokens.push(word.to_owned()),
        }
        if word.matches('`').count() % 2 == 1 {
            in_code = !in_code;
        }
    }
    let indent = " ".repeat(first.len());
    let mut out = String::new();
    let mut line = first.to_owned();
    let mut empty = true;
    for token in tokens {
        if !empty && line.len() + 1 + token.len() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(&token);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// Checks the written edition: its lab validates, no file copies a solution file, no
/// file names a hidden scenario.
fn check_edition(lab: &Lab, out: &Path, hidden: &[crate::scenario::Scenario]) -> Result<(), Error> {
    let out = out.canonicalize().map_err(|e| Error::io("open", out, e))?;
    let released = Lab::load(&out, &lab.manifest.name)?;
    let mut problems: Vec<Diagnostic> = validation::lab(&released).all_problems();
    let mut solution_files = Vec::new();
    for solution in solution_crates(&lab.kit) {
        collect_files(&lab.kit.join(&solution), &mut solution_files);
    }
    let solution_texts: Vec<(PathBuf, Vec<u8>)> = solution_files
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|t| (p, t)))
        .filter(|(_, t)| t.len() > 200)
        .collect();
    let mut released_files = Vec::new();
    collect_files(&out, &mut released_files);
    for file in &released_files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let shown = file.strip_prefix(&out).unwrap_or(file);
        for (solution, text) in &solution_texts {
            if &bytes == text {
                problems.push(
                    Diagnostic::file(
                        shown,
                        format!(
                            "this file is a copy of {}",
                            crate::kit::shown_path(&lab.kit, solution).display()
                        ),
                    )
                    .help("restore the shipped version of the file in the kit (git checkout), then release again"),
                );
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        for s in hidden {
            if let Some(i) = text.find(&s.name) {
                problems.push(Diagnostic::at(
                    shown,
                    crate::diagnostic::Pos::of_offset(&text, i),
                    format!("this names the hidden scenario `{}`", s.name),
                )
                .help("students must not learn what the hidden scenarios are: remove the mention from the kit"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(validation::refusal(&problems, "released"))
    }
}

/// Every file under `dir` (or `dir` itself if it is a file).
fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name() == "target" || entry.file_name() == ".git" {
            continue;
        }
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The entries of the kit (top level, and inside a copied folder's parents) that were not
/// copied, for the record; `target` and `.git` are not worth mentioning.
fn list_left_out(kit: &Path, rel: &Path, copied: &BTreeSet<PathBuf>, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(kit.join(rel)) else {
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        if name == "target" || name == ".git" {
            continue;
        }
        let child = rel.join(&name);
        if copied.contains(&child) {
            continue;
        }
        if copied.iter().any(|c| c.starts_with(&child)) {
            list_left_out(kit, &child, copied, out);
        } else {
            out.push(child.display().to_string());
        }
    }
}

/// The reference solutions of every lab of the kit, relative to it.
fn solution_crates(kit: &Path) -> Vec<String> {
    available_labs(kit)
        .iter()
        .filter_map(|name| Lab::load(kit, name).ok())
        .map(|l| l.manifest.solution_crate)
        .collect()
}

fn is_solution(member: &str, solutions: &[String]) -> bool {
    let m = Path::new(member);
    m.starts_with("solutions") || solutions.iter().any(|s| m.starts_with(s))
}

/// The `members` of the `[workspace]` table, in order.
pub fn workspace_members(manifest: &str) -> Vec<String> {
    let Some((start, end)) = members_span(manifest) else {
        return Vec::new();
    };
    quoted(&manifest[start..end])
}

/// The byte range of the `members = [ ... ]` array, brackets included.
fn members_span(manifest: &str) -> Option<(usize, usize)> {
    let key = manifest
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| {
            let t = line.trim_start();
            t.starts_with("members") && t["members".len()..].trim_start().starts_with('=')
        })
        .map(|(at, _)| at)?;
    let open = key + manifest[key..].find('[')?;
    let close = open + manifest[open..].find(']')?;
    Some((open, close + 1))
}

/// Every double-quoted string in `text`.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The root manifest with `dropped` removed from the workspace members; fails if the
/// manifest mentions a dropped member anywhere else.
pub fn rewrite_manifest(manifest: &str, dropped: &[String]) -> Result<String, Error> {
    let Some((start, end)) = members_span(manifest) else {
        return Ok(manifest.to_owned());
    };
    let array = &manifest[start..end];
    let is_dropped = |q: &String| dropped.contains(q);
    // Keep the layout when each dropped member has a line of its own; otherwise write
    // the array again on one line.
    let own_lines = array.contains('\n')
        && array.lines().all(|line| {
            let q = quoted(line);
            q.iter().all(is_dropped) || !q.iter().any(is_dropped)
        });
    let new_array = if own_lines {
        array
            .lines()
            .filter(|line| !quoted(line).iter().any(is_dropped))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        let names: Vec<String> = quoted(array)
            .into_iter()
            .filter(|q| !is_dropped(q))
            .map(|q| format!("\"{q}\""))
            .collect();
        format!("[{}]", names.join(", "))
    };
    let text = format!("{}{new_array}{}", &manifest[..start], &manifest[end..]);
    for d in dropped {
        if text.contains(d.as_str()) {
            return Err(Error::Usage(format!(
                "Cargo.toml still mentions {d} outside the workspace members, and the student edition leaves it out\n  help: remove that mention from Cargo.toml (only `members` is rewritten)"
            )));
        }
    }
    Ok(text)
}

/// The `name` of a `[package]` manifest.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_package = t == "[package]";
            continue;
        }
        if in_package && t.starts_with("name") {
            return quoted(t).into_iter().next();
        }
    }
    None
}

/// `Cargo.lock` without the packages in `dropped`, and without them in other packages'
/// dependency lists.
pub fn rewrite_lock(lock: &str, dropped: &[String]) -> String {
    let mut out = String::with_capacity(lock.len());
    for block in lock.split_inclusive("\n\n") {
        let name = block
            .lines()
            .find(|l| l.starts_with("name = "))
            .and_then(|l| quoted(l).into_iter().next());
        if block.starts_with("[[package]]") && name.is_some_and(|n| dropped.contains(&n)) {
            continue;
        }
        for line in block.split_inclusive('\n') {
            let t = line.trim().trim_end_matches(',');
            let dependency = t
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .map(|x| x.split(' ').next().unwrap_or(x));
            if dependency.is_some_and(|d| dropped.iter().any(|x| x == d)) {
                continue;
            }
            out.push_str(line);
        }
    }
    out
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))
}

fn put(path: &Path, text: &str) -> Result<(), Error> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io("write", path, e))
}

/// Copies a file, or a folder without `target/`, `.git/` and other dot-entries; returns
/// the number of files written.
fn copy_tree(from: &Path, to: &Path) -> Result<usize, Error> {
    if from.is_file() {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        std::fs::copy(from, to).map_err(|e| Error::io("copy", from, e))?;
        return Ok(1);
    }
    std::fs::create_dir_all(to).map_err(|e| Error::io("create", to, e))?;
    let mut n = 0;
    let entries = std::fs::read_dir(from).map_err(|e| Error::io("read", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read", from, e))?;
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        n += copy_tree(&entry.path(), &to.join(&name))?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "[workspace]\nresolver = \"3\"\nmembers = [\n    \"crates/a\",\n    \"solutions/lab4\",\n    \"grader\",\n]\n\n[workspace.dependencies]\na = { path = \"crates/a\" }\n";

    #[test]
    fn members_are_read_and_the_solution_is_dropped() {
        assert_eq!(
            workspace_members(MANIFEST),
            ["crates/a", "solutions/lab4", "grader"]
        );
        let text = rewrite_manifest(MANIFEST, &["solutions/lab4".to_owned()]).unwrap();
        assert_eq!(workspace_members(&text), ["crates/a", "grader"]);
        assert!(text.ends_with("a = { path = \"crates/a\" }\n"), "{text}");
    }

    #[test]
    fn a_one_line_members_array_is_rewritten_too() {
        let text = rewrite_manifest(
            "[workspace]\nmembers = [\"a\", \"solutions/x\"]\n",
            &["solutions/x".to_owned()],
        )
        .unwrap();
        assert_eq!(text, "[workspace]\nmembers = [\"a\"]\n");
    }

    #[test]
    fn a_dropped_member_mentioned_elsewhere_stops_the_release() {
        let manifest = format!("{MANIFEST}sol = {{ path = \"solutions/lab4\" }}\n");
        let err = rewrite_manifest(&manifest, &["solutions/lab4".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("solutions/lab4"), "{err}");
    }

    #[test]
    fn notes_are_wrapped_at_90_columns() {
        let text = wrap(&"word ".repeat(40), "- ");
        assert!(text.lines().all(|l| l.len() <= 90), "{text}");
        assert!(text.starts_with("- word"));
        assert!(
            text.lines().skip(1).all(|l| l.starts_with("  word")),
            "{text}"
        );
        let text = wrap(&format!("{} `a code span`", "x".repeat(80)), "");
        assert_eq!(text, format!("{}\n`a code span`\n", "x".repeat(80)));
    }

    #[test]
    fn the_lock_forgets_dropped_packages() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\n \"b\",\n \"sol\",\n]\n\n[[package]]\nname = \"sol\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\n";
        let out = rewrite_lock(lock, &["sol".to_owned()]);
        assert_eq!(
            out,
            "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\n \"b\",\n]\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\n"
        );
    }
}
