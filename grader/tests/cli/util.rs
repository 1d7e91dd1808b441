//! Running the grader binary the way a person would, and recording what it did.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// How long one program a test runs may take, cold builds on a loaded machine included,
/// before it is killed and the test fails: no test waits for ever on a program that hangs.
/// Two kinds of program get a longer limit of their own: a whole-lab audit
/// ([`AUDIT_LIMIT`]) and a command that builds the grader from nothing
/// ([`COLD_BUILD_LIMIT`]).
pub const COMMAND_LIMIT: Duration = Duration::from_secs(600);

/// `program`, to be run with [`COMMAND_LIMIT`].
pub fn bounded(program: impl AsRef<std::ffi::OsStr>) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(program);
    cmd.timeout(COMMAND_LIMIT);
    cmd
}

/// How long a command that builds the grader itself from nothing may take (the
/// instructors' walk-through runs `cargo run -p grader` in a kit of its own, with its own
/// target folder): a cold build of the grader and its dependencies takes minutes on two
/// busy cores, then the command grades. Still bounded, so a hang fails the test.
pub const COLD_BUILD_LIMIT: Duration = Duration::from_secs(1200);

/// How long a whole-lab audit (every scenario on the reference, the alternatives and every
/// mutant, race checks and generated seeds included) may take. An audit is the heaviest
/// program the tests run: alone on two quiet cores lab 5's takes about six minutes, and the
/// tests beside it slow it down. It is still bounded, so an audit that hangs fails the test.
pub const AUDIT_LIMIT: Duration = Duration::from_secs(1500);

/// A whole-lab audit, bounded by [`AUDIT_LIMIT`], taking its turn: the returned guard is
/// held while it runs, so two audits never share the cores (two at once each take twice as
/// long, and neither says anything the other does not). Time spent waiting for the turn is
/// not counted against the limit.
pub fn whole_lab_audit(lab: &str) -> (std::sync::MutexGuard<'static, ()>, assert_cmd::Command) {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut cmd = grader();
    cmd.timeout(AUDIT_LIMIT).args(["audit", lab]);
    (turn, cmd)
}

/// The kit's root folder (the workspace).
pub fn kit() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the grader lives one level below the kit root")
        .to_path_buf()
}

/// The grader, run from the kit root, with colour off as a pipe would have it.
pub fn grader() -> assert_cmd::Command {
    let mut cmd = bounded(env!("CARGO_BIN_EXE_grader"));
    cmd.current_dir(kit())
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GRADER_WORK_DIR");
    cmd
}

/// Exit status and both streams, as one text to snapshot.
pub fn transcript(output: &Output) -> String {
    format!(
        "exit status: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output
            .status
            .code()
            .map_or("killed".to_owned(), |c| c.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    )
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A scratch kit: a temporary folder with the kit's manifest and lab files copied in, for
/// tests that change scenario files. Only what `paths` names is copied.
pub fn scratch_kit(paths: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for rel in paths {
        copy(&kit().join(rel), &dir.path().join(rel));
    }
    dir
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("create folder");
        for entry in std::fs::read_dir(from).expect("read folder").flatten() {
            if entry.file_name() == "target" {
                continue;
            }
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("create folder");
        std::fs::copy(from, to).expect("copy file");
        // The copy keeps the original's time, so cargo reuses builds of an earlier copy
        // at the same place instead of compiling it all again.
        let modified = std::fs::metadata(from)
            .and_then(|m| m.modified())
            .expect("a modification time");
        std::fs::File::options()
            .write(true)
            .open(to)
            .and_then(|f| f.set_modified(modified))
            .expect("keep the modification time");
    }
}

/// Copies the kit's `paths` into `dir`, which may already exist; `target/` folders are
/// skipped.
pub fn copy_kit_paths(dir: &Path, paths: &[&str]) {
    for rel in paths {
        copy(&kit().join(rel), &dir.join(rel));
    }
}

/// The cargo target folder this test binary was built in (where the grader binary is).
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_grader"))
        .parent()
        .and_then(Path::parent)
        .expect("the grader binary lives in <target>/<profile>/")
        .to_path_buf()
}

/// A folder for one test under the target folder, at the same path every run, emptied
/// except for its `cache/` subfolder: builds kept there (with GRADER_WORK_DIR or
/// CARGO_TARGET_DIR) are reused by the next run instead of starting cold, and never shared
/// with another test's kit. Only one test may use a given name.
pub fn test_dir(name: &str) -> PathBuf {
    let dir = target_dir().join("grader-tests").join(name);
    std::fs::create_dir_all(dir.join("cache")).expect("create the test folder");
    for entry in std::fs::read_dir(&dir)
        .expect("read the test folder")
        .flatten()
    {
        if entry.file_name() == "cache" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            std::fs::remove_dir_all(&path).expect("empty the test folder");
        } else {
            std::fs::remove_file(&path).expect("empty the test folder");
        }
    }
    dir
}

/// Changes `total_points` in a lab manifest to `change(old)`, whatever it was.
pub fn change_total_points(manifest: &Path, change: impl FnOnce(u32) -> u32) {
    let text = std::fs::read_to_string(manifest).expect("read the manifest");
    let key = "\"total_points\": ";
    let at = text.find(key).expect("total_points") + key.len();
    let len = text[at..]
        .find(|c: char| !c.is_ascii_digit())
        .expect("a number");
    let old: u32 = text[at..at + len].parse().expect("a number");
    let new = format!("{}{}{}", &text[..at], change(old), &text[at + len..]);
    std::fs::write(manifest, new).expect("write the manifest");
}

/// A tool a test needs is missing: the test fails, saying what to install, so that a check
/// never passes without running. `.ci/run` installs every such tool, and the README names
/// them beside the test command.
pub fn tool_missing(tool: &str) -> ! {
    panic!(
        "{tool} is not installed, and this test needs it: install it (apt-get install zip unzip chromium chromium-driver), or run .ci/run, which does"
    );
}
