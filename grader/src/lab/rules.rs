//! A lab's rules (`labs/<lab>/rules.json`): every rule a student's code must keep, the
//! hint that goes with it, and the signs by which a failure shows it.
//!
//! This is the one place where a lab's rules and hints live. Scenarios name the rules
//! their steps check (`rule`, `checks`); a report names the rule of the step that failed
//! and gives that rule's hint, and "Start here" names the rule most failures point at
//! (`judge::rules`, `judge::lead`).

use std::path::Path;

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;

/// The rules file format version this grader reads.
pub const RULES_FORMAT_VERSION: u32 = 1;

/// The name of a lab's rules file, in its folder.
pub const FILE_NAME: &str = "rules.json";

/// `labs/<lab>/rules.json`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Must be 1.
    #[serde(default)]
    pub format_version: u32,
    /// The rules, in the order the lab teaches them.
    #[serde(default)]
    pub rules: Vec<Rule>,
}

/// One rule of a lab.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// How scenarios and mutants name it: lowercase letters, digits and `_`.
    pub id: String,
    /// The rule in one sentence, as a report states it.
    pub rule: String,
    /// What to do about a failure of it: shown with every failure that points at it.
    pub hint: String,
    /// Ways a failure at any step of any scenario shows this rule broken, whatever the
    /// scenario is about.
    #[serde(default)]
    pub signs: Vec<Sign>,
    /// The race checks' properties (`single_trial`) whose breaking breaks this rule.
    #[serde(default)]
    pub race_properties: Vec<String>,
    /// Requests stuck inside the code under test break this rule (one rule of a lab at
    /// most). Their hint is then the lab's own words for what the harness saw.
    #[serde(default)]
    pub stuck: bool,
    /// Rules this one rests on (the rate is judged over the window, so `opens_at_rate`
    /// builds on `window_keeps_latest`): when most failures point at this rule but a
    /// failure at a step named for one of these shows that one broken where this rule
    /// does not explain it, "Start here" names the one it builds on: the foundation is
    /// fixed first.
    #[serde(default)]
    pub builds_on: Vec<String>,
}

/// What a failure looks like when it shows a rule broken.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sign {
    /// A word the step observed that it did not expect (`E904`, `CLOSED`, `queued`);
    /// any when absent.
    #[serde(default)]
    pub seen: Option<String>,
    /// Only when the step observed nothing but `seen` (every request of it ended that
    /// way): no request at all got through, say, rather than one too few.
    #[serde(default)]
    pub only: bool,
    /// Words the step expected and did not observe, one of which must be missing; any
    /// when empty.
    #[serde(default)]
    pub instead_of: Vec<String>,
    /// Only when the clock moved since the last step that expected something: the first
    /// check after a wait.
    #[serde(default)]
    pub after_advance: bool,
}

impl Rules {
    /// The rule `id`.
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The rule requests stuck in the code under test break, if the lab names one.
    pub fn stuck(&self) -> Option<&Rule> {
        self.rules.iter().find(|r| r.stuck)
    }

