//! `grader check --submission`: only the declared files count, whatever else the folder
//! holds or the code prints; broken, missing, hanging and greedy submissions are results.

use predicates::prelude::*;

use crate::subs::{self, Layout};
use crate::util::grader;

/// Grades `dir` as a submission, JSON on stdout, with extra arguments.
fn check_json(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    grader()
        .args(["check", "lab4", "--format", "json", "--submission"])
        .arg(dir)
        .args(extra)
        .output()
        .expect("the grader runs")
}

#[test]
fn the_three_layouts_give_the_same_grade_and_hash() {
    let files = subs::reference_files();
    let mut hashes = Vec::new();
    for (name, layout) in [
        ("layout_kit", Layout::Kit),
        ("layout_crate", Layout::Crate),
        ("layout_flat", Layout::Flat),
    ] {
        let dir = subs::folder(name);
        subs::write(&dir, layout, &files);
        let output = check_json(&dir, &[]);
        assert_eq!(output.status.code(), Some(0), "{layout:?}: {output:?}");
        let report = subs::json(&output);
        assert_eq!(report["score"], report["max_score"], "{layout:?}");
        let p = &report["provenance"];
        assert_eq!(p["reproduce"], "grader check lab4 --submission .");
        assert_eq!(p["kit_version"], env!("CARGO_PKG_VERSION"));
        hashes.push(p["student_files_sha256"].as_str().expect("hash").to_owned());
    }
    // The files zipped inside a folder (and the folder inside another, with the archive
    // tool's own folder beside it), as an upload unpacks them: graded the same.
    let dir = subs::folder("layout_wrapped");
    subs::write(&dir.join("upload/lab4"), Layout::Flat, &files);
    std::fs::create_dir_all(dir.join("__MACOSX/upload")).unwrap();
    let output = check_json(&dir, &[]);
    assert_eq!(output.status.code(), Some(0), "wrapped: {output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("found in its sub-folder upload/lab4/"),
        "{stderr}"
    );
    let report = subs::json(&output);
    assert_eq!(report["score"], report["max_score"], "wrapped");
    hashes.push(
        report["provenance"]["student_files_sha256"]
            .as_str()
            .expect("hash")
            .to_owned(),
    );
    assert!(hashes.iter().all(|h| h == &hashes[0]), "{hashes:?}");
    assert_eq!(
        hashes[0],
        subs::listing_hash(&files),
        "the hash is `sha256sum src/*.rs | sha256sum`"
    );
}

