//! Gradescope's `results.json`.
//!
//! One test per scenario: `name` is `<scenario>: <title>`, `number` is
//! `<category>.<scenario>` counted from 1 in report order, `tags` holds the category id,
//! `status` is `passed` or `failed` (a crash or a timeout is a failure whose output says
//! which), `output` (Markdown) holds the one-line reason, expected against observed, the
//! timeline and the hint; a test that did not pass and has a picture is HTML instead
//! (`output_format: "html"`): the same text, then the picture inline. Hidden scenarios are `after_published`: students see them
//! once grades are published, and until then they do not see the total either. The
//! top-level `output` holds the total, the compiler's messages when the code does not
//! compile, and the provenance, which is also in `extra_data`.

use std::io::Write;
use std::time::Duration;

use serde::Serialize;

use super::rejected::Rejected;
use super::{Report, ScenarioResult, Status, plain};
use crate::report::provenance::Provenance;
use grader_lab::quantity;

/// The whole `results.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Points earned (overrides the sum of the tests).
    pub score: f64,
    /// Seconds the grading took.
    pub execution_time: f64,
    /// About the whole submission.
    pub output: String,
    /// `md`.
    pub output_format: &'static str,
    /// `md`.
    pub test_output_format: &'static str,
    /// The grader's own log is for staff only.
    pub stdout_visibility: &'static str,
    /// `status` (`graded` or `could_not_grade`) and `provenance`.
    pub extra_data: ExtraData,
    /// One per scenario (or per declared file, when the submission could not be graded).
    pub tests: Vec<Test>,
}

/// Stored, not shown.
#[derive(Clone, Debug, Serialize)]
pub struct ExtraData {
    /// `graded` or `could_not_grade`.
    pub status: &'static str,
    /// Where the result comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// One test.
#[derive(Clone, Debug, Serialize)]
pub struct Test {
    /// Points earned.
    pub score: f64,
    /// Points available.
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: &'static str,
    /// `<scenario>: <title>`.
    pub name: String,
    /// `<category>.<scenario>`, from 1.
    pub number: String,
    /// What happened (Markdown, or HTML when `output_format` says so).
    pub output: String,
    /// `html` for a test whose output carries its picture; otherwise left out, and
    /// `test_output_format` applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_format: Option<&'static str>,
    /// The rubric category.
    pub tags: Vec<String>,
    /// `visible`, or `after_published` for hidden scenarios.
    pub visibility: &'static str,
}

/// Options of the Gradescope view.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// Put hints in test outputs.
    pub hints: bool,
    /// How long the grading took.
    pub time: Duration,
    /// The names of the hidden scenarios.
    pub hidden: &'a [String],
    /// Per scenario that did not pass, by name: its picture as an HTML fragment
    /// (`crate::picture::embed`), put after its text.
    pub pictures: Option<&'a std::collections::BTreeMap<String, String>>,
}

/// `results.json` for a graded report.
pub fn from_report(report: &Report, opts: Options<'_>) -> Results {
    let mut tests = Vec::new();
    let hidden: Vec<&str> = report
        .scenarios
        .iter()
        .filter(|s| opts.hidden.contains(&s.name))
        .map(|s| s.name.as_str())
        .collect();
    for (ci, cat) in report.categories.iter().enumerate() {
        for (si, s) in report
            .scenarios
            .iter()
            .filter(|s| s.category == cat.id)
            .enumerate()
        {
            let mut output = format!(
                "**{}** ({}/{} points): {}\n",
                plain::tag(s.status),
                s.score,
                s.max_score,
                if s.status == Status::Passed {
                    "passed"
                } else {
                    s.message.as_str()
                }
            );
            let why = plain::explanation(s, opts.hints);
            let picture = opts
                .pictures
                .and_then(|p| p.get(&s.name))
                .filter(|_| s.status != Status::Passed);
            let output_format = picture.map(|_| "html");
            if let Some(picture) = picture {
                output = html_output(&output, &why, picture);
            } else if !why.is_empty() {
                output.push_str(&format!("\n```text\n{}```\n", fence_safe(&why)));
            }
            tests.push(Test {
                score: f64::from(s.score),
                max_score: f64::from(s.max_score),
                status: if s.status == Status::Passed {
                    "passed"
                } else {
                    "failed"
                },
                name: format!("{}: {}", s.name, s.title),
                number: format!("{}.{}", ci + 1, si + 1),
                output,
                output_format,
                tags: vec![s.category.clone()],
                visibility: if hidden.contains(&s.name.as_str()) {
                    "after_published"
                } else {
                    "visible"
                },
            });
        }
    }
    // The output is shown at once: with hidden scenarios it counts only the visible ones,
    // since the total would give the hidden results away before they are published.
    let shown: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|s| !hidden.contains(&s.name.as_str()))
        .collect();
    let points = |list: &[&ScenarioResult]| -> (u32, u32) {
        (
            list.iter().map(|s| s.score).sum(),
            list.iter().map(|s| s.max_score).sum(),
        )
    };
    let (score, max) = points(&shown);
    let passed = shown.iter().filter(|s| s.status == Status::Passed).count();
    let mut output = if hidden.is_empty() {
        format!(
            "**Total: {score}/{max} points**, {passed} of {} passed.\n",
            quantity(shown.len() as u64, "scenario")
        )
    } else {
        format!(
            "**Visible scenarios: {score}/{max} points**, {passed} of {} passed. {} also ran: their results, and your total, show once grades are published.\n",
            shown.len(),
            quantity(hidden.len() as u64, "hidden scenario")
        )
    };
    for cat in &report.categories {
        let mine: Vec<&ScenarioResult> = shown
            .iter()
            .copied()
            .filter(|s| s.category == cat.id)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let (score, max) = points(&mine);
        output.push_str(&format!("\n- {}: {score}/{max}", cat.title));
    }
    output.push('\n');
    if let Some(errors) = &report.compile_errors {
        output.push_str(&format!(
            "\n**The code does not compile, so no scenario could run:**\n\n```text\n{}\n```\n",
            fence_safe(errors)
        ));
    }
    for w in &report.source_warnings {
        output.push_str(&format!("\n- warning: {}: {}", w.location, w.message));
    }
    if let Some(p) = &report.provenance {
        output.push_str(&format!(
            "\n\nProvenance: {}\n",
            p.line_for_students(&report.lab)
        ));
    }
    Results {
        score: f64::from(report.score),
        execution_time: seconds(opts.time),
        output,
        output_format: "md",
        test_output_format: "md",
        stdout_visibility: "hidden",
        extra_data: ExtraData {
            status: "graded",
            provenance: report.provenance.clone(),
        },
        tests,
    }
}

