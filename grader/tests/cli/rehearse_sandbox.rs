//! `grader rehearse --submission`: a submission's code is built and run in the sandbox,
//! as when it is graded, and a rehearsal gives it no more than grading does.
//!
//! Tried as an attacker would: a relay whose `Relay::new` reads the reference and a
//! hidden scenario, the grader's environment and its builds, reaches for the grader's
//! machine and the internet, writes into the kit and leaves a detached process behind,
//! panicking with `LEAKED:` and what it got whenever one of these works; and a relay that
//! pulls the same secrets into its compile errors. In the sandbox each attempt fails and
//! the relay rehearses as the honest code it is built on (a correct alternative, so that
//! the reference's text is a secret too); without the sandbox the same relay leaks, which
//! shows the attempts are real. Each rehearsal lasts two seconds; each build is kept
//! between runs.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use crate::attacks::{
    self, HIDDEN, REFERENCE, SECRET_ENV, attacks, in_relay_new, leak_if_read, reach_out,
};
use crate::subs::{self, Layout};
use crate::util::{grader, kit, test_dir, transcript};

/// What `sleep` gets in this module's detached process, to find survivors by (not the
/// grading attacks' marker: both may run at once).
const SLEEPER: &str = "0.0917268";
/// The abstract Unix socket the network attempt tries (not the grading attacks').
const PROBE: &str = "grader-rehearsal-probe";
/// What the write attempt creates in the kit if it can.
const CANARY: &str = "target/rehearsal-canary";

/// A correct relay written differently from the reference (`labs/lab4/alternatives/`).
fn alternative(name: &str) -> Vec<(String, String)> {
    subs::FILES
        .iter()
        .map(|f| {
            let path = kit().join("labs/lab4/alternatives").join(name).join(f);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            ((*f).to_owned(), text)
        })
        .collect()
}

/// The alternative `rwlock_breaker` with every run-time attempt at the start of
/// `Relay::new` (which the rehearsal program calls before and during the rehearsal).
fn run_time_attack() -> Vec<(String, String)> {
    let k = kit().display().to_string();
    let work = attacks::work().display().to_string();
    let reads = leak_if_read(&[
        format!("{k}/{HIDDEN}"),
        format!("{k}/{REFERENCE}"),
        format!("/proc/1/root{k}/{HIDDEN}"),
        format!("{work}/cargo/debug/lab_rehearsal_solution"),
        "/proc/1/environ".to_owned(),
        "/etc/shadow".to_owned(),
    ]);
    let code = format!(
        r#"{reads}
        if let Ok(v) = std::env::var("{env}") {{ panic!("LEAKED: {{v}}"); }}
        {network}
        if std::fs::OpenOptions::new().append(true).create(true).open("{k}/{CANARY}").is_ok() {{
            panic!("LEAKED: wrote into the kit");
        }}
        let _ = std::process::Command::new("setsid")
            .args(["sh", "-c", "sleep 1000 {SLEEPER} & exec sleep 1000 {SLEEPER}"])
            .spawn();"#,
        env = SECRET_ENV.0,
        network = reach_out(PROBE),
    );
    in_relay_new(alternative("rwlock_breaker"), &code)
}

/// The texts no output of a rehearsal of `files` may hold: what a working attempt
/// says, the grader's secret environment variable, the longest line of the hidden
/// scenario, and a line of the reference that `files` do not hold.
fn secrets(files: &[(String, String)]) -> Vec<String> {
    let hidden = std::fs::read_to_string(kit().join(HIDDEN)).expect("the hidden scenario");
    let reference = std::fs::read_to_string(kit().join(REFERENCE)).expect("the reference");
    let own = |line: &str| files.iter().any(|(_, t)| t.contains(line));
    let longest = hidden
        .lines()
        .map(str::trim)
        .max_by_key(|l| l.len())
        .expect("a line")
        .to_owned();
    let reference_line = reference
        .lines()
        .map(str::trim)
        .find(|l| l.len() > 40 && !own(l))
        .expect("a line of the reference the submission does not hold")
        .to_owned();
    vec![
        "LEAKED".to_owned(),
        SECRET_ENV.1.to_owned(),
        longest,
        reference_line,
    ]
}

/// What one rehearsal left: its output and the page and data it wrote.
struct Rehearsed {
    output: Output,
    html: String,
    json: Value,
}

/// `grader rehearse lab4 --submission` of `files`, for two seconds, with the secret in
/// the grader's environment and `extra` arguments.
fn rehearse(test: &str, files: &[(String, String)], extra: &[&str]) -> Rehearsed {
    let dir = test_dir(test);
    let submission = dir.join("submission");
    subs::write(&submission, Layout::Flat, files);
    let out: PathBuf = dir.join("out");
    let output = grader()
        .args(["rehearse", "lab4", "--duration", "2", "--submission"])
        .arg(&submission)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .env(SECRET_ENV.0, SECRET_ENV.1)
        .env_remove("GRADER_SANDBOX")
        .output()
        .expect("run the grader");
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    Rehearsed {
        html: read("rehearsal.html"),
        json: serde_json::from_str(&read("rehearsal.json")).unwrap_or(Value::Null),
        output,
    }
}

/// Asserts that nothing `r` shows holds any of `secrets`, and that the grader did not
/// crash.
fn assert_nothing_leaked(r: &Rehearsed, secrets: &[String]) {
    let t = transcript(&r.output);
    assert!(matches!(r.output.status.code(), Some(0 | 1)), "{t}");
    assert!(!t.contains("panicked at grader"), "{t}");
    let json = r.json.to_string();
    for secret in secrets {
        for (what, text) in [("output", &t), ("page", &r.html), ("data", &json)] {
            assert!(
                !text.contains(secret.as_str()),
                "the {what} holds {secret:?}"
            );
        }
    }
}

