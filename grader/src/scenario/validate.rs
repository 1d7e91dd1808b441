//! Checking what a scenario means, before any code runs.
//!
//! Parsing already refused unknown fields and wrong types. This pass checks the envelope
//! against the lab (names, category, targets, the file's place), the targets' settings,
//! and asks the lab's plug-in to check what its steps mean. It collects every problem
//! instead of stopping at the first.

use std::collections::{BTreeMap, HashMap};

use grader_lab::{Checker, unknown_word};
use serde_json::value::RawValue;

use super::Scenario;
use super::model::Visibility;
use crate::diagnostic::Diagnostic;
use crate::lab::Lab;
use crate::scenario::load::key_pos;

struct Envelope<'a> {
    lab: &'a Lab,
    scenario: &'a Scenario,
    text: &'a str,
    problems: Vec<Diagnostic>,
}

impl Envelope<'_> {
    fn problem(
        &mut self,
        start: usize,
        end: usize,
        key: &str,
        message: String,
        help: Option<String>,
    ) {
        let pos = key_pos(self.text, start, end, key);
        let mut d = Diagnostic::at(&self.scenario.path, pos, message);
        if let Some(help) = help {
            d = d.help(help);
        }
        self.problems.push(d);
    }

    fn top(&mut self, key: &str, message: String, help: Option<String>) {
        self.problem(0, self.text.len(), key, message, help);
    }

    /// Checks `word` is one of `allowed`; `what` names the kind of word in messages.
    fn one_of(
        &mut self,
        span: (usize, usize),
        key: &str,
        word: &str,
        allowed: &[&str],
        what: &str,
    ) -> bool {
        match unknown_word(word, allowed, what) {
            None => true,
            Some((message, help)) => {
                self.problem(span.0, span.1, key, message, Some(help));
                false
            }
        }
    }
}

/// Every problem with one parsed scenario.
pub fn check(
    lab: &Lab,
    scenario: &Scenario,
    overrides: &BTreeMap<String, &RawValue>,
    text: &str,
) -> Vec<Diagnostic> {
    let mut c = Envelope {
        lab,
        scenario,
        text,
        problems: Vec::new(),
    };
    check_header(&mut c, overrides);
    check_place(&mut c);
    check_steps(&mut c);
    c.problems
}

/// In the lab's `scenarios/` or `hidden/` folder: the file is named after the scenario,
/// and its visibility matches the folder (students get `scenarios/`, never `hidden/`).
fn check_place(c: &mut Envelope<'_>) {
    let s = c.scenario;
    let full = c.lab.kit.join(&s.path);
    let Some(dir) = full.parent() else {
        return;
    };
    let in_visible = same_folder(dir, &c.lab.scenarios_dir());
    let in_hidden = same_folder(dir, &c.lab.hidden_dir());
    if !in_visible && !in_hidden {
        return;
    }
    let stem = full
        .file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem != s.name {
        c.top(
            "name",
            format!(
                "the scenario is named `{}`, but its file is {stem}.json",
                s.name
            ),
            Some(format!(
                "rename the file to {}.json, or set \"name\": \"{stem}\"",
                s.name
            )),
        );
    }
    let hidden_dir = crate::lab::kit::shown_path(&c.lab.kit, &c.lab.hidden_dir());
    let visible_dir = crate::lab::kit::shown_path(&c.lab.kit, &c.lab.scenarios_dir());
    if in_visible && s.visibility == Visibility::Hidden {
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
    if in_hidden && s.visibility == Visibility::Visible {
        let key = if c.text.contains("\"visibility\"") {
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

fn check_header(c: &mut Envelope<'_>, overrides: &BTreeMap<String, &RawValue>) {
    let s = c.scenario;
    let name_ok = !s.name.is_empty()
        && s.name
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_');
    if !name_ok {
        c.top(
            "name",
            format!(
                "the name `{}` must be lowercase letters, digits and `_` only",
                s.name
            ),
            None,
        );
    }
    if s.title.trim().is_empty() {
        c.top(
            "title",
            "the title is empty".into(),
            Some("say in one sentence what the scenario shows".into()),
        );
    }
    if s.hint.trim().is_empty() {
        c.top(
            "hint",
            "the hint is empty".into(),
            Some("name the mistake this scenario usually catches".into()),
        );
    }
    if s.points == 0 {
        c.top(
            "points",
            "a scenario must be worth at least 1 point".into(),
            None,
        );
    }
    let categories: Vec<&str> = c
        .lab
        .manifest
        .categories
        .iter()
        .map(|x| x.id.as_str())
        .collect();
    let category = s.category.clone();
    c.one_of(
        (0, c.text.len()),
        "category",
        &category,
        &categories,
        "category",
    );
    let targets: Vec<String> = c
        .lab
        .manifest
        .targets
        .iter()
        .map(|t| t.name.clone())
        .collect();
    let target_names: Vec<&str> = targets.iter().map(String::as_str).collect();
    let start = c.text.find("\"targets\"").unwrap_or(0);
    for name in overrides.keys() {
        c.one_of((start, c.text.len()), name, name, &target_names, "target");
    }
    let settings = super::settings::problems(c.lab, overrides, c.text, &c.scenario.path);
    c.problems.extend(settings);
    if s.steps.is_empty() {
        c.top("steps", "there are no steps".into(), None);
    }
    let checks_something = s
        .steps
        .iter()
        .any(|p| c.lab.plugin.expects_something(&p.step));
    if !s.steps.is_empty() && !checks_something {
        c.top(
            "steps",
            "no step expects anything, so this scenario can never fail".into(),
            Some("add an `expect` to a send, or an `expect` step".into()),
        );
    }
}

/// The lab's plug-in checks what the steps mean; each problem is placed at its key inside
/// its step.
fn check_steps(c: &mut Envelope<'_>) {
    let targets = c.lab.target_names();
    let mut checker = Checker::new(&targets);
    let steps: Vec<_> = c.scenario.steps.iter().map(|p| &p.step).collect();
    c.lab.plugin.check_steps(&steps, &mut checker);
    for p in checker.into_problems() {
        let Some(placed) = c.scenario.steps.get(p.step) else {
            continue;
        };
        c.problem(
            placed.span.start,
            placed.span.end,
            &p.key,
            p.message,
            p.help,
        );
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
