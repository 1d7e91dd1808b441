//! Submissions written to cheat or to break the grader: each one attack, each with the
//! safe outcome it must get ([`catalog`]).
//!
//! Building is what costs, so the attacks are graded together: one `grader grade` batch
//! of every attack beside well-behaved submissions (in bubblewrap, the sandbox this
//! machine gives first), and one of the attacks marked for it in the Landlock sandbox
//! (`GRADER_SANDBOX=landlock`, the tier for containers without user namespaces). Each
//! batch is made once per test run ([`batches`]); each attack then has a test of its own
//! that reads its result from both. The well-behaved submissions are also graded in a
//! batch of their own first: their grades beside the attacks must be the same.
//!
//! An attack that reads or writes what it must not, or reaches the network, panics with
//! `LEAKED:` and what it got; one that fails goes on as the honest code it is built on,
//! so "no LEAKED and the honest score" is the safe outcome. Secrets are also looked for
//! directly: text only the reference solution holds, the raw text of a hidden scenario
//! file, and an environment variable of the grader's.

mod catalog;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

pub use catalog::{
    Attack, HIDDEN, HIDDEN_MARKER, PROBE_SOCKET, REFERENCE, SCENARIOS, SECRET_ENV, SLEEPER_MARKER,
    Safe, attacks, in_relay_new, key, leak_if_read, reach_out, victim,
};

use crate::subs::{self, Layout};
use crate::util::{grader, kit};

/// The grader's work folder for lab 4 of the real kit, which the attacks aim at.
pub fn work() -> PathBuf {
    kit().join("target/grader/lab4")
}

/// The texts that must never be in a result of `attack`: the raw text of a hidden
/// scenario, the grader's secret environment variable, what a succeeding attack says,
/// and a line of the reference that the attack's own files do not hold.
fn secrets(attack: &Attack) -> Vec<String> {
    let mut out = vec![
        HIDDEN_MARKER.to_owned(),
        SECRET_ENV.1.to_owned(),
        "LEAKED".to_owned(),
    ];
    if let Ok(reference) = std::fs::read_to_string(kit().join(REFERENCE)) {
        let own = |line: &str| attack.files.iter().any(|(_, t)| t.contains(line));
        if let Some(line) = reference
            .lines()
            .map(str::trim)
            .find(|l| l.len() > 40 && !own(l))
        {
            out.push(line.to_owned());
        }
    }
    out
}

/// The first 3000 bytes of `text`, for a failure message.
fn shorten(text: &str) -> String {
    let mut end = text.len().min(3000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}{}",
        &text[..end],
        if end < text.len() { " ..." } else { "" }
    )
}

