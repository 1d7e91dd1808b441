//! A lab's handout (`labs/<lab>/README.md`) against the lab's data, so that a handout
//! cannot go stale silently: `grader validate` (and so `grader release`) reports every
//! number that the scenarios decide and the handout gets wrong, at its line and column,
//! and `grader validate --fix` rewrites them.
//!
//! What is checked, in any lab's handout:
//!
//! - the rubric table between `<!-- grader: rubric -->` and `<!-- grader: end -->`, which
//!   is generated whole: one row per category of `lab.json` (its `title` and `checks`),
//!   with its visible scenarios and their points, and the visible total;
//! - in the text: `N visible scenarios` and `N hidden scenarios`, either followed by
//!   `worth P points`, `worth P more points` or `(P points)`; `hidden scenarios worth P
//!   points` without a count; `lab total of T`;
//! - the grader's own report lines in examples: `Total: S/M points, P of N scenarios
//!   passed` (M and N must be the visible points and scenarios: examples show whole
//!   runs), a category's line, `Title   S/M` (M its visible points), and the skeleton's
//!   `N scenarios stopped at todo!()` (N the visible scenarios: on the skeleton, every
//!   one stops at the first `todo!()`).
//!
//! A student edition has no hidden scenarios to count: there, only their points (the
//! lab's total less the visible points) are checked.

use std::ops::Range;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Lines};
use crate::lab::Lab;
use crate::scenario::{Scenario, Visibility};

/// Where the generated rubric starts and ends.
pub const RUBRIC_START: &str = "<!-- grader: rubric -->";
/// See [`RUBRIC_START`].
pub const RUBRIC_END: &str = "<!-- grader: end -->";

/// The numbers of a lab that a handout states.
#[derive(Clone, Debug)]
pub struct Facts {
    visible: u64,
    visible_points: u64,
    /// `None` in a student edition, which has no hidden scenarios to count.
    hidden: Option<u64>,
    hidden_points: u64,
    total_points: u64,
    /// Per category: title, what it checks, visible scenarios, their points.
    categories: Vec<(String, String, u64, u64)>,
}

impl Facts {
    /// The facts of `lab` with these scenarios (all of them, hidden ones where the kit has
    /// them: `instructor_edition`).
    pub fn of(lab: &Lab, scenarios: &[Scenario], instructor_edition: bool) -> Facts {
        let visible: Vec<&Scenario> = scenarios
            .iter()
            .filter(|s| s.visibility == Visibility::Visible)
            .collect();
        let points = |list: &[&Scenario]| list.iter().map(|s| u64::from(s.points)).sum::<u64>();
        let visible_points = points(&visible);
        // The instructors' edition has every scenario to add up (`total_points` is
        // checked against them on its own); a student edition has only the manifest.
        let total_points = if instructor_edition {
            scenarios.iter().map(|s| u64::from(s.points)).sum()
        } else {
            u64::from(lab.manifest.total_points)
        };
        let categories = lab
            .manifest
            .categories
            .iter()
            .map(|c| {
                let mine: Vec<&Scenario> = visible
                    .iter()
                    .copied()
                    .filter(|s| s.category == c.id)
                    .collect();
                (
                    c.title.clone(),
                    c.checks.clone(),
                    mine.len() as u64,
                    points(&mine),
                )
            })
            .collect();
        Facts {
            visible: visible.len() as u64,
            visible_points,
            hidden: instructor_edition.then(|| (scenarios.len() - visible.len()) as u64),
            hidden_points: total_points.saturating_sub(visible_points),
            total_points,
            categories,
        }
    }

    /// The same, with `n` generated scenarios worth `points` graded in CI: hidden
    /// scenarios like the others (none are counted in a student edition, which has only
    /// the manifest's total).
    pub fn with_generated(mut self, n: u64, points: u64) -> Facts {
        if let Some(hidden) = &mut self.hidden {
            *hidden += n;
            self.hidden_points += points;
            self.total_points += points;
        }
        self
    }

