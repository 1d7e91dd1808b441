//! Running cargo with what it prints kept bounded: the toolchain a sandboxed build uses,
//! the plain command, and a run under build limits.
//!
//! Cargo's JSON messages are read line by line as they come: the artifact messages (small,
//! one per compiled unit) are always kept, the compiler's messages only with their
//! rendered text cut to a shared budget, so a submission that makes the compiler print
//! gigabytes costs the grader a few megabytes.

use std::io::{BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use super::BuildLimits;
use super::process::{self, Captured};
use crate::error::Error;

/// Bytes of the compiler's rendered messages kept from one build, all messages together.
const MESSAGE_BUDGET: usize = 4 * 1024 * 1024;
/// Messages (and artifacts) kept from one build; a harness build has a few dozen units.
const MESSAGES: usize = 10_000;
/// The longest line of cargo's output read; a longer one is skipped.
const LINE_CAP: usize = 16 * 1024 * 1024;
/// Bytes of cargo's standard error kept.
const STDERR_CAP: usize = 256 * 1024;
/// Spans and notes kept per compiler message.
const DIAGNOSTIC_PARTS: usize = 32;
/// The largest file a build of a submission may write.
pub const BUILD_FILE_BYTES: u64 = 1024 * 1024 * 1024;

/// The toolchain a sandboxed build uses: the real cargo (not a rustup proxy, which would
/// need all of rustup inside), its sysroot, and the cargo home whose downloaded crates
/// it builds against.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// cargo's executable.
    pub cargo: PathBuf,
    /// The folder holding `bin/rustc` and `lib/rustlib`.
    pub sysroot: PathBuf,
    /// `CARGO_HOME`.
    pub cargo_home: PathBuf,
}

/// The program to run as cargo outside a sandbox: `CARGO`, or `cargo` on the `PATH`.
pub fn program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The toolchain of this machine, found once.
pub fn toolchain() -> Result<Toolchain, Error> {
    static FOUND: OnceLock<Result<Toolchain, String>> = OnceLock::new();
    FOUND
        .get_or_init(find_toolchain)
        .clone()
        .map_err(Error::Cargo)
}