/// Checks that `report` (the JSON results of `attack`) is the safe outcome; `honest` is
/// the score of the honest code on the same scenarios.
pub fn assert_safe(attack: &Attack, report: &Value, honest: u64) {
    let text = report.to_string();
    for secret in secrets(attack) {
        assert!(
            !text.contains(&secret),
            "{}: the results hold {secret:?}:\n{}",
            attack.name,
            shorten(&text)
        );
    }
    let score = report["score"].as_u64().expect("a score");
    match attack.safe {
        Safe::DoesNotCompile(says) => {
            let errors = report["compile_errors"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: compiled:\n{}", attack.name, shorten(&text)));
            assert!(errors.contains(says), "{}: {errors}", attack.name);
            assert!(
                errors.len() < 80 * 1024,
                "{}: {} bytes",
                attack.name,
                errors.len()
            );
            assert_eq!(score, 0, "{}", attack.name);
        }
        Safe::HonestScore => {
            assert_eq!(score, honest, "{}: {}", attack.name, shorten(&text));
        }
        Safe::NoMoreThanHonest(says) => {
            assert!(score <= honest, "{}: {score} > {honest}", attack.name);
            for s in report["scenarios"].as_array().expect("scenarios") {
                let message = s["message"].as_str().unwrap_or("");
                assert!(message.contains(says), "{}: {message}", attack.name);
                assert!(
                    message.len() < 8 * 1024,
                    "{}: {} bytes",
                    attack.name,
                    message.len()
                );
            }
        }
    }
    assert!(
        text.len() < 256 * 1024 * report["scenarios"].as_array().map_or(1, |s| s.len().max(1)),
        "{}: a report of {} bytes",
        attack.name,
        text.len()
    );
}

/// Processes still alive whose command line holds `marker`.
pub fn survivors(marker: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline
                .contains(marker)
                .then(|| format!("{}: {cmdline}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// A listener on the abstract Unix socket `name` (such as [`PROBE_SOCKET`]) for a network
/// attack to find while it runs. (Another test run on the machine may hold the socket:
/// then that one is there.)
pub fn probe_listener(name: &str) -> Option<std::os::unix::net::UnixListener> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())
        .expect("an abstract socket name");
    std::os::unix::net::UnixListener::bind_addr(&addr).ok()
}

/// One batch of attacks, graded.
struct Graded {
    /// The gradebook.
    book: Value,
    /// Where the results files are.
    out: PathBuf,
    /// The grader's peak memory while grading, in kB.
    peak_kb: u64,
    /// Processes carrying [`SLEEPER_MARKER`] left when it ended.
    survivors: Vec<String>,
}

/// Every batch of the attack tests, made once per test run.
struct Batches {
    /// The well-behaved submissions graded alone.
    behaved: Value,
    /// Every attack with the well-behaved submissions, in bubblewrap.
    bubblewrap: Graded,
    /// The attacks marked for it, with the well-behaved submissions, under Landlock.
    landlock: Graded,
}

/// The well-behaved submissions: every attack is built on one of them.
fn behaved() -> [(&'static str, Vec<(String, String)>); 3] {
    [
        ("reference", subs::reference_files()),
        ("opens_one_late", subs::mutant("opens_one_late")),
        ("victim", victim()),
    ]
}

/// The batches, graded on first use. Nothing else in the suite starts the marked
/// sleepers, so any found after a batch were left by it.
fn batches() -> &'static Batches {
    static BATCHES: OnceLock<Batches> = OnceLock::new();
    BATCHES.get_or_init(|| {
        // At the same path every run (emptied first), since a static is never dropped.
        let root = crate::util::test_dir("attacks");
        let _listener = probe_listener(PROBE_SOCKET);
        let all = attacks(&kit(), &work());
        let alone = root.join("behaved");
        for (name, files) in behaved() {
            subs::write(&alone.join(name), Layout::Crate, &files);
        }
        let (alone_book, _, _) = grade(None, &alone, &root.join("behaved-results"));
        let batch = |sandbox: &str, with: &dyn Fn(&Attack) -> bool| {
            let dir = root.join(sandbox);
            for (name, files) in behaved() {
                subs::write(&dir.join(name), Layout::Crate, &files);
            }
            for a in all.iter().filter(|a| with(a)) {
                subs::write(&dir.join(a.name), Layout::Flat, &a.files);
            }
            let out = root.join(format!("{sandbox}-results"));
            let (book, peak_kb, survivors) = grade(Some(sandbox), &dir, &out);
            Graded {
                book,
                out,
                peak_kb,
                survivors,
            }
        };
        let bubblewrap = batch("bubblewrap", &|_| true);
        let landlock = batch("landlock", &|a| a.landlock);
        Batches {
            behaved: alone_book,
            bubblewrap,
            landlock,
        }
    })
}

/// `grader grade` of the folder `dir` into `out` on [`SCENARIOS`], in the sandbox
/// `sandbox` (`GRADER_SANDBOX`), with the secret in its environment and a build limit
/// that the never-ending build reaches; every submission graded. Returns the gradebook,
/// the grader's peak memory and the marked sleepers left behind.
fn grade(sandbox: Option<&str>, dir: &Path, out: &Path) -> (Value, u64, Vec<String>) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
    cmd.current_dir(kit())
        .env("NO_COLOR", "1")
        .env_remove("GRADER_WORK_DIR")
        .args(["grade", "lab4"])
        .arg(dir)
        .arg("--results-dir")
        .arg(out)
        .args([
            "--format",
            "json",
            "--timeout",
            "5",
            "--build-cpu-seconds",
            "3",
        ])
        .env(SECRET_ENV.0, SECRET_ENV.1);
    for s in SCENARIOS {
        cmd.args(["--scenario", s]);
    }
    match sandbox {
        Some(s) => cmd.env("GRADER_SANDBOX", s),
        None => cmd.env_remove("GRADER_SANDBOX"),
    };
    let (output, peak_kb) = run_measuring(cmd);
    let left = survivors(SLEEPER_MARKER);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        crate::util::transcript(&output)
    );
    let book = serde_json::from_str(&std::fs::read_to_string(out.join("gradebook.json")).unwrap())
        .expect("gradebook.json");
    (book, peak_kb, left)
}

