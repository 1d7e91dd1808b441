//! Running the rehearsal program: the plan on its standard input, the record from the file
//! the plan names, in its own process group, killed as a group when it ends or runs over.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rehearsal_protocol::{PROTOCOL_VERSION, Plan, Record, Script};

use crate::error::Error;

/// How the program ended, when it did not write a record.
#[derive(Debug)]
pub struct Crashed {
    /// What happened, in words.
    pub why: String,
    /// The start of what it printed on standard error.
    pub stderr: String,
}

/// Runs `program` on `script` (already fitted to the run), waiting for answers `drain_ms`
/// after the end; it is killed if it runs `grace` past that.
pub fn run(
    program: &Path,
    script: &Script,
    drain_ms: f64,
    grace: Duration,
) -> Result<Result<Record, Crashed>, Error> {
    let dir = tempfile::Builder::new()
        .prefix("grader-rehearsal-")
        .tempdir()
        .map_err(|e| Error::io("create a temporary folder in", &std::env::temp_dir(), e))?;
    let output = dir.path().join("record.json");
    let plan = Plan {
        protocol: PROTOCOL_VERSION,
        output_path: output.display().to_string(),
        script: script.clone(),
        drain_ms,
    };
    let input = serde_json::to_vec(&plan).unwrap_or_default();
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .current_dir(dir.path())
        .env("RUST_BACKTRACE", "0")
        .process_group(0)
        .spawn()
        .map_err(|e| Error::io("start the rehearsal program", program, e))?;
    let stderr = child.stderr.take().map(crate::runner::capped_reader);
    if let Some(mut stdin) = child.stdin.take() {
        // A program that dies before reading its plan shows up below as a crash.
        let _ = stdin.write_all(&input);
    }
    let limit = Duration::from_secs_f64((script.duration_s * 1000.0 + drain_ms) / 1000.0) + grace;
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let timed_out = done_rx.recv_timeout(limit).is_err();
    // Whatever happened, nothing it started may outlive it.
    crate::runner::kill_group(pid);
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
    let text = match std::fs::read_to_string(&output) {
        Ok(t) => t,
        Err(_) => {
            let how = status.map_or_else(|| "ended".to_owned(), |s| format!("ended with {s}"));
            return crashed(format!(
                "the rehearsal program {how} without writing its record"
            ));
        }
    };
    match serde_json::from_str::<Record>(&text) {
        Ok(record) if record.protocol == PROTOCOL_VERSION => Ok(Ok(record)),
        Ok(record) => crashed(format!(
            "the rehearsal program speaks protocol {}, this grader {PROTOCOL_VERSION}",
            record.protocol
        )),
        Err(e) => crashed(format!("the rehearsal program's record is not valid: {e}")),
    }
}
