//! Checking what a scenario means, before any code runs.
//!
//! Parsing already reported unknown fields and wrong types. This pass checks what could
//! be read against the lab (names, category, targets, the file's place), the targets'
//! settings, and asks the lab's plug-in to check what its steps mean; then the times its
//! steps write (`clock_times.rs`). It collects every problem instead of stopping at the
//! first.

use std::collections::HashMap;

use grader_lab::{Checker, unknown_word};

use super::model::Visibility;
use super::parsed::Parsed;
use super::{PlacedStep, Scenario};
use crate::diagnostic::Diagnostic;
use crate::lab::Lab;

struct Envelope<'a> {
    lab: &'a Lab,
    parsed: &'a Parsed<'a>,
    problems: Vec<Diagnostic>,
}

impl Envelope<'_> {
    fn problem(&mut self, offset: usize, message: String, help: Option<String>) {
        let mut d = self.parsed.source.at(offset, message);
        if let Some(help) = help {
            d = d.help(help);
        }
        self.problems.push(d);
    }

    /// A problem at top-level `key`.
    fn top(&mut self, key: &str, message: String, help: Option<String>) {
        let at = self.parsed.header.key(key);
        self.problem(at, message, help);
    }
}

/// Every problem with what could be read of a scenario file.
pub fn check(lab: &Lab, parsed: &Parsed<'_>) -> Vec<Diagnostic> {
    let mut c = Envelope {
        lab,
        parsed,
        problems: Vec::new(),
    };
    check_header(&mut c);
    check_place(&mut c);
    check_steps(&mut c);
    c.problems.extend(super::clock_times::check(lab, parsed));
    c.problems
}

/// Any scenario file is named after its scenario, wherever it is (a draft too, so that it
/// can be published as it is). In the lab's `scenarios/` or `hidden/` folder, its
/// visibility also matches the folder (students get `scenarios/`, never `hidden/`).
fn check_place(c: &mut Envelope<'_>) {
    let h = &c.parsed.header;
    let full = c.lab.kit.join(c.parsed.source.path);
    let Some(dir) = full.parent() else {
        return;
    };
    let stem = full
        .file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(name) = h.name.clone().filter(|n| valid_name(n)) {
        if stem != name {
            c.top(
                "name",
                format!("the scenario is named `{name}`, but its file is {stem}.json"),
                Some(format!(
                    "rename the file to {name}.json, or set \"name\": \"{stem}\""
                )),
            );
        }
    }
    let in_visible = same_folder(dir, &c.lab.scenarios_dir());
    let in_hidden = same_folder(dir, &c.lab.hidden_dir());
    let hidden_dir = crate::lab::kit::shown_path(&c.lab.kit, &c.lab.hidden_dir());
    let visible_dir = crate::lab::kit::shown_path(&c.lab.kit, &c.lab.scenarios_dir());
    if in_visible && h.visibility == Some(Visibility::Hidden) {
        c.top(
            "visibility",
            format!(
                "this scenario is marked hidden, but {}/ is published to students",
                visible_dir.display()
            ),
            Some(format!(
                "move the file to {}/, or make it \"visible\"",
                hidden_dir.display()
            )),
        );
    }
    if in_hidden && h.visibility == Some(Visibility::Visible) {
        let key = if h.has("visibility") {
            "visibility"
        } else {
            "name"
        };
        c.top(
            key,
            format!(
                "this scenario is in {}/ but is marked visible (the default)",
                hidden_dir.display()
            ),
            Some(format!(
                "add \"visibility\": \"hidden\", or move the file to {}/ if students may see it",
                visible_dir.display()
            )),
        );
    }
}