/// Runs `cmd` to its end with both streams captured, and returns its output and the
/// highest peak memory (`VmHWM`, in kB) seen while watching it every few milliseconds.
// Watching a process means looking again after a pause; nothing here is a scenario.
#[allow(clippy::disallowed_methods)]
fn run_measuring(mut cmd: std::process::Command) -> (std::process::Output, u64) {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the grader starts");
    let read = |mut s: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            buf
        })
    };
    let out = read(Box::new(child.stdout.take().expect("stdout")));
    let err = read(Box::new(child.stderr.take().expect("stderr")));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        let hwm = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|n| n.parse::<u64>().ok())
            })
            .unwrap_or(0);
        peak = peak.max(hwm);
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let output = std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    };
    (output, peak)
}

/// The row of submission `name` in a gradebook.
fn row_of(book: &Value, name: &str) -> Value {
    book["submissions"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("no row {name} in {book}"))
        .clone()
}

/// The score of the well-behaved submission that `attack` is built on, graded alone.
fn honest_score(behaved_book: &Value, attack: &Attack) -> u64 {
    let (name, _) = behaved()
        .into_iter()
        .find(|(_, files)| key(files) == key(&attack.honest))
        .unwrap_or_else(|| panic!("{} is built on none of the well-behaved", attack.name));
    row_of(behaved_book, name)["score"]
        .as_u64()
        .expect("a score")
}

/// Checks attack `name` in `graded`, whose sandbox is described as `describe...`.
fn check_in(graded: &Graded, behaved_book: &Value, describe: &str, name: &str) {
    let attack = attacks(&kit(), &work())
        .into_iter()
        .find(|a| a.name == name)
        .expect("an attack of that name");
    let r = row_of(&graded.book, name);
    assert_eq!(r["status"], "graded", "{r}");
    let file = graded
        .out
        .join(r["results_file"].as_str().expect("a results file"));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_safe(&attack, &report, honest_score(behaved_book, &attack));
    assert!(
        report["provenance"]["sandbox"]
            .as_str()
            .is_some_and(|s| s.starts_with(describe)),
        "{}",
        report["provenance"]
    );
}

/// Checks attack `name` in the bubblewrap batch, and in the Landlock one if it is there.
fn check(name: &str) {
    let b = batches();
    check_in(&b.bubblewrap, &b.behaved, "bubblewrap", name);
    let in_landlock = attacks(&kit(), &work())
        .iter()
        .any(|a| a.name == name && a.landlock);
    if in_landlock {
        check_in(&b.landlock, &b.behaved, "Landlock", name);
    }
}

