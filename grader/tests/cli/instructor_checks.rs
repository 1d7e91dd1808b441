//! The mistakes instructors make in their own files, each caught by `grader validate` with
//! a clear message at its place: a time that is not a time, an expectation at a time the
//! scenario's clock never reaches, a setting's value against its rule, a misspelt flow in
//! `targets`, drafts kept in a sub-folder, and a handout whose count of scenarios stopped
//! at the skeleton's `todo!()` went stale; and the audit's: a draft whose publishing would
//! move a mutant's Start here where its `caught_by` does not say, and (in the second lab's
//! tests) a scenario that catches nothing another one does not. The summary goes to
//! standard output.

use std::path::Path;
use std::process::Output;

use crate::util::{grader, scratch_kit, stdout, transcript};

/// A scratch kit with lab 5 only (a draft there can be told from nothing but its place).
fn lab5_kit() -> tempfile::TempDir {
    scratch_kit(&["Cargo.toml", "labs/lab5", "solutions/lab5/src"])
}

fn validate(kit: &Path, args: &[&str]) -> Output {
    grader()
        .arg("--kit")
        .arg(kit)
        .current_dir(kit)
        .arg("validate")
        .args(args)
        .output()
        .expect("run the grader")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A lab 5 draft named `name` with `steps` (a JSON list's insides) and `extra` header
/// members (each ending in a comma), written under `labs/lab5/drafts/<folder>`.
fn draft(kit: &Path, folder: &str, name: &str, extra: &str, steps: &str) -> String {
    let text = format!(
        r#"{{
  "format_version": 1,
  "name": "{name}",
  "title": "An alert after the circuit opens",
  "category": "alerts",
  "points": 3,
  "description": "Ten timeouts open acme/ORDERS and the operators hear of it.",
  "hint": "Send one alert when the circuit opens.",
  {extra}
  "steps": [
{steps}
  ]
}}
"#
    );
    let dir = kit.join("labs/lab5/drafts").join(folder);
    std::fs::create_dir_all(&dir).expect("create the drafts folder");
    std::fs::write(dir.join(format!("{name}.json")), &text).expect("write the draft");
    text
}

/// The steps that open acme/ORDERS after 3 s, then `last`.
fn opening_then(last: &str) -> String {
    format!(
        r#"    {{"advance": {{"ms": 3000}}}},
    {{"script": {{"flow": "acme/ORDERS", "answer": "timeout"}}}},
    {{"send": {{"flow": "acme/ORDERS", "count": 10, "expect": "timeout"}}}},
    {{"expect": {{"flow": "acme/ORDERS", "state": "OPEN"}}}},
    {last}"#
    )
}

/// `file:line:column` of the first `needle` in `text`, as diagnostics print it.
fn place(file: &str, text: &str, needle: &str) -> String {
    let offset = text.find(needle).expect("the needle");
    let line = text[..offset].matches('\n').count() + 1;
    let col = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{file}:{line}:{col}")
}

/// An alert at the time the clock is at once the steps of [`opening_then`] are done.
const ALERT_AT_3S: &str =
    r#"{"expect_alerts": ["00:00:03.000 acme/ORDERS opened: 10 of 10 calls failed"]}"#;