    /// The rule a broken race property breaks.
    pub fn for_property(&self, property: &str) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|r| r.race_properties.iter().any(|p| p == property))
    }

    /// The ids, in the file's order.
    pub fn ids(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.id.as_str()).collect()
    }

    /// Reads `<dir>/rules.json`; a lab without one has no rules, and its scenarios give
    /// hints of their own. `kit` is for the paths messages show.
    pub fn load(kit: &Path, dir: &Path) -> Result<Rules, Error> {
        let path = dir.join(FILE_NAME);
        if !path.is_file() {
            return Ok(Rules::default());
        }
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
        let shown = crate::lab::kit::shown_path(kit, &path);
        let rules: Rules =
            serde_json::from_str(&text).map_err(|e| super::json_problem(&shown, &e))?;
        let problems = rules.problems(&shown, &text);
        if problems.is_empty() {
            Ok(rules)
        } else {
            Err(Error::Invalid(problems))
        }
    }

    /// What is wrong with rules read from `text`, each at the place of its rule.
    fn problems(&self, shown: &Path, text: &str) -> Vec<Diagnostic> {
        // The rule `i` starts where the `i`-th `"id"` key is.
        let starts: Vec<usize> = text.match_indices("\"id\"").map(|(at, _)| at).collect();
        let at = |i: usize| Pos::of_offset(text, starts.get(i).copied().unwrap_or(0));
        let mut problems = Vec::new();
        if self.format_version != RULES_FORMAT_VERSION {
            problems.push(
                Diagnostic::at(
                    shown,
                    Pos::of_offset(text, text.find("\"format_version\"").unwrap_or(0)),
                    format!(
                        "format_version {} is not supported; this grader reads version {RULES_FORMAT_VERSION}",
                        self.format_version
                    ),
                )
                .help(format!("set \"format_version\": {RULES_FORMAT_VERSION}")),
            );
        }
        let mut stuck: Option<&str> = None;
        for (i, r) in self.rules.iter().enumerate() {
            let problem = |message: String| Diagnostic::at(shown, at(i), message);
            let valid = !r.id.is_empty()
                && r.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !valid {
                problems.push(problem(format!(
                    "the rule id `{}` must be lowercase letters, digits and `_` only",
                    r.id
                )));
            }
            if self.rules[..i].iter().any(|o| o.id == r.id) {
                problems.push(
                    problem(format!("the rule `{}` is listed twice", r.id))
                        .help("give each rule an id of its own"),
                );
            }
            for (what, words) in [("rule", &r.rule), ("hint", &r.hint)] {
                if words.trim().is_empty() {
                    problems.push(problem(format!("the {what} of rule `{}` is empty", r.id)));
                }
            }
            let empty = |w: &str| w.trim().is_empty();
            let vague = r.signs.iter().any(|s| {
                s.seen.as_deref().is_none_or(empty) && s.instead_of.iter().all(|w| empty(w))
                    || s.seen.as_deref().is_some_and(empty)
                    || s.instead_of.iter().any(|w| empty(w))
                    || s.only && s.seen.is_none()
            });
            if vague {
                problems.push(
                    problem(format!("a sign of rule `{}` names no word to look for", r.id))
                        .help("give each sign a `seen` (a word the failing step observed: an outcome, a state) or an `instead_of` (words it expected); `only` needs a `seen`"),
                );
            }
            match (r.stuck, stuck) {
                (true, Some(first)) => problems.push(
                    problem(format!(
                        "rule `{}` says \"stuck\": true, and so does rule `{first}`: stuck requests break one rule",
                        r.id
                    ))
                    .help("keep \"stuck\": true on one rule"),
                ),
                (true, None) => stuck = Some(&r.id),
                _ => {}
            }
            for b in &r.builds_on {
                if b == &r.id {
                    problems.push(problem(format!("rule `{b}` cannot build on itself")));
                } else if self.get(b).is_none() {
                    problems.push(
                        problem(format!(
                            "rule `{}` builds on `{b}`, which is not a rule of this file",
                            r.id
                        ))
                        .help("name in `builds_on` the id of another rule of rules.json"),
                    );
                }
            }
            for p in &r.race_properties {
                if let Some(first) = self.rules[..i]
                    .iter()
                    .find(|o| o.race_properties.contains(p))
                {
                    problems.push(problem(format!(
                        "the race property `{p}` belongs to rule `{}` already",
                        first.id
                    )));
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<String> {
        let rules: Rules = serde_json::from_str(text).expect("rules");
        rules
            .problems(Path::new("rules.json"), text)
            .into_iter()
            .map(|d| d.to_string())
            .collect()
    }

    #[test]
    fn a_rule_twice_two_stuck_rules_a_shared_property_and_a_bad_foundation_are_refused() {
        let text = r#"{"format_version": 1, "rules": [
  {"id": "a", "rule": "A.", "hint": "Do a.", "stuck": true, "race_properties": ["p"]},
  {"id": "b", "rule": "B.", "hint": "Do b.", "stuck": true, "race_properties": ["p"]},
  {"id": "a", "rule": "A again.", "hint": " "},
  {"id": "c", "rule": "C.", "hint": "Do c.", "builds_on": ["c", "nowhere", "a"]}
]}"#;
        let problems = read(text);
        assert_eq!(
            problems,
            [
                "rules.json:3:4: rule `b` says \"stuck\": true, and so does rule `a`: stuck requests break one rule\n  help: keep \"stuck\": true on one rule",
                "rules.json:3:4: the race property `p` belongs to rule `a` already",
                "rules.json:4:4: the rule `a` is listed twice\n  help: give each rule an id of its own",
                "rules.json:4:4: the hint of rule `a` is empty",
                "rules.json:5:4: rule `c` cannot build on itself",
                "rules.json:5:4: rule `c` builds on `nowhere`, which is not a rule of this file\n  help: name in `builds_on` the id of another rule of rules.json",
            ]
        );
    }
}