/// A test per attack, reading its results from the batches.
macro_rules! attack_tests {
    ($($name:ident),* $(,)?) => {
        /// The attacks with a test of their own.
        const TESTED: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

attack_tests!(
    reference_by_relative_path,
    reference_by_absolute_path,
    another_submissions_build_by_path,
    secrets_in_compile_errors,
    secrets_at_run_time,
    environment,
    writes_outside_its_folder,
    network,
    detached_process_holds_the_pipes,
    forges_and_floods_its_results,
    floods_its_results_with_64_mb,
    floods_its_output_and_panic_message,
    floods_the_compiler,
    never_ending_build,
    unsafe_allowed_by_an_attribute,
    race_build_reads_secrets_at_compile_time,
    race_harness_reads_and_writes_at_run_time,
);

#[test]
fn every_attack_has_a_test() {
    for a in attacks(&kit(), &work()) {
        assert!(
            TESTED.contains(&a.name),
            "{} has no test of its own",
            a.name
        );
    }
}

#[test]
fn the_well_behaved_keep_their_grades_beside_the_attacks() {
    let b = batches();
    for (graded, sandbox) in [(&b.bubblewrap, "bubblewrap"), (&b.landlock, "Landlock")] {
        assert!(
            graded.book["sandbox"]
                .as_str()
                .is_some_and(|s| s.starts_with(sandbox)),
            "{}",
            graded.book["sandbox"]
        );
        for (name, _) in behaved() {
            let r = row_of(&graded.book, name);
            assert_eq!(r["status"], "graded", "{r}");
            assert_eq!(
                r["score"],
                row_of(&b.behaved, name)["score"],
                "{name} changed in {sandbox}: {r}"
            );
        }
        assert!(
            graded.survivors.is_empty(),
            "{sandbox}: left behind {:?}",
            graded.survivors
        );
        assert!(
            graded.peak_kb < 200 * 1024,
            "{sandbox}: the grader's memory peaked at {} kB",
            graded.peak_kb
        );
    }
    // The reference scores full marks: the batches ran the code, not just built it.
    let reference = row_of(&b.behaved, "reference");
    assert_eq!(reference["score"], reference["max_score"], "{reference}");
    for canary in [
        "target/attack-canary",
        "labs/lab4/scenarios/attack-canary.json",
    ] {
        assert!(!kit().join(canary).exists(), "an attack wrote {canary}");
    }
}

/// Grading without the sandbox is what the attacks would get: at least one of them must
/// leak there, or the attacks prove nothing. Graded with `--no-sandbox` on two of them.
#[test]
fn without_the_sandbox_the_attacks_would_leak() {
    let root = subs::folder("attacks-unsandboxed");
    let all = attacks(&kit(), &work());
    for name in [
        "secrets_at_run_time",
        "race_harness_reads_and_writes_at_run_time",
    ] {
        let a = all.iter().find(|a| a.name == name).expect("the attack");
        subs::write(&root.join("submissions").join(name), Layout::Flat, &a.files);
    }
    let out = root.join("results");
    let output = grader()
        .args(["grade", "lab4"])
        .arg(root.join("submissions"))
        .arg("--results-dir")
        .arg(&out)
        .args(["--format", "json", "--no-sandbox"])
        .args([
            "--scenario",
            "sm_opens_at_threshold",
            "--scenario",
            "race_single_trial",
        ])
        .output()
        .expect("the grader runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        crate::util::transcript(&output)
    );
    let book: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gradebook.json")).unwrap())
            .unwrap();
    assert!(
        book["sandbox"]
            .as_str()
            .is_some_and(|s| s.starts_with("none (--no-sandbox)")),
        "{book}"
    );
    for name in [
        "secrets_at_run_time",
        "race_harness_reads_and_writes_at_run_time",
    ] {
        let r = row_of(&book, name);
        let report =
            std::fs::read_to_string(out.join(r["results_file"].as_str().unwrap())).unwrap();
        assert!(
            report.contains("LEAKED"),
            "{name} did not leak without the sandbox"
        );
    }
}
