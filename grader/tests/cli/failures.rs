//! What a student reads when a scenario fails: the step, the fake-clock time, expected
//! against observed, the timeline with the failing step marked, and the hint. One
//! snapshot per kind of failure, each on a known-wrong variant of the reference.

use crate::subs::{Layout, folder, mutant, write};
use crate::util::{grader, stdout};

/// The human report of mutant `name` on `scenario`, with the provenance line (hashes that
/// change whenever a scenario file does) left out.
fn report(name: &str, scenario: &str) -> String {
    let dir = folder(&format!("failure-{name}"));
    write(&dir, Layout::Flat, &mutant(name));
    let output = grader()
        .args(["check", "lab4", "--scenario", scenario, "--submission"])
        .arg(&*dir)
        .output()
        .expect("the grader runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The submission's folder is a fresh temporary one on every run.
    stdout(&output)
        .replace(&dir.display().to_string(), "[SUBMISSION]")
        .lines()
        .filter(|l| !l.starts_with("grader "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_wrong_answer_shows_expected_observed_timeline_and_the_scenarios_hint() {
    insta::assert_snapshot!(report("b201_counted", "be_b201_resets_count"));
}

#[test]
fn wrong_records_show_both_lists() {
    insta::assert_snapshot!(report(
        "no_transition_records",
        "tr_two_targets_one_timeline"
    ));
}

#[test]
fn a_request_stuck_in_the_relay_gets_the_stuck_hint() {
    insta::assert_snapshot!(report(
        "queueing_bulkhead",
        "bh_full_bulkhead_answers_at_once"
    ));
}

#[test]
fn simultaneous_requests_are_counted_not_numbered() {
    insta::assert_snapshot!(report("many_trials", "ho_single_trial_under_concurrency"));
}

/// A scenario that runs a target with other settings than the lab's says which, under
/// Start here and in its own entry: a bulkhead that ignores its limit is shown a limit
/// of 2, not left to assume the default 3.
#[test]
fn a_scenario_with_its_own_settings_names_them() {
    insta::assert_snapshot!(report(
        "default_bulkhead_limit",
        "bh_rejections_between_failures_change_nothing"
    ));
}
