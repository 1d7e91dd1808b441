//! Checking a mutant file without running anything: its fields, the scenarios it names,
//! why one scenario is enough when it says so, and that each of its edits still applies
//! to the reference solution.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::mutants::Mutant;
use crate::diagnostic::{Diagnostic, Pos, did_you_mean};
use crate::lab::Lab;
use crate::scenario::Scenario;
use crate::scenario::load::{self, key_pos};

/// The mutant file format version this grader reads.
pub const MUTANT_FORMAT_VERSION: u32 = 1;

/// Checks one mutant file; returns its name when it could be read.
pub fn mutant(
    lab: &Lab,
    path: &Path,
    scenarios: &[Scenario],
    names: &BTreeSet<String>,
) -> (Option<String>, Vec<Diagnostic>) {
    let shown = crate::lab::kit::shown_path(&lab.kit, path);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            return (
                None,
                vec![Diagnostic::file(&shown, format!("cannot read it: {e}"))],
            );
        }
    };
    let m: Mutant = match serde_json::from_str(&text) {
        Ok(m) => m,
        Err(e) => return (None, load::every_json_mistake::<Mutant>(&shown, &text, e)),
    };
    let mut problems = Vec::new();
    let top = |key: &str| key_pos(&text, 0, text.len(), key);
    if m.format_version != MUTANT_FORMAT_VERSION {
        problems.push(
            Diagnostic::at(
                &shown,
                top("format_version"),
                format!(
                    "format_version {} is not supported; this grader reads version {MUTANT_FORMAT_VERSION}",
                    m.format_version
                ),
            )
            .help(format!("set \"format_version\": {MUTANT_FORMAT_VERSION}")),
        );
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if m.name != stem {
        problems.push(
            Diagnostic::at(
                &shown,
                top("name"),
                format!(
                    "the mutant is named `{}`, but its file is {stem}.json",
                    m.name
                ),
            )
            .help(format!(
                "rename the file to {}.json, or set \"name\": \"{stem}\"",
                m.name
            )),
        );
    }
    for (key, value) in [("title", &m.title), ("mistake", &m.mistake)] {
        if value.trim().is_empty() {
            problems.push(Diagnostic::at(
                &shown,
                top(key),
                format!("the {key} is empty"),
            ));
        }
    }
    let caught_by_at = text.find("\"caught_by\"").unwrap_or(0);
    if m.caught_by.is_empty() {
        problems.push(
            Diagnostic::at(&shown, top("caught_by"), "caught_by is empty")
                .help("name the scenarios that must fail on this mutant"),
        );
    }
    for name in &m.caught_by {
        let pos = key_pos(&text, caught_by_at, text.len(), name);
        if !names.contains(name) {
            let help = match did_you_mean(name, names.iter().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("`grader list {}` shows every scenario", lab.manifest.name),
            };
            problems.push(
                Diagnostic::at(
                    &shown,
                    pos,
                    format!("caught_by names `{name}`, but there is no such scenario"),
                )
                .help(help),
            );
        } else if scenarios.iter().any(|s| &s.name == name && s.smoke) {
            problems.push(
                Diagnostic::at(
                    &shown,
                    pos,
                    format!(
                        "caught_by names `{name}`, which is marked \"smoke\": no known bug is expected to fail it"
                    ),
                )
                .help("remove \"smoke\": true from the scenario, or the name from caught_by"),
            );
        }
    }
    if let Some(rule) = m.rule.as_deref().filter(|r| lab.rules.get(r).is_none()) {
        let ids = lab.rules.ids();
        let help = match did_you_mean(rule, ids.iter().copied()) {
            Some(close) => format!("did you mean `{close}`?"),
            None if ids.is_empty() => {
                format!("{} has no rules.json: remove \"rule\"", lab.manifest.name)
            }
            None => format!(
                "the lab's rules are in labs/{}/rules.json",
                lab.manifest.name
            ),
        };
        problems
            .push(Diagnostic::at(&shown, top("rule"), format!("unknown rule `{rule}`")).help(help));
    }
    problems.extend(caught_once_problems(&m, &text, &shown));
    problems.extend(edit_problems(lab, &m, &text, &shown));
    (Some(m.name), problems)
}