/// What `grader validate` says of the lab 5 draft `name` (the steps of [`opening_then`]
/// and `last`, with `extra` header members), which it must refuse: each message, placed
/// at the first `needle` of the file as `{at}`, must be in its standard error, which is
/// returned.
fn refused(name: &str, extra: &str, last: &str, needle: &str, messages: &[&str]) -> String {
    let kit = lab5_kit();
    let text = draft(kit.path(), "", name, extra, &opening_then(last));
    let file = format!("labs/lab5/drafts/{name}.json");
    let output = validate(kit.path(), &[&file]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    let at = place(&file, &text, needle);
    for message in messages {
        let message = message.replace("{at}", &at);
        assert!(err.contains(&message), "no `{message}` in:\n{err}");
    }
    err
}

#[test]
fn a_time_with_sixty_seconds_or_more_is_refused() {
    refused(
        "al_sixty_one_seconds",
        "",
        r#"{"expect_alerts": ["00:00:61.000 acme/ORDERS opened: 10 of 10 calls failed"]}"#,
        "00:00:61.000",
        &[
            "{at}: `00:00:61.000` is not a time: its seconds go from 00 to 59\n  help: write 00:01:01.000 if you mean 61 s after the start",
        ],
    );
}

#[test]
fn an_expectation_at_a_time_the_clock_never_reaches_is_refused() {
    refused(
        "al_alert_from_the_future",
        "",
        r#"{"expect_alerts": ["00:00:05.000 acme/ORDERS opened: 10 of 10 calls failed"]}"#,
        "00:00:05.000",
        &[
            "{at}: this step expects something at 00:00:05.000, but the scenario's clock is only at 00:00:03.000 when the step ends",
            "help: advance the clock by 2 s more before this step, or correct the time",
        ],
    );
    // The same alert at the time the clock is at is fine.
    let kit = lab5_kit();
    draft(
        kit.path(),
        "",
        "al_alert_on_time",
        "",
        &opening_then(ALERT_AT_3S),
    );
    let output = validate(kit.path(), &["labs/lab5/drafts/al_alert_on_time.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
}

#[test]
fn a_setting_out_of_its_range_is_told_its_rule() {
    let err = refused(
        "al_minus_five_probes",
        r#""targets": {"acme/ORDERS": {"probes": -5, "open_for_ms": -1}},"#,
        ALERT_AT_3S,
        "\"probes\"",
        &[
            "{at}: probes is -5, but probes must be 1 or more",
            "open_for_ms is -1, but it must be a whole number, 0 or more",
        ],
    );
    assert!(!err.contains("expected a whole number"), "{err}");
}

#[test]
fn a_misspelt_flow_in_targets_is_called_a_flow() {
    let err = refused(
        "al_misspelt_flow",
        r#""targets": {"acme/ORDRES": {"probes": 2}},"#,
        ALERT_AT_3S,
        "\"acme/ORDRES\"",
        &["{at}: unknown flow `acme/ORDRES`\n  help: did you mean `acme/ORDERS`?"],
    );
    assert!(!err.contains("target"), "{err}");
}

/// Lab 6 calls its targets dependencies: in its steps, its `targets` and its records.
#[test]
fn lab6_calls_a_misspelt_target_a_dependency_wherever_it_is() {
    let kit = scratch_kit(&["Cargo.toml", "labs/lab6"]);
    let text = r#"{
  "format_version": 1,
  "name": "br_misspelt",
  "title": "A misspelt dependency",
  "category": "breaker",
  "points": 1,
  "hint": "Open the circuit.",
  "targets": {"shiping": {"max_attempts": 1}},
  "steps": [
    {"send": {"target": "shipping", "expect": "confirmed"}},
    {"expect": {"target": "shippng", "state": "CLOSED"}}
  ]
}
"#;
    let dir = kit.path().join("labs/lab6/drafts");
    std::fs::create_dir_all(&dir).expect("create drafts");
    std::fs::write(dir.join("br_misspelt.json"), text).expect("write the draft");
    let output = validate(kit.path(), &["labs/lab6/drafts/br_misspelt.json"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    for word in ["shiping", "shippng"] {
        assert!(
            err.contains(&format!(
                "unknown dependency `{word}`\n  help: did you mean `shipping`?"
            )),
            "{err}"
        );
    }
    assert!(!err.contains("unknown target"), "{err}");
}

#[test]
fn a_folder_of_drafts_is_read_with_its_sub_folders_and_the_summary_says_so() {
    let kit = lab5_kit();
    draft(
        kit.path(),
        "",
        "al_top_draft",
        "",
        &opening_then(ALERT_AT_3S),
    );
    let text = draft(
        kit.path(),
        "older",
        "al_older_draft",
        "",
        &opening_then(r#"{"expect_alerts": ["00:00:90.000 acme/ORDERS closed"]}"#),
    );
    let output = validate(kit.path(), &["labs/lab5/drafts"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    let at = place(
        "labs/lab5/drafts/older/al_older_draft.json",
        &text,
        "00:00:90.000",
    );
    assert!(
        err.contains(&format!("{at}: `00:00:90.000` is not a time")),
        "{err}"
    );
    assert_eq!(
        stdout(&output),
        "labs/lab5/drafts: 2 scenario files (1 in sub-folders) of lab5: 1 problem\n"
    );
}

#[test]
fn the_summary_goes_to_standard_output() {
    let kit = lab5_kit();
    let output = validate(kit.path(), &["lab5"]);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let out = stdout(&output);
    assert!(
        out.starts_with("lab5: ") && out.ends_with(": all valid\n"),
        "{}",
        transcript(&output)
    );
    assert_eq!(
        stderr(&output),
        "",
        "nothing went wrong, so nothing on stderr"
    );
}

#[test]
fn fix_rewrites_the_skeletons_count_of_todo_stops() {
    let kit = lab5_kit();
    let handout = kit.path().join("labs/lab5/README.md");
    let text = std::fs::read_to_string(&handout).expect("read the handout");
    let visible = {
        let output = grader()
            .arg("--kit")
            .arg(kit.path())
            .args(["list", "lab5"])
            .output()
            .expect("run the grader");
        stdout(&output).matches("  visible").count()
    };
    let right = format!("{visible} scenarios stopped at todo!()");
    assert!(
        text.contains(&right),
        "the shipped handout is true: {right}"
    );
    let wrong = format!("{} scenarios stopped at todo!()", visible + 2);
    std::fs::write(&handout, text.replace(&right, &wrong)).expect("write the handout");

    let output = validate(kit.path(), &["lab5"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{}", transcript(&output));
    assert!(
        err.contains(&format!(
            "the handout says {} scenarios stopped at the skeleton's todo!(), but the lab has {visible}",
            visible + 2
        )),
        "{err}"
    );

    let output = validate(kit.path(), &["lab5", "--fix"]);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(
        stdout(&output)
            .starts_with("lab5: rewrote labs/lab5/README.md from the lab's data (1 change)"),
        "{}",
        transcript(&output)
    );
    let fixed = std::fs::read_to_string(&handout).expect("read the handout");
    assert!(fixed.contains(&right) && !fixed.contains(&wrong));
}

/// A copy of lab 4's scenario `source` named `name`, as a draft outside the kit: the same
/// steps, so it fails wherever that scenario fails, and the same hint or rule.
fn draft_copy(dir: &Path, source: &str, name: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(
        crate::util::kit().join(format!("labs/lab4/scenarios/{source}.json")),
    )
    .expect("read the scenario");
    let text = text.replace(
        &format!("\"name\": \"{source}\""),
        &format!("\"name\": \"{name}\""),
    );
    assert!(text.contains(name), "the copy is renamed");
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, text).expect("write the draft");
    path
}

fn audit_draft(draft: &Path, mutant: &str) -> Output {
    grader()
        .args(["audit", "lab4", "--scenario"])
        .arg(draft)
        .args(["--mutant", mutant, "--runs", "1", "-j", "4"])
        .output()
        .expect("run the grader")
}

/// `wait_from_first_failure` starts at `sm_wait_counts_from_the_opening_failure` step 10,
/// naming its rule (`trial_after_the_wait`). A copy of that scenario whose file sorts first
/// would take its place once published: the draft's audit says so, and, since the copy
/// names the same rule for that step, asks for nothing in `caught_by`.
#[test]
fn a_draft_audit_says_what_publishing_would_change_and_what_to_write_in_caught_by() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let source = "sm_wait_counts_from_the_opening_failure";
    let first = draft_copy(dir.path(), source, "sm_a_wait_counted_again");
    let output = audit_draft(&first, "wait_from_first_failure");
    let out = stdout(&output);
    // The draft itself is fine: its audit passes, and says what publishing it means.
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(
        out.contains("If the drafts were published:\n  - publishing sm_a_wait_counted_again would move mutant wait_from_first_failure's Start here from sm_wait_counts_from_the_opening_failure step 10 (with its hint) to sm_a_wait_counted_again step 10 (with its hint)"),
        "{out}"
    );
    assert!(
        out.contains("1. wait_from_first_failure  sm_a_wait_counted_again step 10 (rule trial_after_the_wait)"),
        "{out}"
    );
    assert!(!out.contains("When you publish"), "{out}");

    // The same copy sorted after the scenario changes nothing: no note, the audit passes.
    let last = draft_copy(dir.path(), source, "sm_z_wait_counted_again");
    let output = audit_draft(&last, "wait_from_first_failure");
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(!out.contains("If the drafts were published"), "{out}");
    assert!(!out.contains("When you publish"), "{out}");
}

/// A mutant whose rule is known is held to a Start here that names the rule, whichever
/// scenario it is in: `wait_restarts_from_deadline` starts at
/// `tr_trial_after_the_deadline` step 8 with its rule, and a copy that sorts first moves it
/// there with the same rule, so publishing the copy is noted and asks for nothing.
#[test]
fn a_draft_that_keeps_the_mutants_rule_asks_for_nothing() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let first = draft_copy(
        dir.path(),
        "tr_trial_after_the_deadline",
        "tr_a_late_trial_again",
    );
    let output = audit_draft(&first, "wait_restarts_from_deadline");
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert!(
        out.contains("If the drafts were published:\n  - publishing tr_a_late_trial_again would move mutant wait_restarts_from_deadline's Start here from tr_trial_after_the_deadline step 8 (with its hint) to tr_a_late_trial_again step 8 (with its hint)"),
        "{out}"
    );
    assert!(!out.contains("When you publish"), "{out}");
}
