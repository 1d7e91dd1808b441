//! The `[profile.dev]` of every generated harness workspace.
//!
//! A student waits on one thing after each edit: their crate compiled, the harness
//! programs linked against it, the scenarios run. The profile is set for that wait:
//!
//! - the crate under test (and its race build) compiles as cargo compiles it for the
//!   student: unoptimised and incremental, with line tables, so that panics and stories
//!   name its files and lines;
//! - everything else is compiled once per lab and then only linked: optimised, so that
//!   each scenario process and each explored schedule runs quickly, and without debug
//!   information, which every link would otherwise copy. The lab's own crates (those its
//!   plug-in names) keep line tables: a backtrace or a race story may pass through them;
//! - the crates that only run inside the compiler (proc macros and what they use) stay
//!   unoptimised, which keeps a workspace's first build short;
//! - the harness programs are a few lines each, relinked after every edit: incremental
//!   data would only cost time there.

use super::race;
use crate::lab::Lab;

/// Crates that run only while compiling (serde's derive and its parser). Optimising them
/// would lengthen every first build for nothing; a crate missing here only costs that.
const BUILD_TIME: [&str; 5] = [
    "proc-macro2",
    "quote",
    "syn",
    "unicode-ident",
    "serde_derive",
];

/// Whether the crates under test build incrementally: yes for a crate built again after
/// each edit, no for a batch of submissions, each built once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incremental {
    /// Built again and again (a student's crate, the reference, a mutant).
    Yes,
    /// Built once.
    No,
}

/// The profile section for a workspace whose crates under test are the packages
/// `under_test` (their race builds included) and whose harness programs are the packages
/// `programs`.
pub fn profile(
    lab: &Lab,
    under_test: &[String],
    programs: &[String],
    incremental: Incremental,
) -> String {
    let mut text = String::from(
        "[profile.dev]\ndebug = \"line-tables-only\"\n\n\
         [profile.dev.package.\"*\"]\nopt-level = 2\ndebug = false\n",
    );
    let mut section = |package: &str, lines: &str| {
        text.push_str(&format!("\n[profile.dev.package.{package}]\n{lines}"));
    };
    for package in BUILD_TIME {
        section(&format!("\"{package}\""), "opt-level = 0\n");
    }
    for package in lab_crates(lab) {
        section(&format!("\"{package}\""), "debug = \"line-tables-only\"\n");
    }
    let once = match incremental {
        Incremental::Yes => "",
        Incremental::No => "incremental = false\n",
    };
    for package in under_test {
        section(
            &format!("\"{package}\""),
            &format!("opt-level = 0\ndebug = \"line-tables-only\"\n{once}"),
        );
    }
    for package in programs {
        section(&format!("\"{package}\""), "incremental = false\n");
    }
    text
}

/// The packages the lab's plug-in names as the dependencies of its harness programs and of
/// the code under test, for the normal and the race build, each once.
fn lab_crates(lab: &Lab) -> Vec<String> {
    let harness = lab.plugin.harness();
    let race = lab.plugin.race_harness();
    let folders = harness
        .dependencies
        .iter()
        .chain(harness.subject_dependencies)
        .chain(race.iter().flat_map(|r| r.dependencies.iter()))
        .chain(race.iter().flat_map(|r| r.subject_dependencies.iter()));
    let mut packages: Vec<String> = Vec::new();
    for (_, folder) in folders {
        if let Ok(name) = race::package_name(&lab.kit.join(folder)) {
            if !packages.contains(&name) {
                packages.push(name);
            }
        }
    }
    packages
}