/// `results.json` for a submission that could not be graded: 0 points, and why.
pub fn from_rejected(rejected: &Rejected, time: Duration) -> Results {
    let mut output = format!(
        "**Could not grade this submission (0/{} points).** Some of the lab's files could not be taken from it:\n",
        rejected.max_score
    );
    for p in &rejected.problems {
        output.push_str(&format!("\n- `{}`: {}", p.looked_at, p.problem));
    }
    output.push_str(&format!(
        "\n\n(The submission was read as {}.)",
        rejected.read_as
    ));
    output.push_str(
        "\n\nSubmit the files the lab names (a clone of your repository, or just the files), then submit again.\n",
    );
    if let Some(p) = &rejected.provenance {
        output.push_str(&format!(
            "\nProvenance: {}\n",
            p.line_for_students(&rejected.lab)
        ));
    }
    Results {
        score: 0.0,
        execution_time: seconds(time),
        output,
        output_format: "md",
        test_output_format: "md",
        stdout_visibility: "hidden",
        extra_data: ExtraData {
            status: rejected.status,
            provenance: rejected.provenance.clone(),
        },
        tests: Vec::new(),
    }
}

/// The same structure for a failure of the grader itself, so that the platform always
/// gets a file that says what happened.
pub fn from_error(message: &str, time: Duration) -> Results {
    Results {
        score: 0.0,
        execution_time: seconds(time),
        output: format!(
            "**The grader could not grade this submission.** This is not a verdict on your code: please show this message to the course staff.\n\n```text\n{}\n```\n",
            fence_safe(message)
        ),
        output_format: "md",
        test_output_format: "md",
        stdout_visibility: "hidden",
        extra_data: ExtraData {
            status: "error",
            provenance: None,
        },
        tests: Vec::new(),
    }
}

/// A test's output as HTML: its first line (`**FAIL** (0/4 points): ...`, in Markdown's
/// bold), the explanation as preformatted text, then `picture`.
fn html_output(first: &str, why: &str, picture: &str) -> String {
    let line = crate::html::esc(first.trim_end());
    let line = match line.strip_prefix("**").and_then(|l| l.split_once("**")) {
        Some((tag, rest)) => format!("<strong>{tag}</strong>{rest}"),
        None => line,
    };
    format!(
        "<p>{line}</p>\n<pre>{}</pre>\n{picture}\n",
        crate::html::esc(why)
    )
}

/// Text safe inside a ``` fence: a line of backticks in it would close the fence.
fn fence_safe(text: &str) -> String {
    text.replace("```", "'''")
}

/// Seconds, to the millisecond.
fn seconds(d: Duration) -> f64 {
    (d.as_millis() as f64) / 1000.0
}

/// Writes `results` as pretty JSON with a final newline.
pub fn write(results: &Results, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, results)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_html_output_keeps_the_text_escaped_before_the_picture() {
        let out = html_output("**FAIL** (0/4 points): a <b>\n", "x < y\n", "<svg/>");
        assert_eq!(
            out,
            "<p><strong>FAIL</strong> (0/4 points): a &lt;b&gt;</p>\n<pre>x &lt; y\n</pre>\n<svg/>\n"
        );
    }

    #[test]
    fn fences_cannot_be_closed_from_inside() {
        assert_eq!(fence_safe("a\n```\nb"), "a\n'''\nb");
    }
}
