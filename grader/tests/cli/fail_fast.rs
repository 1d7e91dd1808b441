//! Code that never ends is told as soon as one scenario showed it, each scenario with its
//! own verdict; and a stalled machine fails no correct submission. (How long each case
//! takes is measured by scripts/fail_fast.sh, never asserted here.)

use std::path::Path;
use std::time::Duration;

use crate::util::{grader, kit};

/// A submission folder holding the reference's three files, `find` replaced by `replace`
/// in relay.rs.
fn submission(find: &str, replace: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for name in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        let text =
            std::fs::read_to_string(kit().join("solutions/lab4/src").join(name)).expect("read");
        let text = if name == "relay.rs" {
            assert_eq!(text.matches(find).count(), 1, "{find} must occur once");
            text.replace(find, replace)
        } else {
            text
        };
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

/// The first line of `Relay::handle`.
const HANDLE: &str = "        let Some(lane) = self.lanes.get(&request.target) else {";
/// The first line of `Relay::new`.
const NEW: &str = "        let log = TransitionLog::new();";
/// Three scenarios that send requests, run one at a time so that the first one's verdict
/// is in before the others start.
const THREE: [&str; 3] = [
    "sm_all_system_errors_count",
    "be_b201_not_counted",
    "sm_opens_at_threshold",
];

/// Grades `dir` on `scenarios`, one at a time, with a limit of `timeout` seconds; returns
/// the JSON report.
fn grade(dir: &Path, scenarios: &[&str], timeout: &str) -> serde_json::Value {
    let mut cmd = grader();
    cmd.args(["check", "lab4", "--format", "json", "--jobs", "1"])
        .args(["--timeout", timeout, "--submission"])
        .arg(dir);
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    let output = cmd.output().expect("the grader runs");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The scenarios of `report`, in the order they were asked for.
fn scenarios<'a>(report: &'a serde_json::Value, names: &[&str]) -> Vec<&'a serde_json::Value> {
    names
        .iter()
        .map(|name| {
            report["scenarios"]
                .as_array()
                .and_then(|all| all.iter().find(|s| s["name"] == *name))
                .unwrap_or_else(|| panic!("no scenario {name} in {report}"))
        })
        .collect()
}

fn message(s: &serde_json::Value) -> &str {
    s["message"].as_str().unwrap_or("")
}

/// Checks a submission whose requests never return and stay busy: the first scenario is
/// told stuck at the full limit, the others at the cut one, each with its own step.
fn busy_requests_are_told_at_the_cut_limit(replace: &str) {
    let dir = submission(HANDLE, &format!("{replace}\n{HANDLE}"));
    let report = grade(dir.path(), &THREE, "2");
    let all = scenarios(&report, &THREE);
    assert_eq!(report["score"], 0, "{report}");
    for s in &all {
        assert_eq!(s["status"], "failed", "{s}");
        assert_eq!(s["stuck"], true, "{s}");
        assert!(message(s).contains("still running inside the relay"), "{s}");
    }
    assert!(
        message(all[0]).contains("after 1000 ms of real time"),
        "{}",
        all[0]
    );
    for s in &all[1..] {
        assert!(
            message(s).contains("after 100 ms of real time")
                && message(s).contains(
                    "(told after 100 ms rather than 1000 ms: a request of scenario `sm_all_system_errors_count` already ran busy for 1000 ms)"
                ),
            "{s}"
        );
    }
}

#[test]
fn an_endless_loop_in_a_request_is_told_once_at_the_full_limit() {
    busy_requests_are_told_at_the_cut_limit("        while std::hint::black_box(true) {}");
}

#[test]
fn threads_that_spin_are_told_once_at_the_full_limit() {
    busy_requests_are_told_at_the_cut_limit(
        "        let spinning: Vec<_> = (0..2).map(|_| std::thread::spawn(|| while std::hint::black_box(true) {})).collect();\n        for t in spinning { let _ = t.join(); }",
    );
}

#[test]
fn a_constructor_that_never_returns_is_waited_for_once() {
    let dir = submission(
        NEW,
        &format!(
            "        let gate = std::sync::Mutex::new(());\n        let _held = gate.lock();\n        let _again = gate.lock();\n{NEW}"
        ),
    );
    let report = grade(dir.path(), &THREE, "2");
    let all = scenarios(&report, &THREE);
    assert_eq!(report["score"], 0, "{report}");
    for s in &all {
        assert_eq!(s["status"], "timeout", "{s}");
        assert!(
            message(s).contains("before the first step, while building the relay"),
            "{s}"
        );
    }
    assert!(
        message(all[0]).starts_with("still running after 2 s of real time"),
        "{}",
        all[0]
    );
    for s in &all[1..] {
        assert!(
            message(s).starts_with("still running after 200 ms of real time")
                && message(s).ends_with(
                    "(stopped after 200 ms rather than 2 s: scenario `sm_all_system_errors_count` already ran for 2 s without getting past it)"
                ),
            "{s}"
        );
    }
}

