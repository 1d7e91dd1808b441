//! Running a rehearsal program: the plan on its standard input, the record from the file
//! its one argument names, in its own process group, killed as a group when it ends or
//! runs over.
//!
//! The code under test runs inside this program, so the program is started in one place,
//! [`command`]. A submission's runs in its sandbox ([`Sandbox::rehearsal`]): it sees the
//! program and the folder of its record, nothing else of the machine's files, and a
//! network namespace of its own whose loopback is all a rehearsal needs; when the grader
//! kills the sandbox, every process the code started dies with it. Whatever the program
//! is, nothing it leaves behind is trusted: the record is read only if it is a regular
//! file (never through a link), up to [`RECORD_BYTES`], and what it prints up to a cap.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use grader_lab::rehearsal::Plan;

use crate::error::Error;
use crate::run::runner::kill_group;
use crate::sandbox::Sandbox;
use crate::sandbox::process::{self, Rlimits};

/// The name of the record file in the program's folder.
const RECORD: &str = "record.json";
/// The largest record read, in bytes, and the largest file the program may write. The
/// lab's default 30 s script records under 1 MB.
pub const RECORD_BYTES: u64 = 64 * 1024 * 1024;
/// Bytes kept of what the program prints on standard error.
const STDERR_CAP: usize = 16 * 1024;

/// How the program ended, when it did not write a record.
#[derive(Debug)]
pub struct Crashed {
    /// What happened, in words.
    pub why: String,
    /// The start of what it printed on standard error.
    pub stderr: String,
}

/// The command that starts `program` in the folder `dir`, writing its record there, in
/// `sandbox` when there is one: the one place a rehearsal program is started.
pub fn command(program: &Path, dir: &Path, sandbox: Option<&Sandbox>) -> Result<Command, Error> {
    let env = [("RUST_BACKTRACE", "0")];
    let (mut command, inside) = match sandbox {
        Some(s) => s.rehearsal(program, dir, &env)?,
        None => {
            let mut command = Command::new(program);
            command.envs(env);
            (command, dir.to_path_buf())
        }
    };
    command
        .arg(inside.join(RECORD))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .current_dir(dir)
        .process_group(0);
    process::set_rlimits(
        &mut command,
        Rlimits {
            file_size: Some(RECORD_BYTES),
            ..Rlimits::default()
        },
    );
    Ok(command)
}

/// Runs `program` on `plan`, in `sandbox` when there is one; it is killed if it runs
/// `grace` past the plan's length. The record's text, or how the program crashed.
pub fn run(
    program: &Path,
    plan: &Plan,
    grace: Duration,
    sandbox: Option<&Sandbox>,
) -> Result<Result<String, Crashed>, Error> {
    let dir = tempfile::Builder::new()
        .prefix("grader-rehearsal-")
        .tempdir()
        .map_err(|e| Error::io("create a temporary folder in", &std::env::temp_dir(), e))?;
    let mut child = command(program, dir.path(), sandbox)?
        .spawn()
        .map_err(|e| Error::io("start the rehearsal program", program, e))?;
    let stderr = child.stderr.take().map(|s| process::capture(s, STDERR_CAP));
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
    // Whatever happened, nothing it started may outlive it (in the sandbox, killing
    // bubblewrap takes its whole PID namespace).
    kill_group(pid);
    let status = waiter.join().ok().and_then(Result::ok);
    // Without a sandbox, a process that left the group may still hold standard error.
    let stderr = stderr
        .map(|rx| process::collect(rx, Duration::from_secs(2)).text())
        .unwrap_or_default();
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
    let path = dir.path().join(RECORD);
    match read_record(&path) {
        Record::Text(text) => Ok(Ok(text)),
        Record::Missing => {
            let how = status.map_or_else(|| "ended".to_owned(), |s| format!("ended with {s}"));
            crashed(format!(
                "the rehearsal program {how} without writing its record"
            ))
        }
        Record::Unfit(why) => crashed(format!("the rehearsal program's record {why}")),
    }
}

/// What was found at the record's path.
enum Record {
    /// The record, read whole.
    Text(String),
    /// Nothing.
    Missing,
    /// Something that is not a record the grader reads.
    Unfit(String),
}

/// Reads the record at `path`: only a regular file, never through a symbolic link, never
/// waiting on a pipe, and only up to [`RECORD_BYTES`].
fn read_record(path: &Path) -> Record {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let file = match file {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Record::Missing,
        Err(e) => return Record::Unfit(format!("cannot be opened ({e})")),
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Record::Unfit("is not a regular file".into());
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(RECORD_BYTES + 1).read_to_end(&mut bytes) {
        return Record::Unfit(format!("cannot be read ({e})"));
    }
    if bytes.len() as u64 > RECORD_BYTES {
        return Record::Unfit(format!(
            "is larger than {} MB, more than any rehearsal records",
            RECORD_BYTES / (1024 * 1024)
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Record::Text(text),
        Err(_) => Record::Unfit("is not UTF-8 text".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_read_only_from_a_regular_file_of_bounded_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD);
        assert!(matches!(read_record(&path), Record::Missing));
        std::fs::write(&path, "{}").unwrap();
        assert!(matches!(read_record(&path), Record::Text(t) if t == "{}"));

        // A link to a file the program could not read itself is not followed.
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "the reference").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        assert!(
            matches!(read_record(&path), Record::Unfit(why) if why.contains("cannot be opened"))
        );

        // A pipe is refused, never waited on.
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) reads the NUL-terminated path we own.
        #[allow(unsafe_code)]
        let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(made, 0);
        assert!(
            matches!(read_record(&path), Record::Unfit(why) if why.contains("not a regular file"))
        );

        // A record past the cap is refused, and not read whole.
        std::fs::remove_file(&path).unwrap();
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(RECORD_BYTES + 10).unwrap();
        assert!(
            matches!(read_record(&path), Record::Unfit(why) if why.contains("larger than 64 MB"))
        );
    }
}