    /// The rubric table, as the handout has it between the markers.
    pub fn rubric(&self) -> String {
        let mut table = String::from(
            "| Category | Scenarios | Points | What it checks |\n|---|---:|---:|---|\n",
        );
        for (title, checks, n, points) in &self.categories {
            table.push_str(&format!("| {title} | {n} | {points} | {checks} |\n"));
        }
        table.push_str(&format!(
            "| **Total (visible)** | **{}** | **{}** | |\n",
            self.visible, self.visible_points
        ));
        table
    }
}

/// One thing the handout gets wrong: where, what it says, and what it should say.
#[derive(Clone, Debug)]
struct Stale {
    /// Where to report it.
    at: usize,
    /// What to replace with `replace_with` to fix it.
    range: Range<usize>,
    replace_with: String,
    message: String,
}

/// What the handout check found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Each stale number or table, placed.
    pub problems: Vec<Diagnostic>,
    /// The handout with every problem fixed, when there is one.
    pub fixed: Option<(PathBuf, String)>,
}

/// Checks the handout of `lab` against `facts`. A lab without a handout has nothing to
/// check.
pub fn check(lab: &Lab, facts: &Facts) -> Findings {
    let path = lab.dir.join("README.md");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Findings::default();
    };
    let shown = crate::lab::kit::shown_path(&lab.kit, &path);
    let fix = format!(
        "`grader validate {} --fix` rewrites the handout's numbers and rubric from the lab's data",
        lab.manifest.name
    );
    let stale = stale(&text, facts);
    if stale.is_empty() {
        return Findings::default();
    }
    let lines = Lines::new(&text);
    let problems = stale
        .iter()
        .map(|s| Diagnostic::at(&shown, lines.pos(s.at), &s.message).help(&fix))
        .collect();
    Findings {
        problems,
        fixed: Some((path, fixed(&text, &stale))),
    }
}

/// Everything `text` gets wrong, in text order.
fn stale(text: &str, facts: &Facts) -> Vec<Stale> {
    let mut stale = rubric(text, facts);
    stale.extend(numbers(text, facts));
    stale.extend(category_lines(text, facts));
    stale.sort_by_key(|s| s.range.start);
    stale
}

/// `text` with everything in `stale` fixed.
fn fixed(text: &str, stale: &[Stale]) -> String {
    let mut fixed = text.to_owned();
    for s in stale.iter().rev() {
        fixed.replace_range(s.range.clone(), &s.replace_with);
    }
    fixed
}

/// The rubric block: stale unless it is exactly what the facts generate.
fn rubric(text: &str, facts: &Facts) -> Vec<Stale> {
    let Some(range) = rubric_range(text) else {
        return Vec::new();
    };
    let want = facts.rubric();
    let have = &text[range.clone()];
    if have == want {
        return Vec::new();
    }
    // Point at the first line that differs.
    let first = have
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
    let offset = range.start
        + have
            .split_inclusive('\n')
            .take(first)
            .map(str::len)
            .sum::<usize>();
    let should = want
        .lines()
        .nth(first)
        .unwrap_or("(nothing: the table ends here)");
    vec![Stale {
        at: offset,
        range,
        replace_with: want.clone(),
        message: format!(
            "the rubric table is out of date: its row {} should be `{should}`",
            first + 1
        ),
    }]
}

/// The text between the rubric markers (from the line after the first to the start of
/// the line of the second).
fn rubric_range(text: &str) -> Option<Range<usize>> {
    let start = text.find(RUBRIC_START)?;
    let after = start + text[start..].find('\n')? + 1;
    let end = after + text[after..].find(RUBRIC_END)?;
    let end = text[..end].rfind('\n').map_or(after, |i| i + 1).max(after);
    Some(after..end)
}

/// A word of the text and where it is.
struct Word<'a> {
    text: &'a str,
    range: Range<usize>,
}

fn words(text: &str) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, ch) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let part = ch.is_ascii_alphanumeric() || ch == '_';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push(Word {
                    text: &text[s..i],
                    range: s..i,
                });
                start = None;
            }
            _ => {}
        }
    }
    words
}

fn number(w: Option<&Word<'_>>) -> Option<u64> {
    w?.text.parse().ok()
}

fn is(w: Option<&Word<'_>>, any: &[&str]) -> bool {
    w.is_some_and(|w| any.iter().any(|a| w.text.eq_ignore_ascii_case(a)))
}