fn find_toolchain() -> Result<Toolchain, String> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    // Run by cargo, `CARGO` is the toolchain's own cargo: its sysroot is two folders up,
    // and asking rustc (through a rustup proxy) is not needed.
    let beside_cargo = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .filter(|c| c.is_absolute() && c.is_file())
        .and_then(|c| {
            let sysroot = c.parent()?.parent()?.to_path_buf();
            sysroot.join("lib/rustlib").is_dir().then_some((c, sysroot))
        });
    if let Some((cargo, sysroot)) = beside_cargo {
        return Ok(Toolchain {
            cargo,
            sysroot,
            cargo_home,
        });
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", Path::new(&rustc).display()))?;
    if !out.status.success() {
        return Err(format!(
            "`{} --print sysroot` failed: {}",
            Path::new(&rustc).display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let cargo = [sysroot.join("bin/cargo")]
        .into_iter()
        .chain(std::env::var_os("CARGO").map(PathBuf::from))
        .find(|p| p.is_absolute() && p.is_file())
        .ok_or_else(|| {
            format!(
                "no cargo next to rustc in {}; set CARGO to the absolute path of cargo",
                sysroot.display()
            )
        })?;
    Ok(Toolchain {
        cargo,
        sysroot,
        cargo_home,
    })
}

/// `cargo build` of the workspace `ws` into `target`, with JSON messages.
pub fn build_args(ws: &Path, target: &Path, select: &[&str]) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = vec![
        "build".into(),
        "--manifest-path".into(),
        ws.join("Cargo.toml").into(),
        "--target-dir".into(),
        target.into(),
        "--message-format=json-diagnostic-rendered-ansi".into(),
    ];
    args.extend(select.iter().map(Into::into));
    args
}

/// The command that builds `ws` into `target` with the grader's own environment: the
/// kit's builds, and submissions graded with `--no-sandbox`.
pub fn plain(ws: &Path, target: &Path, select: &[&str]) -> Command {
    let mut command = Command::new(program());
    command
        .args(build_args(ws, target, select))
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_TERM_COLOR", "never");
    command
}

/// A program to be told about as soon as cargo has linked it, while cargo may still be
/// building others: cargo's messages are read as they come.
#[derive(Debug)]
pub struct Watch {
    /// The program's target name.
    pub bin: String,
    /// Gets the program's path, once.
    pub tx: mpsc::Sender<PathBuf>,
}

/// Runs a cargo command to its end, or until `limits` stop it: standard output read as
/// JSON messages and kept bounded, standard error up to a cap. A build stopped by a
/// limit is [`Error::BuildStopped`], saying which. `watch` is told when its program is
/// linked.
pub fn run(
    mut command: Command,
    limits: Option<BuildLimits>,
    watch: Option<Watch>,
) -> Result<Output, Error> {
    let what = command.get_program().to_owned();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| Error::Cargo(format!("{}: {e}", Path::new(&what).display())))?;
    let stdout = child.stdout.take().map(|s| messages(s, watch));
    let stderr = child.stderr.take().map(|s| process::capture(s, STDERR_CAP));
    let (status, timed_out) = process::wait_and_kill(child, limits.map(|l| l.timeout))
        .map_err(|e| Error::Cargo(format!("{}: {e}", Path::new(&what).display())))?;
    let patience = Duration::from_secs(2);
    let stdout = stdout
        .map(|r| process::collect(r, patience))
        .unwrap_or_default();
    let stderr = stderr
        .map(|r| process::collect(r, patience))
        .unwrap_or_default();
    if let Some(limits) = limits {
        let log = String::from_utf8_lossy(&stderr.bytes);
        if let Some(why) = stopped(&limits, timed_out, status.success(), &log) {
            return Err(Error::BuildStopped(why));
        }
    }
    Ok(Output {
        status,
        stdout: stdout.bytes,
        stderr: stderr.text().into_bytes(),
    })
}

/// Why a build was stopped by one of its limits, if it was.
fn stopped(limits: &BuildLimits, timed_out: bool, success: bool, stderr: &str) -> Option<String> {
    if timed_out {
        return Some(format!(
            "the build did not finish within {:.0} s of real time and was stopped: a constant, a type or a macro that takes forever to evaluate?",
            limits.timeout.as_secs_f64()
        ));
    }
    if success {
        return None;
    }
    let cpu = stderr.contains("SIGXCPU") || stderr.contains("signal: 24");
    let killed = stderr.contains("SIGKILL") || stderr.contains("signal: 9");
    if let Some(seconds) = limits.cpu_seconds.filter(|_| cpu || killed) {
        return Some(format!(
            "the compiler used up its CPU time (the limit is {seconds} s per process) and was stopped: a constant, a type or a macro that takes forever to evaluate?"
        ));
    }
    let memory = stderr.contains("memory allocation of") || stderr.contains("out of memory");
    if let Some(bytes) = limits.memory_bytes.filter(|_| memory) {
        return Some(format!(
            "the compiler ran out of memory (the limit is {} MB per process) and was stopped: a constant, a type or a macro that grows without bound?",
            bytes / (1024 * 1024)
        ));
    }
    None
}

/// Reads cargo's JSON messages on a thread, keeping each artifact message and each
/// compiler message with its rendered text cut to what is left of the budget; other
/// lines, and lines longer than [`LINE_CAP`], are skipped. The artifact of `watch`'s
/// program is passed on as soon as it is read.
fn messages(
    stream: impl Read + Send + 'static,
    mut watch: Option<Watch>,
) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        let mut kept = Captured::default();
        let mut budget = MESSAGE_BUDGET;
        let mut count = 0;
        let mut line = Vec::new();
        loop {
            let n = match process::next_line(&mut reader, LINE_CAP, &mut line) {
                None => break,
                Some(process::Line::TooLong(n)) => {
                    kept.dropped += n;
                    continue;
                }
                Some(process::Line::Whole(n)) => n,
            };
            let msg = serde_json::from_slice::<serde_json::Value>(&line).ok();
            if let Some((msg, w)) = msg.as_ref().zip(watch.as_ref()) {
                if let Some(exe) = linked(msg, &w.bin) {
                    let _ = w.tx.send(exe);
                    watch = None;
                }
            }
            let compact = msg
                .filter(|_| count < MESSAGES)
                .and_then(|msg| compact(&msg, &mut budget));
            match compact {
                Some(text) => {
                    count += 1;
                    kept.bytes.extend_from_slice(text.as_bytes());
                    kept.bytes.push(b'\n');
                }
                None => kept.dropped += n as u64,
            }
        }
        let _ = tx.send(kept);
    });
    rx
}

/// The path of program `bin`, if `msg` is cargo's message that it is linked.
fn linked(msg: &serde_json::Value, bin: &str) -> Option<PathBuf> {
    (msg["reason"] == "compiler-artifact" && msg["target"]["name"] == bin)
        .then(|| msg["executable"].as_str().map(PathBuf::from))
        .flatten()
}

