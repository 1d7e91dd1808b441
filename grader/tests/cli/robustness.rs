//! Code under test that panics, loops, deadlocks, aborts or overflows its stack costs the
//! scenarios it breaks, with a clear reason, in bounded time; the others still score.

use std::path::Path;

use crate::util::{grader, kit};

/// A submission folder holding the reference's three files, with `find` replaced by
/// `replace` in `file`.
fn submission(file: &str, find: &str, replace: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for name in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        let text =
            std::fs::read_to_string(kit().join("solutions/lab4/src").join(name)).expect("read");
        let text = if name == file {
            assert_eq!(
                text.matches(find).count(),
                1,
                "{find} must occur once in {name}"
            );
            text.replace(find, replace)
        } else {
            text
        };
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

/// Grades `dir` on `scenarios` with a short time limit; returns the JSON report.
fn grade(dir: &Path, scenarios: &[&str]) -> serde_json::Value {
    let mut cmd = grader();
    cmd.args([
        "check",
        "lab4",
        "--format",
        "json",
        "--timeout",
        "2",
        "--submission",
    ])
    .arg(dir);
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    let output = cmd.output().expect("the grader runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

fn scenario<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["scenarios"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no scenario {name} in {report}"))
}

#[test]
fn a_panic_names_the_students_file_and_line() {
    let dir = submission(
        "bulkhead.rs",
        "        Self {\n            limit,",
        "        panic!(\"no bulkhead today\");\n        #[allow(unreachable_code)]\n        Self {\n            limit,",
    );
    let report = grade(dir.path(), &["bh_rejects_over_limit"]);
    let s = scenario(&report, "bh_rejects_over_limit");
    assert_eq!(s["status"], "error");
    let message = s["message"].as_str().expect("a message");
    assert!(
        message.contains(
            "while building the relay (Relay::new): panicked at bulkhead.rs:30:9: no bulkhead today"
        ),
        "{message}"
    );
}

#[test]
fn an_endless_loop_in_a_request_is_stopped_and_the_other_scenarios_still_score() {
    let dir = submission(
        "breaker.rs",
        "matches!(code, Code::E500 | Code::E901 | Code::E902)",
        "if code == Code::E902 { loop { std::hint::spin_loop(); } }\n    matches!(code, Code::E500 | Code::E901 | Code::E902)",
    );
    let report = grade(
        dir.path(),
        &["sm_all_system_errors_count", "be_b201_not_counted"],
    );
    let looping = scenario(&report, "sm_all_system_errors_count");
    // The request never comes back and is busy, not blocked: the real-time limit names
    // it and the scenario fails.
    assert_eq!(looping["status"], "failed", "{looping}");
    let message = looping["message"].as_str().unwrap_or("");
    assert!(message.contains("step 4 at 00:00:00.000 (send 1 request to core_banking): request #2 still running inside the relay after 1000 ms of real time, neither returned nor held inside core_banking"), "{message}");
    assert_eq!(scenario(&report, "be_b201_not_counted")["status"], "passed");
    assert_eq!(report["score"], 5);
}

#[test]
fn a_deadlock_in_breaker_state_is_named() {
    let dir = submission(
        "breaker.rs",
        "        self.lock().state\n",
        "        let _held = self.lock();\n        self.lock().state\n",
    );
    let report = grade(dir.path(), &["be_b201_not_counted"]);
    let s = scenario(&report, "be_b201_not_counted");
    // The look after the first step blocks on the lock its own thread holds: every thread
    // is then waiting, which is told at once rather than after a time limit.
    assert_eq!(s["status"], "failed", "{s}");
    let message = s["message"].as_str().unwrap_or("");
    assert!(message.contains("step 1 at 00:00:00.000 (script core_banking to answer B201 for insufficient funds): the grader's call to Relay::breaker_state or Relay::transitions blocked for good"), "{message}");
    assert_eq!(s["stuck"], true, "{s}");
}

#[test]
fn an_abort_costs_only_the_scenarios_that_reach_it() {
    let dir = submission(
        "breaker.rs",
        "matches!(code, Code::E500 | Code::E901 | Code::E902)",
        "if code == Code::E902 { std::process::abort(); }\n    matches!(code, Code::E500 | Code::E901 | Code::E902)",
    );
    let report = grade(
        dir.path(),
        &["sm_all_system_errors_count", "be_b201_not_counted"],
    );
    let s = scenario(&report, "sm_all_system_errors_count");
    assert_eq!(s["status"], "error", "{s}");
    assert!(
        s["message"]
            .as_str()
            .unwrap_or("")
            .contains("killed by signal 6"),
        "{s}"
    );
    assert_eq!(scenario(&report, "be_b201_not_counted")["status"], "passed");
}

#[test]
fn a_stack_overflow_is_reported_as_one() {
    let dir = submission(
        "breaker.rs",
        "matches!(code, Code::E500 | Code::E901 | Code::E902)",
        "if code == Code::E901 { return deeper(code, [0; 64]); }\n    matches!(code, Code::E500 | Code::E901 | Code::E902)\n}\n\n#[allow(unconditional_recursion)]\nfn deeper(code: Code, pad: [u64; 64]) -> bool {\n    std::hint::black_box(pad);\n    deeper(code, pad)",
    );
    let report = grade(dir.path(), &["sm_all_system_errors_count"]);
    let s = scenario(&report, "sm_all_system_errors_count");
    assert_eq!(s["status"], "error", "{s}");
    assert!(
        s["message"]
            .as_str()
            .unwrap_or("")
            .contains("stack overflow"),
        "{s}"
    );
}

#[test]
fn the_cpu_limit_can_be_set_on_the_command_line() {
    // Spins in Relay::new, where no request watchdog looks: only a limit stops it.
    let dir = submission(
        "relay.rs",
        "        let log = TransitionLog::new();",
        "        let log = TransitionLog::new();\n        while std::hint::black_box(true) {}",
    );
    let output = grader()
        .args([
            "check",
            "lab4",
            "--format",
            "json",
            "--timeout",
            "60",
            "--cpu-seconds",
            "1",
        ])
        .args(["--scenario", "be_b201_not_counted", "--submission"])
        .arg(dir.path())
        .output()
        .expect("the grader runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let s = scenario(&report, "be_b201_not_counted");
    assert_eq!(s["status"], "timeout", "{s}");
    assert!(
        s["message"].as_str().unwrap_or("").contains("CPU time"),
        "{s}"
    );
}
