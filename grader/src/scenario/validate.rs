//! Checking what a scenario means, before any code runs.
//!
//! Parsing already refused unknown fields and wrong types. This pass checks names against
//! the lab (targets, categories, codes, states), that counts add up, that a `release`
//! has held calls to release, and that concurrent sends cannot depend on thread timing.
//! It collects every problem instead of stopping at the first.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::Scenario;
use super::model::{Step, TargetOverride, Visibility};
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::lab::Lab;
use crate::scenario::load::key_pos;

/// Answers a target can be scripted with.
pub const SCRIPT_ANSWERS: [&str; 7] = ["OK", "B201", "E500", "E901", "E902", "hold", "panic"];
/// Answers a held call can be released with.
pub const RELEASE_ANSWERS: [&str; 5] = ["OK", "B201", "E500", "E901", "E902"];
/// Outcomes a request can be expected to end with.
pub const OUTCOMES: [&str; 8] = ["OK", "B201", "E500", "E901", "E902", "E904", "E905", "held"];
/// Codes a target can answer with.
pub const ANSWER_CODES: [&str; 5] = ["OK", "B201", "E500", "E901", "E902"];
/// Breaker states.
pub const STATES: [&str; 3] = ["CLOSED", "OPEN", "HALF_OPEN"];

struct Checker<'a> {
    lab: &'a Lab,
    scenario: &'a Scenario,
    text: &'a str,
    problems: Vec<Diagnostic>,
}

impl Checker<'_> {
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
        if allowed.contains(&word) {
            return true;
        }
        let help = match did_you_mean(word, allowed.iter().copied()) {
            Some(close) => format!("did you mean `{close}`?"),
            None => format!("use one of: {}", allowed.join(", ")),
        };
        self.problem(
            span.0,
            span.1,
            key,
            format!("unknown {what} `{word}`"),
            Some(help),
        );
        false
    }
}

