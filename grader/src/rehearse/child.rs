//! Running a rehearsal program: the plan on its standard input, the record from the file
//! its one argument names, in its own process group, killed as a group when it ends or
//! runs over.
//!
//! The code under test runs inside this program, so the program is started in one place,
//! [`command`]: that is where a sandbox wraps it (a private network namespace keeps its
//! loopback, and the record's folder must be writable inside).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use grader_lab::rehearsal::Plan;

use crate::error::Error;
use crate::run::runner::{capped_reader, kill_group};

/// How the program ended, when it did not write a record.
#[derive(Debug)]
pub struct Crashed {
    /// What happened, in words.
    pub why: String,
    /// The start of what it printed on standard error.
    pub stderr: String,
}

/// The command that starts `program`, writing its record to `record`, in `dir`: the one
/// place a rehearsal program is started.
pub fn command(program: &Path, record: &Path, dir: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .arg(record)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .process_group(0);
    command
}

/// Runs `program` on `plan`; it is killed if it runs `grace` past the plan's length. The
/// record's text, or how the program crashed.
pub fn run(program: &Path, plan: &Plan, grace: Duration) -> Result<Result<String, Crashed>, Error> {
    let dir = tempfile::Builder::new()
        .prefix("grader-rehearsal-")
        .tempdir()
        .map_err(|e| Error::io("create a temporary folder in", &std::env::temp_dir(), e))?;
    let output = dir.path().join("record.json");
    let mut child = command(program, &output, dir.path())
        .spawn()
        .map_err(|e| Error::io("start the rehearsal program", program, e))?;
    let stderr = child.stderr.take().map(capped_reader);
    if let Some(mut stdin) = child.stdin.take() {
        // A program that dies before reading its plan shows up below as a crash.
        let _ = stdin.write_all(&plan.input);
    }
    let limit = Duration::from_secs_f64(plan.runs_for_s.max(0.0)) + grace;
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let timed_out = done_rx.recv_timeout(limit).is_err();
    // Whatever happened, nothing it started may outlive it.
    kill_group(pid);
    let status = waiter.join().ok().and_then(Result::ok);
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let crashed = |why: String| {
        Ok(Err(Crashed {
            why,
            stderr: stderr.clone(),
        }))
    };
    if timed_out {
        return crashed(format!(
            "the rehearsal program was still running {} s after the rehearsal should have ended, and was stopped",
            grace.as_secs()
        ));
    }
    match std::fs::read_to_string(&output) {
        Ok(text) => Ok(Ok(text)),
        Err(_) => {
            let how = status.map_or_else(|| "ended".to_owned(), |s| format!("ended with {s}"));
            crashed(format!(
                "the rehearsal program {how} without writing its record"
            ))
        }
    }
}