#[test]
fn rewriting_anything_but_the_declared_files_changes_nothing() {
    let files = subs::mutant("opens_one_late");
    let plain = subs::folder("tamper_plain");
    subs::write(&plain, Layout::Flat, &files);
    let tampered = subs::folder("tamper_kit");
    subs::write(&tampered, Layout::Kit, &files);
    // A scenario that would pass anything, fixtures and a harness that do not build, a
    // crate root and manifest that would not compile, a build script: all ignored.
    let put = |rel: &str, text: &str| {
        let path = tampered.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    put(
        "labs/lab4/scenarios/sm_opens_at_threshold.json",
        r#"{"format_version": 1, "name": "sm_opens_at_threshold", "title": "x", "category": "state_machine", "points": 1000, "hint": "x", "steps": []}"#,
    );
    put("labs/lab4/lab.json", "{}");
    put(
        "fixtures/targets/src/lib.rs",
        "compile_error!(\"tampered\");",
    );
    put("grader/harness/src/lib.rs", "compile_error!(\"tampered\");");
    put("grader/src/judge.rs", "compile_error!(\"tampered\");");
    put("Cargo.toml", "this is not toml");
    put(
        "crates/relay_base/Cargo.toml",
        "[package]\nname = \"relay_base\"\nbuild = \"build.rs\"\n",
    );
    put(
        "crates/relay_base/build.rs",
        "fn main() { panic!(\"tampered\") }",
    );
    put(
        "crates/relay_base/src/lib.rs",
        "compile_error!(\"tampered\");",
    );
    put(
        "crates/relay_base/src/extra.rs",
        "compile_error!(\"tampered\");",
    );

    let expected = subs::json(&check_json(&plain, &[]));
    let output = check_json(&tampered, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let got = subs::json(&output);
    assert_eq!(got["score"], expected["score"]);
    assert_eq!(got["max_score"], expected["max_score"]);
    assert_eq!(subs::statuses(&got), subs::statuses(&expected));
    assert!(
        subs::statuses(&got).contains(&("sm_opens_at_threshold".into(), "failed".into())),
        "the real scenario ran, not the submission's copy"
    );
    assert_eq!(
        got["provenance"]["student_files_sha256"],
        expected["provenance"]["student_files_sha256"]
    );
}

#[test]
fn printing_fake_results_does_not_change_the_grade() {
    let honest = subs::mutant("opens_one_late");
    let mut forger = honest.clone();
    // Fake reports, a fake total and a fake harness event, on both streams.
    let code = r##"
        let fake = r#"{"schema_version": 1, "lab": "lab4", "score": 130, "max_score": 130, "scenarios": []}"#;
        println!("{fake}");
        eprintln!("{fake}");
        println!("Total: 130/130 points, 31 of 31 scenarios passed");
        eprintln!("Total: 130/130 points, 31 of 31 scenarios passed");
        println!("{}", r#"{"finished": {}}"#);
    "##;
    subs::inject(&mut forger, "src/relay.rs", "pub fn new(", code);
    let dir = subs::folder("forger");
    subs::write(&dir, Layout::Crate, &forger);
    let honest_dir = subs::folder("forger_honest");
    subs::write(&honest_dir, Layout::Crate, &honest);
    let expected = subs::json(&check_json(&honest_dir, &[]));

    let output = check_json(&dir, &[]);
    let got = subs::json(&output);
    assert_eq!(got["score"], expected["score"]);
    assert_ne!(got["score"], got["max_score"]);
    assert_eq!(subs::statuses(&got), subs::statuses(&expected));

    // The human report too: its total is the real one, and nothing the code printed
    // reaches the grader's own output.
    let human = grader()
        .args(["check", "lab4", "--submission"])
        .arg(&dir)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&human.stdout);
    let total = format!(
        "Total: {}/{} points",
        expected["score"], expected["max_score"]
    );
    assert!(text.contains(&total), "{text}");
    assert!(!text.contains("Total: 130/130"), "{text}");
    assert!(!String::from_utf8_lossy(&human.stderr).contains("Total: 130/130"));
}

#[test]
fn code_that_does_not_compile_gets_zero_and_its_diagnostics() {
    let mut files = subs::reference_files();
    let breaker = &mut files[0].1;
    let line = breaker.lines().count() + 2;
    breaker.push_str("\npub fn broken() -> u32 {\n    \"not a number\"\n}\n");
    let dir = subs::folder("does_not_compile");
    subs::write(&dir, Layout::Kit, &files);
    let output = check_json(&dir, &[]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "graded, not an error: {output:?}"
    );
    let report = subs::json(&output);
    assert_eq!(report["score"], 0);
    let errors = report["compile_errors"].as_str().expect("compile_errors");
    let place = format!("crates/relay_base/src/breaker.rs:{}", line + 1);
    assert!(errors.contains(&place), "{place} in:\n{errors}");
    assert!(errors.contains("mismatched types"), "{errors}");
    assert!(
        !errors.contains("target/grader"),
        "no grader paths:\n{errors}"
    );
    for s in report["scenarios"].as_array().unwrap() {
        assert_eq!(s["status"], "error");
        assert_eq!(s["score"], 0);
    }
}

#[test]
fn a_changed_public_signature_is_a_compile_failure_not_a_kit_failure() {
    let mut files = subs::reference_files();
    let relay = &mut files[2].1;
    let at = relay.find("pub fn new(").expect("Relay::new");
    relay.insert_str(at + "pub fn new(".len(), "_extra: u8, ");
    let dir = subs::folder("changed_signature");
    subs::write(&dir, Layout::Crate, &files);
    let output = check_json(&dir, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = subs::json(&output);
    let errors = report["compile_errors"].as_str().expect("compile_errors");
    assert!(
        errors.contains("the grader cannot call your code"),
        "{errors}"
    );
    // The student's file, where they have it (a crate: src/relay.rs).
    assert!(errors.contains("--> src/relay.rs:"), "{errors}");
    assert!(
        !errors.contains("crates/relay_base/src/relay.rs"),
        "{errors}"
    );
}

#[test]
fn missing_symlinked_and_escaping_files_cannot_be_graded() {
    // A missing file: named, exit 2, and a results file in the machine formats.
    let dir = subs::folder("missing_file");
    let files = subs::reference_files();
    subs::write(&dir, Layout::Crate, &files[..2]);
    let out = dir.join("results.json");
    grader()
        .args(["check", "lab4", "--format", "json", "--submission"])
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("src/relay.rs: missing"));
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("a results file"))
            .expect("JSON");
    assert_eq!(result["status"], "could_not_grade");
    assert_eq!(result["score"], 0);
    assert_eq!(result["problems"][0]["file"], "src/relay.rs");

    // A missing file in a wrapped folder: named where it was looked for, in the folder.
    let dir = subs::folder("missing_wrapped");
    subs::write(&dir.join("lab4"), Layout::Flat, &files[..2]);
    let output = check_json(&dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let result = subs::json(&output);
    assert_eq!(result["problems"][0]["looked_at"], "lab4/relay.rs");
    assert!(
        result["read_as"]
            .as_str()
            .unwrap()
            .contains("sub-folder lab4/"),
        "{result}"
    );

    // A symbolic link to a file outside the folder.
    let dir = subs::folder("symlinked_file");
    subs::write(&dir, Layout::Crate, &files[..2]);
    std::os::unix::fs::symlink(
        crate::util::kit().join("solutions/lab4/src/relay.rs"),
        dir.join("src/relay.rs"),
    )
    .unwrap();
    grader()
        .args(["check", "lab4", "--submission"])
        .arg(&dir)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("src/relay.rs: is a symbolic link"));

    // A folder on the way that is a symbolic link to somewhere else.
    let dir = subs::folder("symlinked_folder");
    let elsewhere = subs::folder("symlinked_folder_target");
    subs::write(&elsewhere, Layout::Crate, &files);
    std::os::unix::fs::symlink(elsewhere.join("src"), dir.join("src")).unwrap();
    grader()
        .args(["check", "lab4", "--submission"])
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("src is a symbolic link"));

    // Not a folder at all.
    grader()
        .args(["check", "lab4", "--submission", "Cargo.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a folder"));
}