/// Every problem with one parsed scenario.
pub fn check(
    lab: &Lab,
    scenario: &Scenario,
    overrides: &BTreeMap<String, TargetOverride>,
    text: &str,
) -> Vec<Diagnostic> {
    let mut c = Checker {
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
fn check_place(c: &mut Checker<'_>) {
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
    let hidden_dir = crate::kit::shown_path(&c.lab.kit, &c.lab.hidden_dir());
    let visible_dir = crate::kit::shown_path(&c.lab.kit, &c.lab.scenarios_dir());
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

fn check_header(c: &mut Checker<'_>, overrides: &BTreeMap<String, TargetOverride>) {
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
    if s.race && c.lab.manifest.race.is_none() {
        c.top(
            "race",
            format!(
                "this is a race check, but {} has no race settings",
                c.lab.manifest.name
            ),
            Some("add a \"race\" object to the lab's lab.json, or remove \"race\": true".into()),
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
    for (name, o) in overrides {
        c.one_of((start, c.text.len()), name, name, &target_names, "target");
        if o.failure_threshold == Some(0) {
            c.problem(
                start,
                c.text.len(),
                "failure_threshold",
                "failure_threshold must be at least 1".into(),
                None,
            );
        }
        if o.max_concurrent == Some(0) {
            c.problem(
                start,
                c.text.len(),
                "max_concurrent",
                "max_concurrent must be at least 1".into(),
                None,
            );
        }
    }
    if s.steps.is_empty() {
        c.top("steps", "there are no steps".into(), None);
    }
    let checks_something = s.steps.iter().any(|p| match &p.step {
        Step::Send(x) => x.expect.is_some() || x.expect_each.is_some(),
        Step::SendConcurrent(x) => x.expect.is_some(),
        Step::Release(x) => x.expect.is_some(),
        Step::Expect(_) | Step::ExpectTransitions(_) => true,
        Step::Script(_) | Step::Advance(_) => false,
    });
    if !s.steps.is_empty() && !checks_something {
        c.top(
            "steps",
            "no step expects anything, so this scenario can never fail".into(),
            Some("add an `expect` to a send, or an `expect` step".into()),
        );
    }
}

fn check_steps(c: &mut Checker<'_>) {
    let targets: Vec<String> = c
        .lab
        .manifest
        .targets
        .iter()
        .map(|t| t.name.clone())
        .collect();
    let target_names: Vec<&str> = targets.iter().map(String::as_str).collect();
    // Per target: is it scripted to hold right now, and may calls be held in it?
    let mut holding: HashMap<String, bool> = HashMap::new();
    let mut may_have_held: HashSet<String> = HashSet::new();
    for placed in &c.scenario.steps {
        let span = (placed.span.start, placed.span.end);
        let target = match &placed.step {
            Step::Script(x) => Some(&x.target),
            Step::Send(x) => Some(&x.target),
            Step::SendConcurrent(x) => Some(&x.target),
            Step::Release(x) => Some(&x.target),
            Step::Expect(x) => Some(&x.target),
            Step::Advance(_) | Step::ExpectTransitions(_) => None,
        };
        if let Some(t) = target {
            if !c.one_of(span, "target", t, &target_names, "target") {
                continue;
            }
        }
        match &placed.step {
            Step::Script(x) => {
                if c.one_of(span, "answer", &x.answer, &SCRIPT_ANSWERS, "answer") {
                    holding.insert(x.target.clone(), x.answer == "hold");
                }
            }
            Step::Send(x) => {
                let count = x.count.unwrap_or(1);
                if count == 0 {
                    c.problem(
                        span.0,
                        span.1,
                        "count",
                        "count must be at least 1".into(),
                        None,
                    );
                }
                if x.expect.is_some() && x.expect_each.is_some() {
                    c.problem(
                        span.0,
                        span.1,
                        "expect_each",
                        "give either `expect` or `expect_each`, not both".into(),
                        None,
                    );
                }
                if let Some(code) = &x.expect {
                    c.one_of(span, "expect", code, &OUTCOMES, "outcome");
                }
                if let Some(each) = &x.expect_each {
                    for code in each {
                        c.one_of(span, "expect_each", code, &OUTCOMES, "outcome");
                    }
                    if each.len() != count as usize {
                        c.problem(
                            span.0,
                            span.1,
                            "expect_each",
                            format!(
                                "expect_each lists {} outcomes for {count} requests",
                                each.len()
                            ),
                            Some("give one outcome per request, or set `count` to match".into()),
                        );
                    }
                }
                if holding.get(&x.target).copied().unwrap_or(false) {
                    may_have_held.insert(x.target.clone());
                }
            }
            Step::SendConcurrent(x) => {
                if x.count == 0 {
                    c.problem(
                        span.0,
                        span.1,
                        "count",
                        "count must be at least 1".into(),
                        None,
                    );
                }
                // A race check explores every interleaving and judges each, so which
                // request gets which answer may differ between them.
                if !c.scenario.race && !holding.get(&x.target).copied().unwrap_or(false) {
                    c.problem(
                        span.0,
                        span.1,
                        "send_concurrent",
                        format!(
                            "send_concurrent to `{}`, which answers at once: which request gets which code would depend on thread timing",
                            x.target
                        ),
                        Some(format!(
                            "script `{}` to \"hold\" first, then release the held calls in a later step",
                            x.target
                        )),
                    );
                }
                if let Some(expect) = &x.expect {
                    for code in expect.keys() {
                        c.one_of(span, code, code, &OUTCOMES, "outcome");
                    }
                    let sum: u32 = expect.values().sum();
                    if sum != x.count {
                        c.problem(
                            span.0,
                            span.1,
                            "expect",
                            format!(
                                "expected outcomes add up to {sum}, but {} requests are sent",
                                x.count
                            ),
                            None,
                        );
                    }
                }
                may_have_held.insert(x.target.clone());
            }
            Step::Release(x) => {
                c.one_of(span, "answer", &x.answer, &RELEASE_ANSWERS, "answer");
                if let Some(code) = &x.expect {
                    c.one_of(span, "expect", code, &OUTCOMES, "outcome");
                }
                if x.count == Some(0) {
                    c.problem(
                        span.0,
                        span.1,
                        "count",
                        "count must be at least 1 (leave it out to release all)".into(),
                        None,
                    );
                }
                if !may_have_held.contains(&x.target) {
                    c.problem(
                        span.0,
                        span.1,
                        "release",
                        format!(
                            "release on `{}`, but no call to it can be held at this point",
                            x.target
                        ),
                        Some(format!(
                            "script `{}` to \"hold\" and send requests to it before releasing",
                            x.target
                        )),
                    );
                }
            }
            Step::Advance(x) => {
                if x.ms == 0 {
                    c.problem(
                        span.0,
                        span.1,
                        "ms",
                        "advancing by 0 ms does nothing".into(),
                        None,
                    );
                }
            }
            Step::Expect(x) => {
                if let Some(state) = &x.state {
                    c.one_of(span, "state", state, &STATES, "state");
                }
                if let Some(answered) = &x.answered {
                    for code in answered.keys() {
                        c.one_of(span, code, code, &ANSWER_CODES, "answer code");
                    }
                }
                let empty = x.state.is_none()
                    && x.calls.is_none()
                    && x.in_flight.is_none()
                    && x.peak.is_none()
                    && x.answered.is_none();
                if empty {
                    c.problem(
                        span.0,
                        span.1,
                        "expect",
                        "this expect step checks nothing".into(),
                        Some(
                            "give at least one of: state, calls, in_flight, peak, answered".into(),
                        ),
                    );
                }
            }
            Step::ExpectTransitions(lines) => {
                for line in lines {
                    if let Err(why) = parse_transition_line(line, &target_names) {
                        c.problem(
                            span.0,
                            span.1,
                            line,
                            format!("`{line}` is not a transition record: {why}"),
                            Some(
                                "write records like \"00:02:00.000 core_banking CLOSED -> OPEN\""
                                    .into(),
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// Checks a transition line: `HH:MM:SS.mmm target FROM -> TO`.
fn parse_transition_line(line: &str, targets: &[&str]) -> Result<(), String> {
    let parts: Vec<&str> = line.split(' ').collect();
    let [time, target, from, arrow, to] = parts[..] else {
        return Err("expected five parts separated by single spaces".into());
    };
    let time_ok = time.len() == 12
        && time.chars().enumerate().all(|(i, ch)| {
            if [2, 5].contains(&i) {
                ch == ':'
            } else if i == 8 {
                ch == '.'
            } else {
                ch.is_ascii_digit()
            }
        });
    if !time_ok {
        return Err(format!("`{time}` is not a time like 00:02:00.000"));
    }
    if !targets.contains(&target) {
        return Err(format!("unknown target `{target}`"));
    }
    for state in [from, to] {
        if !STATES.contains(&state) {
            return Err(format!("unknown state `{state}`"));
        }
    }
    if arrow != "->" {
        return Err("the states must be joined by ` -> `".into());
    }
    Ok(())
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
