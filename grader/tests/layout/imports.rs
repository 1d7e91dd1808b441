//! The grader's modules import one way. ARCHITECTURE.md lists the top-level modules of
//! `grader/src` in one order (`a` → `b`, `c` → `d`: `a` may import `b`, `c` and `d`; `b`
//! and `c` neither import each other); a module may import only modules after it in that
//! order, and every module must be listed. Inside a folder, the files (its `mod.rs` aside,
//! which may use them and be used by them) import one another one way too: no circle.
//! Paths are read as written (`crate::..`, `super::..`); one that goes through a re-export
//! counts where it is written to, not where the item is defined.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::paths;

/// A module's path from the crate root (`["judge", "race"]`).
type Module = Vec<String>;
/// Imports between the files of one folder: each file, what it uses and where.
type Edges<'a> = BTreeMap<&'a Module, BTreeSet<(&'a Module, String)>>;
/// A way through `Edges`: each file reached, and where the import to it is written.
type Trail<'a> = Vec<(&'a Module, &'a String)>;

/// One file of `grader/src`: its module path from the crate root, what it names.
struct File {
    shown: String,
    module: Vec<String>,
    named: Vec<paths::Named>,
}

fn src() -> PathBuf {
    crate::root().join("grader/src")
}

fn files() -> Vec<File> {
    let src = src();
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("grader/src is readable") {
            let path = entry.expect("grader/src is readable").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(&src).expect("inside grader/src");
                // The crate root and the binary are no module of the order.
                if relative == Path::new("lib.rs") || relative == Path::new("main.rs") {
                    continue;
                }
                let module = module_of(relative);
                let text = fs::read_to_string(&path).expect("a source file is readable");
                out.push(File {
                    shown: format!("grader/src/{}", relative.display()),
                    named: paths::named(&text, &module),
                    module,
                });
            }
        }
    }
    out.sort_by(|a, b| a.shown.cmp(&b.shown));
    out
}

/// `a/b.rs` and `a/b/mod.rs` are module `a::b`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut segments: Vec<String> = relative
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = segments.pop().unwrap_or_default();
    if last != "mod.rs" {
        segments.push(last.trim_end_matches(".rs").to_string());
    }
    segments
}

/// The file module a path lands in: the longest prefix of it that is a file.
fn landing<'a>(segments: &[String], modules: &'a BTreeSet<Vec<String>>) -> Option<&'a Vec<String>> {
    (1..=segments.len())
        .rev()
        .find_map(|n| modules.get(&segments[..n].to_vec()))
}

/// The order ARCHITECTURE.md gives, as levels: each a set of peers.
fn order() -> Vec<Vec<String>> {
    let path = crate::root().join("ARCHITECTURE.md");
    let text = fs::read_to_string(&path).expect("ARCHITECTURE.md is readable");
    let lead = "Imports flow one way, in this order:";
    let start = text
        .find(lead)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no line starting {lead:?}"))
        + lead.len();
    let rest = &text[start..];
    let end = rest
        .find(". ")
        .into_iter()
        .chain(rest.find(".\n"))
        .min()
        .expect("the order ends with a full stop");
    rest[..end]
        .split('→')
        .map(|level| {
            level
                .split(',')
                .map(|name| name.trim().trim_matches('`').to_string())
                .filter(|name| !name.is_empty())
                .collect()
        })
        .collect()
}

/// Which level of `order` each module is on.
fn levels(order: &[Vec<String>]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (level, names) in order.iter().enumerate() {
        for name in names {
            assert!(
                out.insert(name.clone(), level).is_none(),
                "ARCHITECTURE.md lists `{name}` twice in the import order"
            );
        }
    }
    out
}

/// What breaks the order: each problem a line naming the file and line.
fn problems(files: &[File], order: &[Vec<String>]) -> Vec<String> {
    let levels = levels(order);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let mut out = Vec::new();
    let tops: BTreeSet<&String> = files.iter().filter_map(|f| f.module.first()).collect();
    for top in &tops {
        if !levels.contains_key(*top) {
            out.push(format!(
                "grader/src: module `{top}` is missing from ARCHITECTURE.md's import order: \
                 add it where it belongs"
            ));
        }
    }
    for name in levels.keys() {
        if !tops.contains(name) {
            out.push(format!(
                "ARCHITECTURE.md: the import order names `{name}`, which grader/src does not have"
            ));
        }
    }
    // Edges between the files of one folder, for the circles check.
    let mut inside: Edges<'_> = BTreeMap::new();
    for file in files {
        for named in &file.named {
            let Some(target) = landing(&named.segments, &modules) else {
                continue;
            };
            let (Some(from), Some(to)) = (file.module.first(), target.first()) else {
                continue;
            };
            if from != to {
                let (Some(&a), Some(&b)) = (levels.get(from), levels.get(to)) else {
                    continue;
                };
                if b <= a {
                    let how = if a == b { "beside" } else { "above" };
                    out.push(format!(
                        "{}:{}: `{from}` imports `crate::{}`, and `{to}` is {how} it in \
                         ARCHITECTURE.md's import order: move what both need down the order, \
                         or pass it in",
                        file.shown,
                        named.line,
                        named.segments.join("::"),
                    ));
                }
            }
            let folder = parent(&file.module, file.shown.ends_with("mod.rs"));
            let is_face =
                |m: &Vec<String>| modules.contains(m) && folder.as_slice() == m.as_slice();
            if target != &file.module
                && parent(target, is_face(target)) == folder
                && !is_face(&file.module)
                && !is_face(target)
            {
                inside
                    .entry(&file.module)
                    .or_default()
                    .insert((target, format!("{}:{}", file.shown, named.line)));
            }
        }
    }
    out.extend(circles(&inside));
    out
}

