//! What a student uses besides `check`: `list`, `explain` and `watch`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::util::{grader, kit, stdout};

#[test]
fn list_shows_every_scenario_with_category_points_and_visibility() {
    let output = grader()
        .args(["list", "lab4"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!("list", stdout(&output));
}

#[test]
fn explain_says_what_a_scenario_does_in_words() {
    let output = grader()
        .args(["explain", "lab4", "tr_full_cycle"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    insta::assert_snapshot!("explain_tr_full_cycle", stdout(&output));
}

/// Starts `grader watch` on a scratch copy of the kit, waits for the first report of the
/// skeleton, saves the reference's files into the student crate, and checks that the
/// second report shows the new total and what changed.
#[test]
fn watch_grades_again_when_a_file_is_saved() {
    // A kit and work folder at the same place every run, so its builds are reused.
    let root = crate::util::test_dir("watch");
    let scratch = root.join("kit");
    crate::util::copy_kit_paths(
        &scratch,
        &[
            "Cargo.toml",
            "Cargo.lock",
            "crates",
            "fixtures",
            "grader/harness",
            "grader/lab",
            "grader/protocol",
            "solutions",
            "labs/lab4/lab.json",
            "labs/lab4/rules.json",
            "labs/lab4/scenarios",
            "labs/lab4/harness",
            "labs/lab4/race",
            "grader/race",
        ],
    );
    let work = root.join("cache/work");
    // The test saves other files into the student crate: the skeleton's must be newer
    // than that build, or cargo would take the cached one for them.
    for file in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        let path = scratch.join("crates/relay_base/src").join(file);
        let text = std::fs::read(&path).expect("read a skeleton file");
        std::fs::write(&path, text).expect("write it again, with a new time");
    }
    let child = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["watch", "lab4", "--max-runs", "2"])
        .current_dir(&scratch)
        .env("NO_COLOR", "1")
        .env("GRADER_WORK_DIR", &work)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("grader watch starts");
    let mut lines = Bounded::new(child, WATCH_LIMIT);
    let mut seen = Vec::new();
    while let Some(line) = lines.next_line(&seen) {
        let first_total = line.starts_with("Total:");
        seen.push(line);
        if first_total {
            break;
        }
    }
    assert!(
        seen.iter()
            .any(|l| l == "Total: 0/205 points, 0 of 48 scenarios passed"),
        "first report:\n{}",
        seen.join("\n")
    );
    for file in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        std::fs::copy(
            kit().join("solutions/lab4/src").join(file),
            scratch.join("crates/relay_base/src").join(file),
        )
        .expect("save a file");
    }
    let mut rest: Vec<String> = Vec::new();
    while let Some(line) = lines.next_line(&rest) {
        rest.push(line);
    }
    let status = lines.wait(&rest);
    let text = rest.join("\n");
    assert_eq!(status.code(), Some(0), "{text}");
    assert!(
        rest.iter()
            .any(|l| l.starts_with("+205 points (205/205): State machine now passes")),
        "the second report opens with what changed:\n{text}"
    );
    assert!(
        text.contains("Total: 205/205 points, 48 of 48 scenarios passed"),
        "{text}"
    );
}

/// How long `grader watch` may take for its two runs, cold builds included, before the
/// test stops it and fails: a missed file event must fail the test, never hang it.
const WATCH_LIMIT: Duration = Duration::from_secs(600);

/// A child's standard output, line by line, read on a thread so that waiting for a line
/// has a deadline. At the deadline the child is killed and the test fails, saying what it
/// had printed.
struct Bounded {
    child: Child,
    lines: Receiver<String>,
    deadline: Instant,
}

impl Bounded {
    #[allow(clippy::disallowed_methods)] // A watchdog: real time is the point.
    fn new(mut child: Child, limit: Duration) -> Self {
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            deadline: Instant::now() + limit,
        }
    }

    #[allow(clippy::disallowed_methods)] // A watchdog: real time is the point.
    fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The next line, or `None` when the output has ended.
    fn next_line(&mut self, seen: &[String]) -> Option<String> {
        match self.lines.recv_timeout(self.left()) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => self.give_up(seen),
        }
    }

    /// Waits for the child to exit, at most until the deadline.
    fn wait(&mut self, seen: &[String]) -> ExitStatus {
        loop {
            if let Some(status) = self.child.try_wait().expect("ask whether it ended") {
                return status;
            }
            if self.left().is_zero() {
                self.give_up(seen);
            }
            // Look again shortly: the output has ended, so the exit is moments away.
            std::thread::park_timeout(Duration::from_millis(20));
        }
    }

    fn give_up(&mut self, seen: &[String]) -> ! {
        let _ = self.child.kill();
        let _ = self.child.wait();
        panic!(
            "grader watch did not finish within {} s (a file event missed?); it printed:\n{}",
            WATCH_LIMIT.as_secs(),
            seen.join("\n")
        );
    }
}

#[test]
fn list_without_a_lab_lists_the_labs() {
    let output = grader()
        .args(["list"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let text = stdout(&output);
    let row = text
        .lines()
        .find(|l| l.starts_with("lab4 "))
        .unwrap_or_else(|| panic!("no row for lab4:\n{text}"));
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        words[1..5].join(" "),
        "Circuit breaker and bulkhead",
        "{row}"
    );
    assert_eq!(words[words.len() - 1], "280", "{row}");
}