/// Whether two paths name the same folder.
fn same_folder(a: &std::path::Path, b: &std::path::Path) -> bool {
    if a == b {
        return true;
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether a scenario name is lowercase letters, digits and `_` only.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
}

fn check_header(c: &mut Envelope<'_>) {
    let h = &c.parsed.header;
    if let Some(name) = h.name.clone().filter(|n| !valid_name(n)) {
        c.top(
            "name",
            format!("the name `{name}` must be lowercase letters, digits and `_` only"),
            None,
        );
    }
    if h.title.as_deref().is_some_and(|t| t.trim().is_empty()) {
        c.top(
            "title",
            "the title is empty".into(),
            Some("say in one sentence what the scenario shows".into()),
        );
    }
    if h.hint.as_deref().is_some_and(|t| t.trim().is_empty()) {
        c.top(
            "hint",
            "the hint is empty".into(),
            Some("name the mistake this scenario usually catches".into()),
        );
    }
    if h.points == Some(0) {
        c.top(
            "points",
            "a scenario must be worth at least 1 point".into(),
            None,
        );
    }
    if h.race == Some(true) && !c.lab.has_race_checks() {
        c.top(
            "race",
            format!(
                "this is a race check, but {} has no race checks ({})",
                c.lab.manifest.name,
                if c.lab.manifest.race.is_none() {
                    "no \"race\" settings in its lab.json"
                } else {
                    "its plug-in has no race harness"
                }
            ),
            Some(if c.lab.plugin.race_harness().is_none() {
                "remove \"race\": true (a lab runs race checks once its plug-in has a race harness and its lab.json a \"race\" object)".into()
            } else {
                "add a \"race\" object to the lab's lab.json, or remove \"race\": true".into()
            }),
        );
    }
    if let Some(category) = h.category.clone() {
        let categories: Vec<&str> = c
            .lab
            .manifest
            .categories
            .iter()
            .map(|x| x.id.as_str())
            .collect();
        if let Some((message, help)) = unknown_word(&category, &categories, "category") {
            c.top("category", message, Some(help));
        }
    }
    let targets = c.lab.target_names();
    let target_names: Vec<&str> = targets.iter().map(String::as_str).collect();
    let overrides_at = c.parsed.header.key("targets");
    for name in c.parsed.overrides.keys() {
        let noun = c.lab.plugin.target_noun();
        if let Some((message, help)) = unknown_word(name, &target_names, noun) {
            let at = c
                .parsed
                .source
                .key_in(overrides_at..c.parsed.source.text.len(), name);
            c.problem(at, message, Some(help));
        }
    }
    let settings = super::settings::problems(c.lab, &c.parsed.overrides, &c.parsed.source);
    c.problems.extend(settings);
    let steps = &c.parsed.steps;
    if steps.is_empty() && c.parsed.steps_read {
        c.top("steps", "there are no steps".into(), None);
    }
    let complete = steps.iter().all(Option::is_some);
    let checks_something = steps
        .iter()
        .flatten()
        .any(|p| c.lab.plugin.expects_something(&p.step));
    if !steps.is_empty() && complete && !checks_something {
        c.top(
            "steps",
            "no step expects anything, so this scenario can never fail".into(),
            Some("add an `expect` to a send, or an `expect` step".into()),
        );
    }
}

/// The lab's plug-in checks what the steps that could be read mean; each problem is
/// placed at its key inside its step. Where a step could not be read, the checker says
/// so, and a plug-in leaves out the checks that depend on earlier steps.
fn check_steps(c: &mut Envelope<'_>) {
    let targets = c.lab.target_names();
    let readable: Vec<(usize, &PlacedStep)> = c
        .parsed
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.as_ref().map(|p| (i, p)))
        .collect();
    let race = c.parsed.header.race == Some(true);
    let mut checker = Checker::new(&targets)
        .for_race_check(race)
        .calling_targets(c.lab.plugin.target_noun());
    if readable.len() < c.parsed.steps.len() {
        checker = checker.with_unreadable_steps();
    }
    let steps: Vec<_> = readable.iter().map(|(_, p)| &p.step).collect();
    c.lab.plugin.check_steps(&steps, &mut checker);
    for p in checker.into_problems() {
        let Some((_, placed)) = readable.get(p.step) else {
            continue;
        };
        let at = c.parsed.source.key_in(placed.span.clone(), &p.key);
        c.problem(at, p.message, p.help);
    }
}

/// Problems between scenarios: duplicate names.
pub fn check_set(scenarios: &[Scenario]) -> Vec<Diagnostic> {
    let mut seen: HashMap<&str, &Scenario> = HashMap::new();
    let mut problems = Vec::new();
    for s in scenarios {
        if let Some(first) = seen.get(s.name.as_str()) {
            problems.push(
                Diagnostic::file(
                    &s.path,
                    format!(
                        "the name `{}` is already used by {}",
                        s.name,
                        first.path.display()
                    ),
                )
                .help("give every scenario its own name"),
            );
        } else {
            seen.insert(&s.name, s);
        }
    }
    problems
}