/// The folder a file module is in (a folder's `mod.rs` is the folder itself).
fn parent(module: &[String], is_mod: bool) -> Vec<String> {
    if is_mod {
        module.to_vec()
    } else {
        module[..module.len().saturating_sub(1)].to_vec()
    }
}

/// Each circle among files of one folder, once, with where each of its imports is written.
fn circles(edges: &Edges<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: BTreeSet<Vec<&Module>> = BTreeSet::new();
    for &start in edges.keys() {
        // Depth-first from `start`, looking for a way back to it.
        let mut stack: Vec<(&Module, Trail<'_>)> = vec![(start, Vec::new())];
        let mut visited = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for (next, place) in edges.get(at).into_iter().flatten() {
                let mut trail = trail.clone();
                trail.push((next, place));
                if *next == start {
                    let mut members: Vec<&Module> = trail.iter().map(|(m, _)| *m).collect();
                    members.sort();
                    if seen.insert(members) {
                        let places: Vec<String> = trail
                            .iter()
                            .map(|(m, place)| format!("{place} (to `{}`)", m.join("::")))
                            .collect();
                        out.push(format!(
                            "a circle inside `{}`: {}: one of them must stop importing the other",
                            parent(start, false).join("::"),
                            places.join(", ")
                        ));
                    }
                } else if visited.insert(*next) {
                    stack.push((next, trail));
                }
            }
        }
    }
    out
}

#[test]
fn modules_import_in_the_listed_order() {
    let problems = problems(&files(), &order());
    assert!(
        problems.is_empty(),
        "the grader's imports break ARCHITECTURE.md's order:\n{}",
        problems.join("\n")
    );
}

/// The problems of grader/src with `code` added to the file `shown`.
fn problems_with(shown: &str, code: &str) -> Vec<String> {
    let mut files = files();
    let file = files
        .iter_mut()
        .find(|f| f.shown == shown)
        .unwrap_or_else(|| panic!("{shown} is a file of grader/src"));
    file.named.extend(paths::named(code, &file.module));
    problems(&files, &order())
}

/// Each circle the grader had, put back one at a time, is caught.
#[test]
fn the_old_circles_are_caught() {
    let cases = [
        // The sandbox used a prepared submission, and called the build.
        (
            "grader/src/sandbox/mod.rs",
            "use crate::grade::submit::Ready;",
            "`sandbox` imports `crate::grade::submit::Ready`, and `grade` is above it",
        ),
        (
            "grader/src/sandbox/mod.rs",
            "fn f() { crate::build::build(); }",
            "`sandbox` imports `crate::build::build`, and `build` is above it",
        ),
        // A run's options held the race settings of grading.
        (
            "grader/src/run/mod.rs",
            "pub race: Option<crate::grade::race::Settings>,",
            "`run` imports `crate::grade::race::Settings`, and `grade` is above it",
        ),
        // The race verdict and the schedule's story used each other.
        (
            "grader/src/judge/story.rs",
            "use super::race::Judged;",
            "a circle inside `judge`",
        ),
        // Reading a scenario file and checking it used each other.
        (
            "grader/src/scenario/validate.rs",
            "use super::load::parse;",
            "a circle inside `scenario`",
        ),
    ];
    for (shown, code, wanted) in cases {
        let problems = problems_with(shown, code);
        assert!(
            problems.iter().any(|p| p.contains(wanted)),
            "{code} in {shown} should break the order ({wanted}); found: {problems:?}"
        );
    }
}

/// A module that is not in the order is named.
#[test]
fn a_module_missing_from_the_order_is_named() {
    let mut order = order();
    order.retain(|level| !level.contains(&"run".to_owned()));
    let problems = problems(&files(), &order);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("module `run` is missing from ARCHITECTURE.md's import order")),
        "{problems:?}"
    );
}

#[test]
fn paths_are_read_through_groups_supers_and_not_in_comments_or_tests() {
    let module = vec!["judge".to_owned(), "race".to_owned()];
    let code = r#"
        // crate::grade::select in a comment
        /* crate::grade::other */
        use super::{story::{self, tell}, timeline::*};
        use crate::report::{Failure, Status};
        const S: &str = "crate::grade::in_a_string";
        fn f<'a>(c: char) -> bool { c == '{' && crate::run::plan() }
        #[cfg(test)]
        mod tests {
            use crate::grade::select;
        }
        fn g() { super::super::lab::kit::find(); }
    "#;
    let named: Vec<String> = paths::named(code, &module)
        .into_iter()
        .map(|n| n.segments.join("::"))
        .collect();
    assert_eq!(
        named,
        [
            "judge::story",
            "judge::story::tell",
            "judge::timeline",
            "report::Failure",
            "report::Status",
            "run::plan",
            "lab::kit::find",
        ]
    );
}