/// A stale number, or nothing when `found` is what it should be.
fn expect(w: &Word<'_>, found: u64, want: u64, what: &str) -> Option<Stale> {
    (found != want).then(|| Stale {
        at: w.range.start,
        range: w.range.clone(),
        replace_with: want.to_string(),
        message: format!("the handout says {found} {what}, but the lab has {want}"),
    })
}

/// The numbers of the text's phrases (outside the generated rubric).
fn numbers(text: &str, facts: &Facts) -> Vec<Stale> {
    let skip = rubric_range(text);
    let words: Vec<Word<'_>> = words(text)
        .into_iter()
        .filter(|w| skip.as_ref().is_none_or(|r| !r.contains(&w.range.start)))
        .collect();
    let at = |i: usize| words.get(i);
    let mut stale = Vec::new();
    for i in 0..words.len() {
        // `N visible scenarios`, `N hidden scenarios`, `hidden scenarios`: then the points.
        let kind = is(at(i), &["visible", "hidden"]) && is(at(i + 1), &["scenario", "scenarios"]);
        if kind {
            let hidden = is(at(i), &["hidden"]);
            // The count is the word just before, in the same sentence.
            let before = i.checked_sub(1).and_then(&at).filter(|b| {
                at(i).is_some_and(|w| text[b.range.end..w.range.start].trim().is_empty())
            });
            if let (Some(n), Some(w)) = (number(before), before) {
                let want = if hidden {
                    facts.hidden
                } else {
                    Some(facts.visible)
                };
                if let Some(want) = want {
                    let what = if hidden {
                        "hidden scenarios"
                    } else {
                        "visible scenarios"
                    };
                    stale.extend(expect(w, n, want, what));
                }
            }
            let mut j = i + 2;
            if is(at(j), &["worth"]) {
                j += 1;
            }
            let points_at = j;
            if is(at(j + 1), &["more"]) {
                j += 1;
            }
            if let (Some(p), true) = (number(at(points_at)), is(at(j + 1), &["point", "points"])) {
                let (want, what) = if hidden {
                    (facts.hidden_points, "points of hidden scenarios")
                } else {
                    (facts.visible_points, "points of visible scenarios")
                };
                if let Some(w) = at(points_at) {
                    stale.extend(expect(w, p, want, what));
                }
            }
        }
        // The skeleton's report, `N scenarios stopped at todo!()`: every visible
        // scenario stops at the first `todo!()` the grader meets.
        let skeleton_line = is(at(i + 1), &["scenarios", "scenario"])
            && is(at(i + 2), &["stopped"])
            && is(at(i + 3), &["at"])
            && is(at(i + 4), &["todo"]);
        if skeleton_line {
            if let (Some(n), Some(w)) = (number(at(i)), at(i)) {
                stale.extend(expect(
                    w,
                    n,
                    facts.visible,
                    "scenarios stopped at the skeleton's todo!()",
                ));
            }
        }
        // `lab total of T`.
        if is(at(i), &["lab"]) && is(at(i + 1), &["total"]) && is(at(i + 2), &["of"]) {
            if let (Some(t), Some(w)) = (number(at(i + 3)), at(i + 3)) {
                stale.extend(expect(w, t, facts.total_points, "points in all"));
            }
        }
        // A report's `Total: S/M points, P of N scenarios passed`.
        let total_line = at(i).is_some_and(|w| w.text == "Total")
            && is(at(i + 3), &["points", "point"])
            && is(at(i + 5), &["of"])
            && is(at(i + 7), &["scenarios", "scenario"]);
        if total_line {
            if let (Some(m), Some(w)) = (number(at(i + 2)), at(i + 2)) {
                stale.extend(expect(w, m, facts.visible_points, "points in a whole run"));
            }
            if let (Some(n), Some(w)) = (number(at(i + 6)), at(i + 6)) {
                stale.extend(expect(w, n, facts.visible, "scenarios in a whole run"));
            }
        }
    }
    stale
}