/// `caught_once_because` says why one catching scenario is enough: it must say something,
/// and only a mutant whose `caught_by` names one scenario may have it.
fn caught_once_problems(m: &Mutant, text: &str, shown: &Path) -> Vec<Diagnostic> {
    let Some(why) = &m.caught_once_because else {
        return Vec::new();
    };
    let at = key_pos(text, 0, text.len(), "caught_once_because");
    if why.trim().is_empty() {
        return vec![
            Diagnostic::at(shown, at, "caught_once_because is empty")
                .help("say why one scenario catching this mutant is enough, or remove the key"),
        ];
    }
    if m.caught_by.len() > 1 {
        return vec![
            Diagnostic::at(
                shown,
                at,
                format!(
                    "caught_by names {} scenarios, so caught_once_because does not apply",
                    m.caught_by.len()
                ),
            )
            .help("remove caught_once_because: it is for mutants that only one scenario catches"),
        ];
    }
    Vec::new()
}

/// Applies the mutant's edits, in order, to a copy of the reference solution's files, and
/// reports each edit that would not apply.
fn edit_problems(lab: &Lab, m: &Mutant, text: &str, shown: &Path) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let edits_at = text.find("\"edits\"").unwrap_or(0);
    if m.edits.is_empty() {
        problems.push(
            Diagnostic::at(
                shown,
                key_pos(text, 0, text.len(), "edits"),
                "there are no edits",
            )
            .help("a mutant is the reference solution with at least one edit"),
        );
        return problems;
    }
    let solution = lab.kit.join(&lab.manifest.solution_crate);
    if !solution.is_dir() {
        problems.push(
            Diagnostic::file(
                shown,
                format!(
                    "the reference solution {} is missing, so the edits cannot be checked",
                    lab.manifest.solution_crate
                ),
            )
            .help("mutants belong in the instructors' kit, next to the reference solution"),
        );
        return problems;
    }
    // Where the n-th occurrence of `"key"` is, from the start of the edits.
    let nth_key = |key: &str, n: usize| -> Pos {
        let needle = format!("\"{key}\"");
        let mut from = edits_at;
        let mut found = edits_at;
        for _ in 0..=n {
            match text[from..].find(&needle) {
                Some(i) => {
                    found = from + i;
                    from = found + needle.len();
                }
                None => break,
            }
        }
        Pos::of_offset(text, found)
    };
    let mut files: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (i, edit) in m.edits.iter().enumerate() {
        let rel = Path::new(&edit.file);
        let under_src = rel.strip_prefix("src").unwrap_or(rel);
        let file = solution.join("src").join(under_src);
        let content = files
            .entry(edit.file.clone())
            .or_insert_with(|| std::fs::read_to_string(&file).ok());
        let Some(content) = content else {
            problems.push(
                Diagnostic::at(
                    shown,
                    nth_key("file", i),
                    format!(
                        "edit {}: the reference solution has no file {}",
                        i + 1,
                        edit.file
                    ),
                )
                .help(format!(
                    "name a file of {} relative to it, such as src/lib.rs",
                    lab.manifest.solution_crate
                )),
            );
            continue;
        };
        if edit.find.is_empty() {
            problems.push(Diagnostic::at(
                shown,
                nth_key("find", i),
                format!("edit {}: the `find` text is empty", i + 1),
            ));
            continue;
        }
        let found = content.matches(&edit.find).count();
        if found != 1 {
            let how = if found == 0 {
                "does not occur".to_owned()
            } else {
                format!("occurs {found} times")
            };
            let place = if i == 0 {
                String::new()
            } else {
                " after the edits before it".to_owned()
            };
            problems.push(
                Diagnostic::at(
                    shown,
                    nth_key("find", i),
                    format!(
                        "edit {}: its `find` text {how} in {}/{}{place}",
                        i + 1,
                        lab.manifest.solution_crate,
                        edit.file
                    ),
                )
                .help(if found == 0 {
                    "copy the text exactly from the reference solution, indentation and line breaks included"
                } else {
                    "make the `find` text longer, so that it names one exact place"
                }),
            );
            continue;
        }
        *content = content.replacen(&edit.find, &edit.replace, 1);
    }
    problems
}
