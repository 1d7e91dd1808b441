//! PrairieLearn's external-grader `results.json` (`/grade/results/results.json`).
//!
//! Every field PrairieLearn's documentation gives for the file is written: `gradable`,
//! `score` (a fraction from 0 to 1), `message`, `output`, `images`, and `tests[]` with
//! `name`, `description`, `points`, `max_points`, `message`, `output` and `images`.
//! Images are data URLs, none yet (pictures of failing scenarios can go there later). A
//! submission whose files cannot be taken, and a grader that fails, are not gradable
//! (`gradable: false` with `format_errors`), so the student loses no attempt; code that
//! does not compile is graded, 0 points, as on every other platform of the kit.
//!
//! PrairieLearn shows every test to the student, and cannot hold results back until a
//! date. So the visible scenarios are one test each, as described as everywhere else,
//! and the hidden ones are counted in the score but not described: they are one test,
//! `hidden scenarios`, with their points and how many passed, and no name, step or hint
//! of any of them.

use std::io::Write;

use serde::Serialize;

use super::rejected::Rejected;
use super::{Report, ScenarioResult, Status, plain};

/// The whole `results.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Whether the submission could be graded.
    pub gradable: bool,
    /// The fraction of the points earned, from 0 to 1.
    pub score: f64,
    /// One line about the whole submission.
    pub message: String,
    /// About the whole submission: points per category, the compiler's messages,
    /// real-clock warnings, the provenance.
    pub output: String,
    /// Pictures for the whole submission, as data URLs.
    pub images: Vec<Image>,
    /// Why the submission cannot be graded (only when it cannot).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub format_errors: Vec<String>,
    /// One per visible scenario, and one for all the hidden ones.
    pub tests: Vec<Test>,
}

/// One test.
#[derive(Clone, Debug, Serialize)]
pub struct Test {
    /// `<scenario>`.
    pub name: String,
    /// The scenario's title.
    pub description: String,
    /// Points earned.
    pub points: u32,
    /// Points available.
    pub max_points: u32,
    /// `passed`, or the one-line reason.
    pub message: String,
    /// Expected against observed, the timeline, the hint.
    pub output: String,
    /// Pictures of the test, as data URLs.
    pub images: Vec<Image>,
}

/// A picture: a data URL and its label.
#[derive(Clone, Debug, Serialize)]
pub struct Image {
    /// `Figure` when not given.
    pub label: String,
    /// `data:image/svg+xml;base64,...`.
    pub url: String,
}

/// The name of the one test that counts the hidden scenarios.
pub const HIDDEN_TEST: &str = "hidden scenarios";

