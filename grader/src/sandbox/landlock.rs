//! The sandbox for machines without user namespaces, where the grader runs as root: a
//! container such as Gradescope's, whose default seccomp profile refuses to create
//! namespaces.
//!
//! Each scenario process runs as a user of its own (no one's account, no groups), so
//! files only root may read stay out of reach, and every process of the scenario can be
//! killed at its end by killing every process of that user, even one that left the
//! process group. Builds, which run none of the submission's code, keep the grader's
//! user (so the toolchain in root's home stays usable). Before it starts its program,
//! every sandboxed process restricts itself, for itself and everything it starts:
//!
//! - Landlock (Linux 5.13 and later): it may read and run only the system's programs and
//!   libraries, the toolchain and the paths its job needs (the harness program; for a
//!   build, the crates it is built against), and write only in its own folders; TCP
//!   (Linux 6.7), abstract Unix sockets and signals outside its domain (Linux 6.12) are
//!   refused where the kernel knows how;
//! - seccomp: no socket but a Unix one, no io_uring (which could open sockets past the
//!   filter), no ptrace or access to other processes' memory;
//! - `no_new_privs`, and at most [`PROCESSES`] processes of its user.
//!
//! What this tier does not give, next to bubblewrap: a PID namespace (the code can list
//! the machine's processes and read what `/proc` shows every user, such as command
//! lines), and a size limit on its scratch folder beyond the per-file limit.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// Why a lab's rehearsal cannot run in this sandbox. A rehearsal is TCP on 127.0.0.1
/// inside one program. Without a network namespace (which is what this sandbox does
/// without), a loopback of its own cannot be given: the seccomp filter below refuses
/// every socket but a Unix one, and lifting that for TCP would let the code reach any
/// address, since Landlock restricts TCP by port number, not by address, and seccomp
/// cannot read the address a `connect` names.
pub const NO_LOOPBACK: &str = "cannot give the code a loopback of its own: without a network namespace it refuses every socket but a Unix one, and allowing TCP on 127.0.0.1 would allow it to every address (Landlock restricts TCP by port, not by address)";

/// The newest Landlock ABI this grader asks for; older kernels give what they have.
const WANTED: ABI = ABI::V6;
/// Processes one sandboxed user may have at once.
const PROCESSES: u64 = 256;
/// The first of the users the sandbox runs code as: far above any account's.
const FIRST_UID: u32 = 2_900_000_000;
/// Scenario users a grader process has (its concurrent scenarios never exceed this).
const SLOTS: u32 = 256;

/// Landlock and seccomp, as users of their own.
#[derive(Debug)]
pub struct Landlocked {
    abi: i32,
    /// Which scenario users are in use.
    slots: Mutex<Vec<bool>>,
    /// This grader's first scenario user: apart from other graders' on the machine.
    first: u32,
    /// Harness programs a scenario user could not reach where cargo put them, each with
    /// its link or copy in a folder every user may enter (made on first use, removed with
    /// this sandbox).
    staged: Mutex<Staged>,
}

/// A program as it was staged: its path, device and inode, length and time.
type ProgramId = (PathBuf, u64, u64, u64, i64);

/// The folder of staged harness programs, and what is in it.
#[derive(Debug, Default)]
struct Staged {
    dir: Option<tempfile::TempDir>,
    /// Each program staged, and its staged path.
    programs: Vec<(ProgramId, PathBuf)>,
}

/// A scenario's user, given back (after everything it ran is killed) when dropped.
pub struct Lease<'a> {
    owner: &'a Landlocked,
    slot: u32,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        kill_all(self.owner.first + self.slot);
        if let Ok(mut slots) = self.owner.slots.lock() {
            if let Some(s) = slots.get_mut(self.slot as usize) {
                *s = false;
            }
        }
    }
}

/// What a sandboxed process may read and run, and where it may write.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    /// Read and run (folders and files).
    pub reads: Vec<PathBuf>,
    /// Read and write.
    pub writes: Vec<PathBuf>,
}