/// Core banking's answers by code behind the relay `name`.
fn outcomes<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["figures"]["relays"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["name"] == name))
        .map_or(&Value::Null, |r| &r["targets"]["core_banking"]["outcomes"])
}

/// Requests sent to the relay `name`, from the JSON's raw record.
fn requests(json: &Value, name: &str) -> usize {
    json["raw"]["relays"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["name"] == name))
        .and_then(|r| r["requests"].as_array())
        .map_or(0, Vec::len)
}

#[test]
fn in_the_sandbox_an_attacking_relay_gets_nothing_and_is_rehearsed_as_the_honest_code_it_is() {
    let files = run_time_attack();
    let _probe = attacks::probe_listener(PROBE);
    let r = rehearse("rehearse-sandboxed-attack", &files, &[]);
    let t = transcript(&r.output);
    assert_nothing_leaked(&r, &secrets(&files));
    assert!(
        attacks::survivors(SLEEPER).is_empty(),
        "left behind: {:?}",
        attacks::survivors(SLEEPER)
    );
    assert!(!kit().join(CANARY).exists(), "the relay wrote {CANARY}");

    // It rehearsed, on the dependency servers and fronts inside its own loopback.
    assert_eq!(r.json["raw"]["readiness"]["status"], "ready", "{t}");
    for side in ["protected", "unprotected"] {
        assert!(requests(&r.json, side) > 50, "{side}\n{t}");
    }
    // Core banking answered, then refused connections (its port closed), behind both.
    for side in ["protected", "unprotected"] {
        let core = outcomes(&r.json, side);
        assert!(core["OK"].as_u64().unwrap_or(0) > 0, "{side}: {core}\n{t}");
    }
    let core = outcomes(&r.json, "unprotected");
    assert!(core["E902"].as_u64().unwrap_or(0) > 0, "{core}\n{t}");

    // The page, the data and the summary say where it ran.
    let sandbox = r.json["sandbox"].as_str().unwrap_or("");
    assert!(sandbox.starts_with("bubblewrap"), "{sandbox}");
    assert!(sandbox.contains("loopback of its own"), "{sandbox}");
    assert!(
        r.html.contains("built and ran in this sandbox: bubblewrap"),
        "{t}"
    );
    assert!(stdout_line(&r.output, "Sandbox: bubblewrap"), "{t}");
    assert!(t.contains(", in the sandbox (bubblewrap"), "{t}");
}

#[test]
fn without_the_sandbox_the_same_relay_leaks_which_is_what_the_sandbox_stops() {
    let files = run_time_attack();
    let r = rehearse("rehearse-unsandboxed-attack", &files, &["--no-sandbox"]);
    let t = transcript(&r.output);
    assert_eq!(r.output.status.code(), Some(1), "{t}");
    assert!(t.contains("is not ready for a rehearsal"), "{t}");
    assert!(t.contains("LEAKED"), "{t}");
    assert!(!t.contains("in the sandbox"), "{t}");
}

#[test]
fn secrets_read_while_building_the_rehearsal_stay_out_of_its_messages() {
    let attack = attacks(&kit(), &attacks::work())
        .into_iter()
        .find(|a| a.name == "secrets_in_compile_errors")
        .expect("the attack");
    for path in [HIDDEN, REFERENCE] {
        assert!(
            kit().join(path).is_file(),
            "{path} is missing: nothing to aim at"
        );
    }
    let r = rehearse("rehearse-compile-time-attack", &attack.files, &[]);
    let t = transcript(&r.output);
    assert_nothing_leaked(&r, &secrets(&attack.files));
    assert_eq!(r.output.status.code(), Some(1), "{t}");
    assert!(
        t.contains("does not build, so it cannot be rehearsed") && t.contains("couldn't read"),
        "{t}"
    );
    assert!(
        r.html.is_empty(),
        "a page was written for code that does not build"
    );
}

#[test]
fn a_submission_is_not_rehearsed_where_no_sandbox_gives_it_a_loopback_of_its_own() {
    let dir = test_dir("rehearse-no-sandbox-here");
    subs::write(&dir, Layout::Flat, &subs::reference_files());
    let refused = |env: &[(&str, &str)]| {
        let mut cmd = grader();
        cmd.args(["rehearse", "lab4", "--duration", "2", "--submission"])
            .arg(&dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run the grader");
        let t = transcript(&out);
        assert_eq!(out.status.code(), Some(3), "{t}");
        assert!(!t.contains("building"), "{t}");
        assert!(
            t.contains("cannot set up the sandbox a submission's rehearsal runs in")
                && t.contains("pass --no-sandbox to rehearse without it"),
            "{t}"
        );
        t
    };
    // Landlock, the sandbox for containers without namespaces, cannot give one.
    let t = refused(&[("GRADER_SANDBOX", "landlock")]);
    assert!(
        t.contains("Landlock restricts TCP by port, not by address"),
        "{t}"
    );
    // Nor can a machine without bubblewrap, which says why.
    let t = refused(&[
        ("GRADER_SANDBOX", "bubblewrap"),
        ("GRADER_BWRAP", "/nonexistent/bwrap"),
    ]);
    assert!(
        t.contains("bubblewrap: cannot run /nonexistent/bwrap"),
        "{t}"
    );
}

/// Whether standard output has a line starting with `start`.
fn stdout_line(output: &Output, start: &str) -> bool {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .any(|l| l.starts_with(start))
}
