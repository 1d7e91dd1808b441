//! The bubblewrap sandbox (`bwrap`): every build and scenario process of a submission
//! runs in fresh user, mount, PID, network, IPC and UTS namespaces.
//!
//! bubblewrap starts from an empty root and adds only what it is told to. Each sandbox
//! gets the system's programs and libraries read-only (`/usr` and its links), its own
//! `/proc`, a minimal `/dev`, a small private `/tmp`, and then exactly the paths its job
//! needs: for a scenario, the harness program (read-only) and its results file; for a
//! build, the toolchain, the crates the harness is built against (read-only), and the
//! submission's own workspace and target folder (writable). The root itself is then made
//! read-only. Inside, the process runs as user 65534 with no capabilities, no network
//! (an empty network namespace), no way to create further namespaces, a new terminal
//! session, and an environment that holds only what the grader sets. When the process
//! bubblewrap started ends, or bubblewrap is killed, the kernel kills everything left in
//! the PID namespace.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where a scenario's harness program is, inside its sandbox.
pub const HARNESS: &str = "/grader/harness";
/// Where a scenario's results file is, inside its sandbox.
pub const RESULTS: &str = "/grader/events.jsonl";
/// Where a rehearsal program is, inside its sandbox.
pub const REHEARSAL: &str = "/grader/rehearsal";
/// The folder a rehearsal program writes its record in, inside its sandbox.
pub const REHEARSAL_OUTPUT: &str = "/grader/out";
/// The size of the private `/tmp` of every sandbox.
const TMP_BYTES: u64 = 16 * 1024 * 1024;
/// The user and group inside: no one's.
const NOBODY: &str = "65534";

/// A bubblewrap that was found and shown to work on this machine.
#[derive(Clone, Debug)]
pub struct Bwrap {
    program: PathBuf,
    version: String,
}

/// What a build sandbox sees besides the system: paths read-only and read-write (each at
/// its own path), a `CARGO_HOME` that holds only the downloaded crates, the folder to
/// start in and the environment.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// Bound read-only.
    pub reads: Vec<PathBuf>,
    /// Bound read-write.
    pub writes: Vec<PathBuf>,
    /// Bound at another path inside: (host path, path inside, writable).
    pub placed: Vec<(PathBuf, PathBuf, bool)>,
    /// A private, writable `CARGO_HOME` at this path, with the host's `registry/` (and
    /// `git/`, if any) read-only inside it.
    pub cargo_home: Option<PathBuf>,
    /// The working folder.
    pub cwd: Option<PathBuf>,
    /// The only environment variables the process gets.
    pub env: Vec<(String, String)>,
}