#[test]
fn a_deadlock_in_a_request_is_told_blocked_in_every_scenario() {
    let dir = submission(
        HANDLE,
        &format!(
            "        let gate = std::sync::Mutex::new(());\n        let _held = gate.lock();\n        let _again = gate.lock();\n{HANDLE}"
        ),
    );
    let report = grade(dir.path(), &THREE, "2");
    assert_eq!(report["score"], 0, "{report}");
    for s in scenarios(&report, &THREE) {
        assert_eq!(s["status"], "failed", "{s}");
        assert!(message(s).contains("blocked for good"), "{s}");
        assert!(!message(s).contains("rather than"), "{s}");
    }
}

/// A submission whose `Relay::new` writes 1 GB to standard output.
fn flooding() -> tempfile::TempDir {
    submission(
        NEW,
        &format!(
            "        {{\n            use std::io::Write;\n            let line = vec![b'x'; 1 << 20];\n            let mut out = std::io::stdout().lock();\n            for _ in 0..1024 {{\n                let _ = out.write_all(&line);\n            }}\n        }}\n{NEW}"
        ),
    )
}

#[test]
fn a_gigabyte_on_standard_output_changes_no_verdict() {
    let dir = flooding();
    let report = grade(dir.path(), &THREE, "5");
    for s in scenarios(&report, &THREE) {
        assert_eq!(s["status"], "passed", "{s}");
    }
}

/// The pids of the processes below `root` whose command name starts with `name`.
fn below(root: u32, name: &str) -> Vec<u32> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_owned();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0);
        parents.push((pid, ppid, comm));
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(parents.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    parents
        .iter()
        .filter(|(pid, _, comm)| tree.contains(pid) && comm.starts_with(name))
        .map(|(pid, _, _)| *pid)
        .collect()
}

#[test]
// The test plays a machine that stalls: it stops each scenario's process for longer than
// the limit, in real time.
#[allow(clippy::disallowed_methods, unsafe_code)]
fn a_stalled_machine_fails_no_correct_submission() {
    // Correct, with a constructor slow enough to be caught running.
    let dir = submission(
        NEW,
        &format!("        std::thread::sleep(std::time::Duration::from_millis(300));\n{NEW}"),
    );
    let names = ["be_b201_not_counted", "sm_opens_at_threshold"];
    // Built first, so that only the scenarios run while the test watches.
    let _ = grade(dir.path(), &names[..1], "5");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
    cmd.current_dir(kit())
        .env("NO_COLOR", "1")
        .env_remove("GRADER_WORK_DIR")
        .args(["check", "lab4", "--format", "json", "--jobs", "1"])
        .args(["--timeout", "1", "--submission"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for s in names {
        cmd.args(["--scenario", s]);
    }
    let child = cmd.spawn().expect("the grader starts");
    let root = child.id();
    let watcher = std::thread::spawn(move || {
        let mut stopped = Vec::new();
        // Stops every scenario process it finds for 1.5 s, 1.5 times the limit.
        for _ in 0..2000 {
            for pid in below(root, "harness") {
                if !stopped.contains(&pid) {
                    stopped.push(pid);
                    // SAFETY: plain kill(2) of a process this test's grader started.
                    unsafe { libc::kill(pid as libc::pid_t, libc::SIGSTOP) };
                    std::thread::sleep(Duration::from_millis(1500));
                    unsafe { libc::kill(pid as libc::pid_t, libc::SIGCONT) };
                }
            }
            if std::fs::metadata(format!("/proc/{root}")).is_err() || stopped.len() == names.len() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        stopped.len()
    });
    let output = child.wait_with_output().expect("the grader ends");
    let stopped = watcher.join().expect("the watcher ends");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(stopped > 0, "no scenario process was caught running");
    for s in scenarios(&report, &names) {
        assert_eq!(s["status"], "passed", "{s}");
    }
}

#[test]
fn a_race_check_that_uses_up_its_cpu_time_cuts_the_next_ones() {
    // Each schedule's relay prints 1 GB: the explorer never gets through its schedules
    // within the CPU limit.
    let dir = flooding();
    let names = ["race_bulkhead_limit", "race_single_trial"];
    let mut cmd = grader();
    cmd.args(["check", "lab4", "--format", "json", "--jobs", "1"])
        .args(["--cpu-seconds", "3", "--submission"])
        .arg(dir.path());
    for s in names {
        cmd.args(["--scenario", s]);
    }
    let output = cmd.output().expect("the grader runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let all = scenarios(&report, &names);
    for s in &all {
        assert_eq!(s["status"], "timeout", "{s}");
        assert!(
            message(s).starts_with("exploring the schedules used up its CPU time"),
            "{s}"
        );
    }
    assert!(!message(all[0]).contains("was cut"), "{}", all[0]);
    assert!(
        message(all[1]).ends_with(
            "(the CPU limit was cut from 3 s to 1 s: scenario `race_bulkhead_limit` already showed code that never ends)"
        ),
        "{}",
        all[1]
    );
}