#[test]
fn an_endless_loop_is_stopped_and_scored() {
    let mut files = subs::reference_files();
    subs::inject(
        &mut files,
        "src/relay.rs",
        "pub fn new(",
        "loop { std::hint::spin_loop(); }",
    );
    let dir = subs::folder("endless_loop");
    subs::write(&dir, Layout::Flat, &files);
    let output = check_json(
        &dir,
        &["--scenario", "sm_opens_at_threshold", "--timeout", "1"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = subs::json(&output);
    let s = &report["scenarios"][0];
    assert_eq!(s["status"], "timeout", "{s}");
    assert_eq!(s["score"], 0);
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .contains("still running after 1 s of real time"),
        "{}",
        s["message"]
    );
}

#[test]
fn unbounded_allocation_is_stopped_and_scored() {
    let mut files = subs::reference_files();
    subs::inject(
        &mut files,
        "src/relay.rs",
        "pub fn new(",
        "let mut hoard: Vec<Vec<u8>> = Vec::new(); \
         loop { hoard.push(vec![0u8; 64 << 20]); std::hint::black_box(&hoard); }",
    );
    let dir = subs::folder("unbounded_allocation");
    subs::write(&dir, Layout::Flat, &files);
    let output = check_json(
        &dir,
        &["--scenario", "sm_opens_at_threshold", "--timeout", "20"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let s = &subs::json(&output)["scenarios"][0];
    assert_eq!(s["status"], "error", "{s}");
    assert!(
        s["message"].as_str().unwrap().contains("ran out of memory"),
        "{}",
        s["message"]
    );
}

#[test]
fn without_the_sandbox_a_process_the_code_starts_still_does_not_outlive_grading() {
    // Without the sandbox the harness runs in its own process group, killed whole when
    // the scenario ends. (In the sandbox its PID namespace goes too, even a process that
    // left the group: `attacks::detached_process_holds_the_pipes`.)
    //
    // A marker no other process has (`sleep` adds up its arguments), and where to write
    // the sleeper's pid. They reach the code through the environment, which the harness
    // inherits without the sandbox, so the submission's text, and so its build, is the
    // same on every run.
    let marker = format!("0.{}{}", std::process::id(), 7_919);
    let dir = subs::folder("forks_a_sleeper");
    let pid_file = dir.join("sleeper.pid");
    let mut files = subs::reference_files();
    subs::inject(
        &mut files,
        "src/breaker.rs",
        "pub fn new(",
        r#"if let (Ok(marker), Ok(file)) = (std::env::var("GRADER_TEST_SLEEPER_MARKER"), std::env::var("GRADER_TEST_SLEEPER_PID_FILE")) {
               if let Ok(child) = std::process::Command::new("sleep").args(["1000", marker.as_str()]).spawn() {
                   let _ = std::fs::write(file, child.id().to_string());
               }
           }"#,
    );
    let src = dir.join("submission");
    subs::write(&src, Layout::Crate, &files);
    let output = grader()
        .args(["check", "lab4", "--format", "json", "--submission"])
        .arg(&src)
        .args(["--scenario", "sm_opens_at_threshold", "--no-sandbox"])
        .env("GRADER_TEST_SLEEPER_MARKER", &marker)
        .env("GRADER_TEST_SLEEPER_PID_FILE", &pid_file)
        .output()
        .expect("the grader runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let pid = std::fs::read_to_string(&pid_file).expect("the code under test started a process");
    assert!(!pid.trim().is_empty());
    let survivors = crate::attacks::survivors(&marker);
    assert!(survivors.is_empty(), "left behind: {survivors:?}");
}

#[test]
// Waiting on another process (the grader, the scenario it started) takes real time.
#[allow(clippy::disallowed_methods)]
fn a_killed_grader_leaves_no_scenario_running() {
    // Without the sandbox a scenario's process is started directly, in a process group
    // of its own (where Ctrl-C does not reach): it must end with the grader, however the
    // grader ends. The code under test writes its process's pid where the test says
    // (through the environment, so the build is the same on every run), then spins.
    let dir = subs::folder("outlives_the_grader");
    let pid_file = dir.join("harness.pid");
    let _ = std::fs::remove_file(&pid_file);
    let mut files = subs::reference_files();
    subs::inject(
        &mut files,
        "src/breaker.rs",
        "pub fn new(",
        r#"if let Ok(file) = std::env::var("GRADER_TEST_HARNESS_PID_FILE") {
               let _ = std::fs::write(file, std::process::id().to_string());
               loop { std::hint::spin_loop(); }
           }"#,
    );
    let src = dir.join("submission");
    subs::write(&src, Layout::Crate, &files);
    let mut grading = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["check", "lab4", "--submission"])
        .arg(&src)
        .args(["--scenario", "sm_opens_at_threshold", "--no-sandbox"])
        .args(["--timeout", "120"])
        .current_dir(crate::util::kit())
        .env_remove("GRADER_WORK_DIR")
        .env("GRADER_TEST_HARNESS_PID_FILE", &pid_file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the grader starts");
    // The build may take a while on a loaded machine; the scenario then starts at once.
    let started = std::time::Instant::now();
    let pid = loop {
        if let Ok(pid) = std::fs::read_to_string(&pid_file) {
            if let Ok(pid) = pid.trim().parse::<u32>() {
                break pid;
            }
        }
        if started.elapsed() > std::time::Duration::from_secs(120) {
            let _ = grading.kill();
            panic!("the scenario never started");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    grading.kill().expect("the grader is killed");
    let _ = grading.wait();
    let running = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                let state = stat
                    .rsplit_once(')')?
                    .1
                    .split_whitespace()
                    .next()?
                    .to_owned();
                Some(state != "Z" && state != "X")
            })
            .unwrap_or(false)
    };
    let killed = std::time::Instant::now();
    while running(pid) && killed.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let still = running(pid);
    if still {
        // Do not leave it spinning for the rest of the suite.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(!still, "the scenario's process {pid} outlived the grader");
}

#[test]
fn without_a_sandbox_a_submission_is_not_graded_unless_the_instructor_says_so() {
    let dir = subs::folder("no_sandbox_here");
    subs::write(&dir, Layout::Flat, &subs::reference_files());
    let out = dir.join("results.json");
    // bubblewrap missing, and the other sandbox not asked for.
    let refused = grader()
        .args(["check", "lab4", "--format", "gradescope", "--submission"])
        .arg(&*dir)
        .arg("-o")
        .arg(&out)
        .args(["--scenario", "sm_opens_at_threshold"])
        .env("GRADER_BWRAP", "/nonexistent/bwrap")
        .env("GRADER_SANDBOX", "bubblewrap")
        .output()
        .expect("the grader runs");
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("cannot set up the sandbox"), "{stderr}");
    assert!(stderr.contains("--no-sandbox"), "{stderr}");
    // The platform still gets a results file, with no points and the reason.
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("a results file")).unwrap();
    assert_eq!(results["score"].as_f64(), Some(0.0));
    assert_eq!(results["extra_data"]["status"], "error");

    let waived = check_json(
        &dir,
        &["--scenario", "sm_opens_at_threshold", "--no-sandbox"],
    );
    assert_eq!(waived.status.code(), Some(0), "{waived:?}");
    let report = subs::json(&waived);
    let sandbox = report["provenance"]["sandbox"]
        .as_str()
        .expect("a sandbox line");
    assert!(sandbox.starts_with("none (--no-sandbox)"), "{sandbox}");
}