/// An artifact or compiler message with only the fields the grader reads, the rendered
/// text cut to `budget` (which it uses up).
fn compact(msg: &serde_json::Value, budget: &mut usize) -> Option<String> {
    let target = serde_json::json!({
        "name": msg["target"]["name"],
        "src_path": msg["target"]["src_path"],
    });
    let out = match msg["reason"].as_str()? {
        "compiler-artifact" => serde_json::json!({
            "reason": "compiler-artifact",
            "manifest_path": msg["manifest_path"],
            "target": target,
            "executable": msg["executable"],
        }),
        "compiler-message" => {
            let rendered = msg["message"]["rendered"].as_str().unwrap_or("");
            let kept = if *budget == 0 {
                String::new()
            } else {
                let text = crate::report::clip::clip(rendered, *budget);
                *budget = budget.saturating_sub(rendered.len());
                text
            };
            let mut message = diagnostic(&msg["message"], 0);
            message["level"] = msg["message"]["level"].clone();
            message["rendered"] = kept.into();
            serde_json::json!({
                "reason": "compiler-message",
                "manifest_path": msg["manifest_path"],
                "target": target,
                "message": message,
            })
        }
        _ => return None,
    };
    Some(out.to_string())
}

/// The parts of a compiler diagnostic that say where it points (the files of its spans,
/// its children's, its first line), each bounded: what [`crate::build::blame`] reads to
/// tell whose fault an error is.
fn diagnostic(message: &serde_json::Value, depth: usize) -> serde_json::Value {
    let text = message["message"].as_str().unwrap_or("");
    let spans: Vec<serde_json::Value> = message["spans"]
        .as_array()
        .into_iter()
        .flatten()
        .take(DIAGNOSTIC_PARTS)
        .map(|s| serde_json::json!({"file_name": s["file_name"]}))
        .collect();
    let children: Vec<serde_json::Value> = if depth < 2 {
        message["children"]
            .as_array()
            .into_iter()
            .flatten()
            .take(DIAGNOSTIC_PARTS)
            .map(|c| diagnostic(c, depth + 1))
            .collect()
    } else {
        Vec::new()
    };
    serde_json::json!({
        "message": crate::report::clip::clip(text, crate::report::clip::LINE),
        "spans": spans,
        "children": children,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_keep_artifacts_and_cut_rendered_text_to_the_budget() {
        let big = "x".repeat(MESSAGE_BUDGET + 10);
        let lines = [
            serde_json::json!({"reason": "compiler-message", "target": {"name": "a", "src_path": "/s/a.rs"}, "message": {"level": "error", "rendered": big}}),
            serde_json::json!({"reason": "compiler-message", "target": {"name": "a", "src_path": "/s/a.rs"}, "message": {"level": "warning", "rendered": "later"}}),
            serde_json::json!({"reason": "build-finished", "success": false}),
            serde_json::json!({"reason": "compiler-artifact", "target": {"name": "h", "src_path": "/m.rs"}, "executable": "/t/h"}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let got = process::collect(
            messages(std::io::Cursor::new(text.into_bytes()), None),
            Duration::from_secs(5),
        );
        let kept: Vec<serde_json::Value> = String::from_utf8(got.bytes)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(kept.len(), 3, "{kept:?}");
        let first = kept[0]["message"]["rendered"].as_str().unwrap();
        assert!(first.len() < MESSAGE_BUDGET + 100);
        assert!(first.ends_with("[... 10 more bytes cut]"));
        assert_eq!(kept[1]["message"]["level"], "warning");
        assert_eq!(kept[1]["message"]["rendered"], "");
        assert_eq!(kept[2]["executable"], "/t/h");
    }

    /// A stream that hands out the chunks sent to it, and ends when the sender is dropped.
    struct Chunks(mpsc::Receiver<Vec<u8>>, Vec<u8>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.1.is_empty() {
                self.1 = self.0.recv().unwrap_or_default();
            }
            let n = buf.len().min(self.1.len());
            buf[..n].copy_from_slice(&self.1[..n]);
            self.1.drain(..n);
            Ok(n)
        }
    }

    #[test]
    fn a_watched_program_is_told_as_soon_as_it_is_linked_and_only_it() {
        let (chunks, stream) = mpsc::channel();
        let (tx, linked) = mpsc::channel();
        let watch = Watch {
            bin: "h".into(),
            tx,
        };
        let all = messages(Chunks(stream, Vec::new()), Some(watch));
        let artifact = |name: &str, exe: &str| {
            let msg = serde_json::json!({"reason": "compiler-artifact", "target": {"name": name, "src_path": "/m.rs"}, "executable": exe});
            format!("{msg}\n").into_bytes()
        };
        chunks.send(artifact("other", "/t/other")).unwrap();
        chunks.send(artifact("h", "/t/h")).unwrap();
        // Told while cargo still runs: the stream has not ended.
        let exe = linked.recv_timeout(Duration::from_secs(5));
        assert_eq!(exe, Ok(PathBuf::from("/t/h")));
        chunks.send(artifact("h", "/t/h-again")).unwrap();
        drop(chunks);
        let got = process::collect(all, Duration::from_secs(5));
        assert_eq!(String::from_utf8(got.bytes).unwrap().lines().count(), 3);
        assert!(linked.try_recv().is_err(), "told once");
    }
}