impl Landlocked {
    /// Works here only for root (to run code as other users) on a kernel with Landlock.
    pub fn probe() -> Result<Landlocked, String> {
        // SAFETY: geteuid(2) takes nothing and cannot fail.
        #[allow(unsafe_code)]
        let root = unsafe { libc::geteuid() } == 0;
        if !root {
            return Err("without user namespaces, the grader must run as root to give the code a user of its own".into());
        }
        let abi = abi();
        if abi < 1 {
            return Err("this kernel has no Landlock (Linux 5.13 or later, with landlock among its security modules)".into());
        }
        let first = FIRST_UID + 1 + (std::process::id() % 10_000) * SLOTS;
        // Each scenario runs in a folder of the system's temporary folder, as a user of
        // its own: that user must be able to enter it.
        let tmp = std::env::temp_dir();
        if let Some(closed) = closed_ancestor(&tmp) {
            return Err(format!(
                "each scenario runs as a user of its own in a folder under {} (TMPDIR), but {} lets only its owner in; set TMPDIR to a folder every user may enter, such as /tmp, or `chmod o+x {}`",
                tmp.display(),
                closed.display(),
                closed.display()
            ));
        }
        let sandbox = Landlocked {
            abi,
            slots: Mutex::new(vec![false; SLOTS as usize]),
            first,
            staged: Mutex::new(Staged::default()),
        };
        let mut trial = sandbox
            .command(Path::new("/bin/true"), &Paths::default(), Some(FIRST_UID))
            .map_err(|e| format!("cannot restrict a process with Landlock: {e}"))?;
        let status = trial
            .status()
            .map_err(|e| format!("cannot start a process restricted with Landlock: {e}"))?;
        if !status.success() {
            return Err(format!(
                "a process restricted with Landlock failed: {status}"
            ));
        }
        Ok(sandbox)
    }

    /// `Landlock ABI 6`.
    pub fn describe(&self) -> String {
        format!("Landlock ABI {}", self.abi)
    }

    /// A user for one scenario, killed and given back when the lease is dropped.
    ///
    /// A user whose processes are still in the process table is not given out: killed
    /// processes that a scenario started outside its process group stay there until
    /// the system reaps them, and they count against the next scenario's process limit,
    /// so a submission that floods it would otherwise fail the next one's scenarios.
    pub fn lease(&self) -> Option<Lease<'_>> {
        let busy = uids_in_use();
        let mut slots = self.slots.lock().ok()?;
        let free =
            |(slot, used): &(usize, &bool)| !**used && !busy.contains(&(self.first + *slot as u32));
        let slot = match slots.iter().enumerate().find(free) {
            Some((slot, _)) => slot,
            // Every free user still has processes: take one anyway rather than none.
            None => slots.iter().position(|used| !used)?,
        };
        slots[slot] = true;
        Some(Lease {
            owner: self,
            slot: slot as u32,
        })
    }

    /// `program` where a scenario user can run it: itself, when every folder above it
    /// lets other users through; otherwise a hard link to it (or a copy, on another file
    /// system) in a folder of the temporary folder that every user may enter and none may
    /// list. A kit cloned into a private folder (mode 700, as `mktemp -d` and root's home
    /// are) thus still grades.
    pub fn reachable(&self, program: &Path) -> Result<PathBuf, String> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if closed_ancestor(program).is_none() {
            return Ok(program.to_path_buf());
        }
        let meta = std::fs::metadata(program).map_err(|e| format!("{}: {e}", program.display()))?;
        let id = (
            program.to_path_buf(),
            meta.dev(),
            meta.ino(),
            meta.len(),
            meta.mtime(),
        );
        let mut staged = self
            .staged
            .lock()
            .map_err(|_| "the staged programs' lock is poisoned".to_owned())?;
        if let Some((_, path)) = staged.programs.iter().find(|(k, _)| *k == id) {
            return Ok(path.clone());
        }
        if staged.dir.is_none() {
            let dir = tempfile::Builder::new()
                .prefix("grader-programs-")
                .tempdir()
                .map_err(|e| {
                    format!(
                        "cannot make a folder in {}: {e}",
                        std::env::temp_dir().display()
                    )
                })?;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711))
                .map_err(|e| format!("{}: {e}", dir.path().display()))?;
            staged.dir = Some(dir);
        }
        let dir = staged
            .dir
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .unwrap_or_default();
        let name = program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = dir.join(format!("{}-{name}", staged.programs.len()));
        if std::fs::hard_link(program, &path).is_err() {
            std::fs::copy(program, &path).map_err(|e| {
                format!(
                    "cannot copy {} to {}: {e}",
                    program.display(),
                    path.display()
                )
            })?;
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        staged.programs.push((id, path.clone()));
        Ok(path)
    }

    /// The user of a lease.
    pub fn uid(&self, lease: &Lease<'_>) -> u32 {
        self.first + lease.slot
    }

    /// The command that runs `program` (as `uid`, or as the grader's user), restricted
    /// to `paths` (plus the system's programs and libraries) with no environment; the
    /// caller adds arguments, environment and folder. The paths it writes must belong to
    /// `uid`.
    pub fn command(
        &self,
        program: &Path,
        paths: &Paths,
        uid: Option<u32>,
    ) -> Result<Command, String> {
        let mut all = system_paths();
        all.reads.extend(paths.reads.iter().cloned());
        all.writes.extend(paths.writes.iter().cloned());
        let ruleset = ruleset(&all)?;
        let filter = filter()?;
        let mut command = Command::new(program);
        command.env_clear();
        if let Some(uid) = uid {
            command.uid(uid).gid(uid);
        }
        let fd = ruleset.as_raw_fd();
        let nproc = libc::rlimit {
            rlim_cur: PROCESSES as libc::rlim_t,
            rlim_max: PROCESSES as libc::rlim_t,
        };
        // SAFETY: the closure runs in the forked child, after it became `uid` (if any),
        // before exec. It only makes system calls (setrlimit, prctl, landlock_restrict_self,
        // seccomp) on values prepared above, which the closure owns; it neither allocates
        // nor takes locks.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(move || {
                let _keep: &OwnedFd = &ruleset;
                if libc::setrlimit(libc::RLIMIT_NPROC, &nproc) != 0
                    || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    || libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                seccompiler::apply_filter(&filter).map_err(std::io::Error::other)
            });
        }
        Ok(command)
    }
}