/// A report's category lines in examples: `Title   S/M`, M the category's visible points.
fn category_lines(text: &str, facts: &Facts) -> Vec<Stale> {
    let mut stale = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end();
        let indent = body.len() - body.trim_start().len();
        for (title, _, _, points) in &facts.categories {
            let Some(rest) = body.trim_start().strip_prefix(title.as_str()) else {
                continue;
            };
            if !rest.starts_with("  ") {
                continue;
            }
            let Some((s, m)) = rest.trim().split_once('/') else {
                continue;
            };
            let (Ok(_), Ok(m)) = (s.parse::<u64>(), m.parse::<u64>()) else {
                continue;
            };
            let start =
                offset + indent + title.len() + rest.len() - rest.trim_start().len() + s.len() + 1;
            let w = Word {
                text: "",
                range: start..start + m.to_string().len(),
            };
            stale.extend(expect(&w, m, *points, &format!("points for {title}")));
        }
        offset += line.len();
    }
    stale
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lab of two categories: 5 visible scenarios (3 + 2) worth 20 points (12 + 8), 2
    /// hidden worth 6, 26 in all.
    fn facts(instructor_edition: bool) -> Facts {
        Facts {
            visible: 5,
            visible_points: 20,
            hidden: instructor_edition.then_some(2),
            hidden_points: 6,
            total_points: 26,
            categories: vec![
                ("Flows".into(), "Each flow on its own.".into(), 3, 12),
                ("Alerts (`A1`)".into(), "Every alert, once.".into(), 2, 8),
            ],
        }
    }

    const STALE: &str = "The grader runs 4 visible scenarios worth 16 points; 3 hidden scenarios (5 points) run in CI, for a lab total of 21.
Hidden scenarios worth 5 more points run too.

```text
Flows                                    0/10
Total: 0/16 points, 0 of 4 scenarios passed
```

<!-- grader: rubric -->
| Category | Scenarios | Points | What it checks |
|---|---:|---:|---|
| Flows | 2 | 10 | Each flow on its own. |
<!-- grader: end -->
";

    #[test]
    fn every_number_the_lab_decides_is_checked_and_fixed() {
        let found = stale(STALE, &facts(true));
        let messages: Vec<&str> = found.iter().map(|s| s.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "the handout says 4 visible scenarios, but the lab has 5",
                "the handout says 16 points of visible scenarios, but the lab has 20",
                "the handout says 3 hidden scenarios, but the lab has 2",
                "the handout says 5 points of hidden scenarios, but the lab has 6",
                "the handout says 21 points in all, but the lab has 26",
                "the handout says 5 points of hidden scenarios, but the lab has 6",
                "the handout says 10 points for Flows, but the lab has 12",
                "the handout says 16 points in a whole run, but the lab has 20",
                "the handout says 4 scenarios in a whole run, but the lab has 5",
                "the rubric table is out of date: its row 3 should be `| Flows | 3 | 12 | Each flow on its own. |`",
            ]
        );
        let fixed = fixed(STALE, &found);
        assert!(stale(&fixed, &facts(true)).is_empty(), "{fixed}");
        assert!(fixed.contains("| **Total (visible)** | **5** | **20** | |\n<!-- grader: end -->"));
        assert!(fixed.contains("Total: 0/20 points, 0 of 5 scenarios passed"));
    }

    #[test]
    fn the_skeletons_count_of_todo_stops_is_every_visible_scenario() {
        let text = "Start here:\n  43 scenarios stopped at todo!() at src/gateway.rs:43:9: build it\n  2 scenarios stopped at a panic at src/x.rs:1:1\n";
        let found = stale(text, &facts(true));
        let messages: Vec<&str> = found.iter().map(|s| s.message.as_str()).collect();
        assert_eq!(
            messages,
            ["the handout says 43 scenarios stopped at the skeleton's todo!(), but the lab has 5"]
        );
        let fixed = fixed(text, &found);
        assert!(
            fixed.contains("  5 scenarios stopped at todo!() at"),
            "{fixed}"
        );
        assert!(
            fixed.contains("  2 scenarios stopped at a panic"),
            "{fixed}"
        );
    }

    #[test]
    fn a_student_edition_does_not_count_hidden_scenarios() {
        let text = "3 hidden scenarios worth 6 more points run in CI.";
        assert!(stale(text, &facts(false)).is_empty());
        assert_eq!(stale(text, &facts(true)).len(), 1);
    }
}