/// `results.json` for a graded report; `hidden` names its hidden scenarios.
pub fn from_report(report: &Report, hints: bool, hidden: &[String]) -> Results {
    let is_hidden = |s: &ScenarioResult| hidden.contains(&s.name);
    let mut tests: Vec<Test> = Vec::new();
    for cat in &report.categories {
        for s in report
            .scenarios
            .iter()
            .filter(|s| s.category == cat.id && !is_hidden(s))
        {
            tests.push(Test {
                name: s.name.clone(),
                description: format!("{} ({})", s.title, cat.title),
                points: s.score,
                max_points: s.max_score,
                message: if s.status == Status::Passed {
                    "passed".to_owned()
                } else {
                    format!("{}: {}", plain::tag(s.status), s.message)
                },
                output: plain::explanation(s, hints),
                images: Vec::new(),
            });
        }
    }
    let secret: Vec<&ScenarioResult> = report.scenarios.iter().filter(|s| is_hidden(s)).collect();
    if !secret.is_empty() {
        let passed = secret.iter().filter(|s| s.status == Status::Passed).count();
        tests.push(Test {
            name: HIDDEN_TEST.to_owned(),
            description: "scenarios the course keeps hidden: they count, and are not described"
                .to_owned(),
            points: secret.iter().map(|s| s.score).sum(),
            max_points: secret.iter().map(|s| s.max_score).sum(),
            message: format!("{passed} of {} passed", secret.len()),
            output: String::new(),
            images: Vec::new(),
        });
    }
    let mut output = String::new();
    for cat in &report.categories {
        let mine: Vec<&ScenarioResult> = report
            .scenarios
            .iter()
            .filter(|s| s.category == cat.id && !is_hidden(s))
            .collect();
        if !mine.is_empty() {
            output.push_str(&format!(
                "{}: {}/{}\n",
                cat.title,
                mine.iter().map(|s| s.score).sum::<u32>(),
                mine.iter().map(|s| s.max_score).sum::<u32>()
            ));
        }
    }
    if let Some(errors) = &report.compile_errors {
        output.push_str(&format!(
            "\nThe code does not compile, so no scenario could run:\n\n{errors}\n"
        ));
    }
    for w in &report.source_warnings {
        output.push_str(&format!("\nwarning: {}: {}", w.location, w.message));
    }
    if let Some(p) = &report.provenance {
        output.push_str(&format!(
            "\n\nProvenance: {}\n",
            p.line_for_students(&report.lab)
        ));
    }
    let passed = report
        .scenarios
        .iter()
        .filter(|s| s.status == Status::Passed)
        .count();
    Results {
        gradable: true,
        score: fraction(report.score, report.max_score),
        message: if report.compile_errors.is_some() {
            format!(
                "{}/{} points: the code does not compile",
                report.score, report.max_score
            )
        } else {
            format!(
                "{}/{} points, {passed} of {} scenarios passed",
                report.score,
                report.max_score,
                report.scenarios.len()
            )
        },
        output,
        images: Vec::new(),
        format_errors: Vec::new(),
        tests,
    }
}

/// `results.json` for a submission whose files cannot be taken: not gradable, and why.
pub fn from_rejected(rejected: &Rejected) -> Results {
    let errors: Vec<String> = rejected
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.looked_at, p.problem))
        .collect();
    Results {
        gradable: false,
        score: 0.0,
        message: format!(
            "Not graded: some of the lab's files could not be taken from the submission (read as {}). Submit the files the lab names, then submit again.",
            rejected.read_as
        ),
        output: String::new(),
        images: Vec::new(),
        format_errors: errors,
        tests: Vec::new(),
    }
}

/// The same structure for a failure of the grader itself: not gradable, so the student
/// loses nothing, with the grader's words for the course staff.
pub fn from_error(message: &str) -> Results {
    Results {
        gradable: false,
        score: 0.0,
        message: "The grader could not grade this submission. This is not a verdict on your code: please show this message to the course staff.".to_owned(),
        output: message.to_owned(),
        images: Vec::new(),
        format_errors: vec![message.lines().next().unwrap_or("").to_owned()],
        tests: Vec::new(),
    }
}

/// `score / max`, from 0 to 1 (0 when nothing is to be had).
fn fraction(score: u32, max: u32) -> f64 {
    if max == 0 {
        return 0.0;
    }
    (f64::from(score) / f64::from(max)).clamp(0.0, 1.0)
}

/// Writes `results` as pretty JSON with a final newline.
pub fn write(results: &Results, out: &mut dyn Write) -> std::io::Result<()> {
    super::json::pretty(results, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_fractions() {
        assert_eq!(fraction(0, 206), 0.0);
        assert_eq!(fraction(206, 206), 1.0);
        assert!((fraction(103, 206) - 0.5).abs() < 1e-12);
        assert_eq!(fraction(3, 0), 0.0);
    }

    #[test]
    fn a_grader_failure_is_not_gradable_and_keeps_every_field() {
        let r = serde_json::to_value(from_error("the kit is broken\nmore")).expect("JSON");
        assert_eq!(r["gradable"], false);
        assert_eq!(r["format_errors"][0], "the kit is broken");
        for field in ["score", "message", "output", "images", "tests"] {
            assert!(!r[field].is_null(), "{field} missing: {r}");
        }
    }
}