impl Bwrap {
    /// Finds bubblewrap (`GRADER_BWRAP`, or `bwrap` on the `PATH`) and starts one empty
    /// sandbox with it, which fails where user namespaces are not allowed.
    pub fn probe() -> Result<Bwrap, String> {
        let program = std::env::var_os("GRADER_BWRAP")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("bwrap"));
        let version = Command::new(&program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
        let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
        let bwrap = Bwrap { program, version };
        let mut trial = bwrap.command(&View {
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            ..View::default()
        });
        trial.arg("true");
        let out = trial
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bwrap.program.display()))?;
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            return Err(format!(
                "{} cannot start a sandbox here: {}",
                bwrap.describe(),
                crate::report::clip::clip(&why, crate::report::clip::LINE)
            ));
        }
        Ok(bwrap)
    }

    /// `bubblewrap 0.8.0`.
    pub fn describe(&self) -> String {
        if self.version.is_empty() {
            "bubblewrap".to_owned()
        } else {
            self.version.clone()
        }
    }

    /// A command that runs, in a sandbox that sees `view`, the program and arguments
    /// the caller adds.
    pub fn command(&self, view: &View) -> Command {
        let mut args: Vec<OsString> = Vec::new();
        let push = |args: &mut Vec<OsString>, items: &[&str]| {
            args.extend(items.iter().map(OsString::from));
        };
        push(
            &mut args,
            &[
                "--unshare-user",
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup-try",
                "--disable-userns",
                "--die-with-parent",
                "--new-session",
                "--clearenv",
                "--uid",
                NOBODY,
                "--gid",
                NOBODY,
            ],
        );
        system(&mut args);
        let tmp = TMP_BYTES.to_string();
        push(
            &mut args,
            &[
                "--proc", "/proc", "--dev", "/dev", "--size", &tmp, "--tmpfs", "/tmp",
            ],
        );
        if let Some(home) = &view.cargo_home {
            bind(&mut args, "--tmpfs", None, home);
            for part in ["registry", "git"] {
                let dir = home.join(part);
                if dir.is_dir() {
                    bind(&mut args, "--ro-bind", Some(&dir), &dir);
                }
            }
        }
        for path in &view.reads {
            bind(&mut args, "--ro-bind", Some(path), path);
        }
        for path in &view.writes {
            bind(&mut args, "--bind", Some(path), path);
        }
        for (from, to, writable) in &view.placed {
            let op = if *writable { "--bind" } else { "--ro-bind" };
            bind(&mut args, op, Some(from), to);
        }
        if let Some(cwd) = &view.cwd {
            bind(&mut args, "--chdir", None, cwd);
        }
        args.extend(["--remount-ro", "/"].map(OsString::from));
        for (key, value) in &view.env {
            args.extend(["--setenv", key, value].map(OsString::from));
        }
        args.push("--".into());
        let mut command = Command::new(&self.program);
        // bubblewrap's own process stays in the sandbox as its PID 1, whose environment
        // the sandboxed code can read (/proc/1/environ): it gets none of the grader's.
        command.env_clear().args(args);
        command
    }

    /// The command that runs the harness program `harness` in a sandbox of its own: it
    /// sees the program at [`HARNESS`] and writes its events to `results`, bound at
    /// [`RESULTS`]; it starts in its private `/tmp`; `env` is all its environment.
    pub fn scenario(&self, harness: &Path, results: &Path, env: &[(&str, &str)]) -> Command {
        self.alone((harness, HARNESS), (results, RESULTS), "/tmp", env)
    }

    /// The command that runs the rehearsal program `program` in a sandbox of its own: it
    /// sees the program at [`REHEARSAL`] and the host folder `output` (writable) at
    /// [`REHEARSAL_OUTPUT`], where it starts; `env` is all its environment. Its network
    /// namespace holds only a loopback, which bubblewrap brings up: everything a
    /// rehearsal talks to is on 127.0.0.1 inside the one program.
    pub fn rehearsal(&self, program: &Path, output: &Path, env: &[(&str, &str)]) -> Command {
        let inside = (output, REHEARSAL_OUTPUT);
        self.alone((program, REHEARSAL), inside, REHEARSAL_OUTPUT, env)
    }

    /// The command that runs one program, seeing only it (read-only) and one file or
    /// folder of the host (writable), each at the path inside given with it; it starts in
    /// `cwd`, with `env` and a `PATH` as all its environment.
    fn alone(
        &self,
        (program, program_at): (&Path, &str),
        (writable, writable_at): (&Path, &str),
        cwd: &str,
        env: &[(&str, &str)],
    ) -> Command {
        let mut view = View {
            placed: vec![
                (program.to_path_buf(), PathBuf::from(program_at), false),
                (writable.to_path_buf(), PathBuf::from(writable_at), true),
            ],
            cwd: Some(PathBuf::from(cwd)),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            ..View::default()
        };
        view.env
            .extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        let mut command = self.command(&view);
        command.arg(program_at);
        command
    }
}

/// The system's programs and libraries, read-only: `/usr`, and `/bin`, `/lib`, ... as
/// links into it (merged /usr) or as folders of their own. Also the dynamic linker's
/// cache, and `/etc/alternatives` (where Debian's `cc`, the linker rustc calls, points).
fn system(args: &mut Vec<OsString>) {
    for dir in [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    ] {
        let path = Path::new(dir);
        match path.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(to) = std::fs::read_link(path) {
                    args.extend([OsString::from("--symlink"), to.into(), dir.into()]);
                }
            }
            Ok(m) if m.is_dir() => bind(args, "--ro-bind", Some(path), path),
            _ => {}
        }
    }
    for file in ["/etc/ld.so.cache", "/etc/alternatives"] {
        let path = Path::new(file);
        bind(args, "--ro-bind-try", Some(path), path);
    }
}

/// `op [from] to`.
fn bind(args: &mut Vec<OsString>, op: &str, from: Option<&Path>, to: &Path) {
    args.push(op.into());
    if let Some(from) = from {
        args.push(from.into());
    }
    args.push(to.into());
}
