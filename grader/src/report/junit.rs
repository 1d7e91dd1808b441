//! JUnit XML, for GitLab, Jenkins and the GitHub Actions test reporters.
//!
//! One `<testsuite>` per rubric category (named by its id), one `<testcase>` per scenario
//! (named by the scenario, class `<lab>.<category>`). A scenario that failed has a
//! `<failure>`, one that crashed or ran out of time an `<error>`; either's `message` is
//! the one-line reason and its text the expected and observed values, the timeline and
//! the hint. JUnit has no points, so they are properties: `score` and `max_score` on each
//! test case and suite, with the provenance on every suite.
//!
//! With a page of timelines, each test case has a property `timeline`, the page and the
//! scenario's place on it, and one that did not pass names the page as an attachment in
//! its `system-out` (`[[ATTACHMENT|/path/timeline.html]]`, which Jenkins' JUnit
//! attachments and GitLab read).
//!
//! Code that does not compile adds a `build` suite whose `compile` case holds the
//! compiler's messages. A submission that cannot be graded is one `submission` suite
//! with a case per declared file.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::plain;
use super::rejected::Rejected;
use super::{Report, ScenarioResult, Status};
use crate::report::provenance::Provenance;

/// Options of the JUnit view.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// Put hints in failure texts.
    pub hints: bool,
    /// Total wall time of the grading, written as the `time` of `<testsuites>`.
    pub time: Option<Duration>,
    /// The page of timelines written beside the report, as an absolute path.
    pub page: Option<&'a Path>,
}

/// The JUnit document for a graded report.
pub fn from_report(report: &Report, opts: Options<'_>) -> quick_junit::Report {
    let mut junit = quick_junit::Report::new(report.lab.as_str());
    if let Some(t) = opts.time {
        junit.set_time(t);
    }
    if let Some(errors) = &report.compile_errors {
        let mut suite = TestSuite::new("build");
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_message("the code does not compile, so no scenario could run")
            .set_type("compile_error")
            .set_description(errors.as_str());
        let mut case = TestCase::new("compile", status);
        case.set_classname(format!("{}.build", report.lab));
        suite.add_test_case(case);
        add_provenance(&mut suite, report.provenance.as_ref());
        junit.add_test_suite(suite);
    }
    for cat in &report.categories {
        let mut suite = TestSuite::new(cat.id.as_str());
        suite.add_properties([
            Property::new("title", cat.title.as_str()),
            Property::new("score", cat.score.to_string()),
            Property::new("max_score", cat.max_score.to_string()),
        ]);
        add_provenance(&mut suite, report.provenance.as_ref());
        for s in report.scenarios.iter().filter(|s| s.category == cat.id) {
            suite.add_test_case(case(&report.lab, s, opts));
        }
        junit.add_test_suite(suite);
    }
    junit
}

fn case(lab: &str, s: &ScenarioResult, opts: Options<'_>) -> TestCase {
    let hints = opts.hints;
    let status = match s.status {
        Status::Passed => TestCaseStatus::success(),
        other => {
            let kind = if other == Status::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut status = TestCaseStatus::non_success(kind);
            status
                .set_message(s.message.as_str())
                .set_type(other.as_str())
                .set_description(plain::explanation(s, hints));
            status
        }
    };
    let mut case = TestCase::new(s.name.as_str(), status);
    case.set_classname(format!("{lab}.{}", s.category));
    case.add_properties([
        Property::new("title", s.title.as_str()),
        Property::new("score", s.score.to_string()),
        Property::new("max_score", s.max_score.to_string()),
    ]);
    if let Some(page) = opts.page {
        case.add_property(Property::new(
            "timeline",
            format!("{}#{}", page.display(), crate::html::anchor(&s.name)),
        ));
        if s.status != Status::Passed {
            case.set_system_out(format!("[[ATTACHMENT|{}]]\n", page.display()));
        }
    }
    case
}

/// The JUnit document for a submission that could not be graded.
pub fn from_rejected(
    rejected: &Rejected,
    declared: &[String],
    time: Option<Duration>,
) -> quick_junit::Report {
    let mut junit = quick_junit::Report::new(rejected.lab.as_str());
    if let Some(t) = time {
        junit.set_time(t);
    }
    let mut suite = TestSuite::new("submission");
    suite.add_properties([
        Property::new("status", rejected.status),
        Property::new("score", "0"),
        Property::new("max_score", rejected.max_score.to_string()),
    ]);
    add_provenance(&mut suite, rejected.provenance.as_ref());
    for file in declared {
        let status = match rejected.problems.iter().find(|p| &p.file == file) {
            None => TestCaseStatus::success(),
            Some(p) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status
                    .set_message(format!("{}: {}", p.looked_at, p.problem))
                    .set_type(rejected.status)
                    .set_description(rejected.explain());
                status
            }
        };
        let mut case = TestCase::new(file.as_str(), status);
        case.set_classname(format!("{}.submission", rejected.lab));
        suite.add_test_case(case);
    }
    junit.add_test_suite(suite);
    junit
}

fn add_provenance(suite: &mut TestSuite, provenance: Option<&Provenance>) {
    let Some(p) = provenance else { return };
    suite.add_properties([
        Property::new("kit_version", p.kit_version.as_str()),
        Property::new("scenarios", p.scenarios.to_string()),
        Property::new("scenarios_sha256", p.scenarios_sha256.as_str()),
        Property::new(
            "visible_scenarios_sha256",
            p.visible_scenarios_sha256.as_str(),
        ),
        Property::new("student_files_sha256", p.student_files_sha256.as_str()),
        Property::new("reproduce", p.reproduce.as_str()),
    ]);
    for f in &p.student_files {
        suite.add_property(Property::new(
            format!("sha256:{}", f.path),
            f.sha256.as_str(),
        ));
    }
}

/// Writes a JUnit document.
pub fn write(junit: &quick_junit::Report, out: &mut dyn Write) -> std::io::Result<()> {
    junit.serialize(&mut *out).map_err(std::io::Error::other)?;
    writeln!(out)
}