/// The nearest folder at or above `path` (or `path` itself) that other users may not
/// pass through (no `x` for others), if any.
fn closed_ancestor(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path.ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 == 0))
        .map(Path::to_path_buf)
}

/// The Landlock ABI of this kernel (0: none).
fn abi() -> i32 {
    // SAFETY: with no attributes and the VERSION flag, landlock_create_ruleset(2) only
    // returns the ABI version (or an error); it reads and writes no memory.
    #[allow(unsafe_code)]
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    i32::try_from(version).unwrap_or(0).max(0)
}

/// The system's programs, libraries and devices every sandboxed process needs.
fn system_paths() -> Paths {
    let reads = [
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/etc/ld.so.cache",
        "/etc/alternatives",
        "/proc",
        "/sys/fs/cgroup",
        "/sys/devices/system/cpu",
        "/dev/urandom",
    ];
    Paths {
        reads: reads
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect(),
        writes: vec![PathBuf::from("/dev/null")],
    }
}

/// A Landlock ruleset that handles every file-system access (and TCP, and the scopes,
/// where the kernel knows them) and allows `paths`.
fn ruleset(paths: &Paths) -> Result<OwnedFd, String> {
    let created = (|| {
        Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(WANTED))?
            .handle_access(AccessNet::from_all(WANTED))?
            .scope(Scope::from_all(WANTED))?
            .create()?
            .add_rules(path_beneath_rules(
                &paths.reads,
                AccessFs::from_read(WANTED),
            ))?
            .add_rules(path_beneath_rules(
                &paths.writes,
                AccessFs::from_all(WANTED),
            ))
    })()
    .map_err(|e: landlock::RulesetError| e.to_string())?;
    Option::<OwnedFd>::from(created).ok_or_else(|| "this kernel has no Landlock".to_owned())
}

/// The seccomp filter: sockets only of the Unix family, no io_uring, no ptrace or
/// reading and writing other processes' memory.
fn filter() -> Result<BpfProgram, String> {
    let not_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .and_then(|c| SeccompRule::new(vec![c]))
    .map_err(|e| e.to_string())?;
    let rules = [
        (libc::SYS_socket, vec![not_unix]),
        (libc::SYS_io_uring_setup, Vec::new()),
        (libc::SYS_io_uring_enter, Vec::new()),
        (libc::SYS_io_uring_register, Vec::new()),
        (libc::SYS_ptrace, Vec::new()),
        (libc::SYS_process_vm_readv, Vec::new()),
        (libc::SYS_process_vm_writev, Vec::new()),
    ];
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let filter = SeccompFilter::new(
        rules.into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    BpfProgram::try_from(filter).map_err(|e| e.to_string())
}

/// The real users of every process in the process table, dying ones included.
fn uids_in_use() -> Vec<u32> {
    let mut uids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let uid = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|u| u.parse::<u32>().ok());
        if let Some(uid) = uid.filter(|u| *u >= FIRST_UID) {
            uids.push(uid);
        }
    }
    uids
}

/// Kills every process of `uid`: a process of that user sends SIGKILL to every process
/// it may signal, which is every process of that user.
pub fn kill_all(uid: u32) {
    let mut command = Command::new("/bin/true");
    command.uid(uid).gid(uid).env_clear();
    // SAFETY: the closure runs in the forked child, after it became `uid`; kill(2) and
    // _exit(2) are async-signal-safe and touch no memory of ours.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(|| {
            libc::kill(-1, libc::SIGKILL);
            libc::_exit(0)
        });
    }
    if let Ok(mut child) = command.spawn() {
        let _ = child.wait();
    }
}

/// Makes `path` and everything under it belong to `uid`, so that a process of that user
/// can write there.
pub fn give(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid))?;
    if path.symlink_metadata()?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            give(&entry?.path(), uid)?;
        }
    }
    Ok(())
}
