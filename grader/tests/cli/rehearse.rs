//! `grader rehearse`: a short rehearsal of the reference, its figures checked against what
//! the page says should be seen (with margins wide enough for a shared, noisy machine), its
//! page opened in headless Chromium, and the messages for relays and scripts that cannot
//! be rehearsed.
//!
//! The rehearsal runs once for the whole module; it lasts five seconds.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

use crate::browser;
use crate::util::{grader, kit, test_dir, tool_missing};

/// One short rehearsal of the reference solution.
struct ShortRun {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    dir: PathBuf,
    json: Value,
}

fn short_run() -> &'static ShortRun {
    static RUN: OnceLock<ShortRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = test_dir("rehearse-solution");
        let out = grader()
            .args(["rehearse", "lab4", "--solution", "--duration", "5", "--out"])
            .arg(&dir)
            .output()
            .expect("run the grader");
        let text = std::fs::read_to_string(dir.join("rehearsal.json")).unwrap_or_default();
        ShortRun {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            dir,
            json: serde_json::from_str(&text).unwrap_or(Value::Null),
        }
    })
}

fn relay<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["figures"]["relays"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["name"] == name))
        .unwrap_or_else(|| panic!("no {name} relay in the figures"))
}

/// `target`'s figures behind `relay` during the first phase of core banking that is `what`.
fn phase<'a>(json: &'a Value, relay_name: &str, target: &str, what: &str) -> &'a Value {
    let phases = json["figures"]["story"]["phases"]
        .as_array()
        .expect("phases");
    let i = phases
        .iter()
        .position(|p| p["what"] == what)
        .unwrap_or_else(|| panic!("no {what} phase"));
    &relay(json, relay_name)["targets"][target]["phases"][i]
}

fn outcome(json: &Value, relay_name: &str, target: &str, code: &str) -> u64 {
    relay(json, relay_name)["targets"][target]["outcomes"][code]
        .as_u64()
        .unwrap_or(0)
}

fn verdict<'a>(json: &'a Value, id: &str) -> &'a str {
    json["expectations"]
        .as_array()
        .and_then(|es| es.iter().find(|e| e["id"] == id))
        .and_then(|e| e["verdict"].as_str())
        .unwrap_or_else(|| panic!("no expectation {id}"))
}

#[test]
fn a_short_rehearsal_shows_the_cascade_behind_the_blind_relay_and_the_cure_behind_the_reference() {
    let run = short_run();
    assert!(
        matches!(run.status, Some(0 | 1)),
        "exit status {:?}\n{}\n{}",
        run.status,
        run.stdout,
        run.stderr
    );
    let j = &run.json;
    assert_eq!(j["raw"]["readiness"]["status"], "ready", "{}", run.stdout);
    for name in ["protected", "unprotected"] {
        let sent = j["raw"]["relays"]
            .as_array()
            .and_then(|rs| rs.iter().find(|r| r["name"] == name))
            .and_then(|r| r["requests"].as_array())
            .map_or(0, Vec::len);
        assert!(sent > 100, "{name}: only {sent} requests");
    }

    // The bulkhead: never more than max_concurrent (3) calls at core banking, as the relay
    // and as core banking itself count them. The blind relay has one per worker thread.
    let p_core = &relay(j, "protected")["targets"]["core_banking"];
    let u_core = &relay(j, "unprotected")["targets"]["core_banking"];
    // At core banking itself, a call the relay gave up on (E901) runs on until answered.
    assert!(p_core["peak_calls"].as_u64().unwrap() <= 3, "{p_core}");
    let given_up = outcome(j, "protected", "core_banking", "E901");
    assert!(
        p_core["peak_at_dependency"].as_u64().unwrap() <= 3 + given_up,
        "{p_core}"
    );
    assert!(u_core["peak_calls"].as_u64().unwrap() >= 4, "{u_core}");
    assert_eq!(verdict(j, "bulkhead_limit"), "seen");

    // The cascade: behind the blind relay, claims waits behind slow core banking calls
    // (each takes 333 ms, then 833 ms, in a 5 s rehearsal); behind the reference it does not. The
    // margins are an order of magnitude wider than any scheduling hiccup.
    let u_claims = phase(j, "unprotected", "claims", "slow")["p99_ms"]
        .as_f64()
        .expect("unprotected claims p99");
    let p_claims = phase(j, "protected", "claims", "slow")["p99_ms"]
        .as_f64()
        .expect("protected claims p99");
    assert!(u_claims >= 100.0, "unprotected claims p99 {u_claims} ms");
    assert!(
        p_claims * 2.0 <= u_claims,
        "claims p99 while core banking is slow: {p_claims} ms protected, {u_claims} ms unprotected"
    );

    // Isolation: claims never meets an open circuit; the reference rejects core banking
    // fast (E905 while slow, E904 while open); the blind relay never rejects anything.
    assert_eq!(outcome(j, "protected", "claims", "E904"), 0);
    assert!(outcome(j, "protected", "core_banking", "E905") > 0);
    assert!(outcome(j, "protected", "core_banking", "E904") > 0);
    // The dependency's failures reach the relays as such: answers later than the call
    // timeout as E901, refused connections as E902.
    for relay in ["protected", "unprotected"] {
        for code in ["E901", "E902"] {
            assert!(
                outcome(j, relay, "core_banking", code) > 0,
                "no {code} behind the {relay} relay"
            );
        }
    }
    for code in ["E904", "E905"] {
        assert_eq!(outcome(j, "unprotected", "core_banking", code), 0);
    }

    // The breaker: OPEN, quiet while OPEN, one trial at a time, CLOSED after recovery.
    let transitions = j["raw"]["relays"][0]["transitions"]
        .as_array()
        .expect("transitions");
    assert!(
        transitions
            .iter()
            .any(|t| t["from"] == "CLOSED" && t["to"] == "OPEN"),
        "{transitions:?}"
    );
    assert_eq!(
        transitions.last().map(|t| &t["to"]),
        Some(&Value::from("CLOSED"))
    );
    assert_eq!(verdict(j, "open_is_quiet"), "seen", "{}", run.stdout);
    assert_eq!(verdict(j, "probe_then_resume"), "seen", "{}", run.stdout);

    // The terminal summary names every expectation and the files.
    assert_eq!(verdict(j, "answers_everything"), "seen", "{}", run.stdout);
    for id in [
        "no panic",
        "cascade",
        "stays fast",
        "max_concurrent",
        "OPEN",
        "trial call",
    ] {
        assert!(run.stdout.contains(id), "{id} missing from\n{}", run.stdout);
    }
    assert!(run.stdout.contains("rehearsal.html"), "{}", run.stdout);
    assert!(
        run.stderr.contains("rehearsing for 5.0 s on 127.0.0.1"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_page_renders_every_chart_in_headless_chromium_without_script_errors() {
    let run = short_run();
    let page = run.dir.join("rehearsal.html");
    assert!(page.is_file(), "no page\n{}\n{}", run.stdout, run.stderr);
    let Some(browser) = browser::Browser::start() else {
        tool_missing("chromium and chromedriver");
    };
    // The check can fail: a page with a script error is caught.
    let broken = run.dir.join("broken.html");
    std::fs::write(
        &broken,
        "<html><body><script>undefinedFunction();</script></body></html>",
    )
    .expect("write a broken page");
    let errors = browser.open(&broken).expect("open the broken page");
    assert_eq!(errors.len(), 1, "{errors:?}");

    let errors = browser.open(&page).expect("open the page");
    assert!(errors.is_empty(), "script errors: {errors:?}");
    let charts = browser.charts().expect("measure the charts");
    let ids: Vec<&str> = charts.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "latency-core_banking",
            "latency-claims",
            "throughput",
            "in-progress",
            "threads",
            "calls",
            "breaker-states",
            "outcomes-protected",
            "outcomes-unprotected"
        ]
    );
    for c in &charts {
        assert!(c.width > 300.0 && c.height > 100.0, "{c:?}");
        assert!(c.marks > 10 && c.texts > 5, "{c:?}");
    }
    // Nothing is fetched: no external scripts, styles, images or fonts (SVG's namespace
    // is a name, not an address).
    let html = std::fs::read_to_string(&page).expect("read the page");
    for fetch in ["src=\"http", "href=\"http", "url(http", "<link", "@import"] {
        assert!(!html.contains(fetch), "the page fetches something: {fetch}");
    }
}

#[test]
fn a_relay_that_still_has_todos_is_named_not_rehearsed() {
    let dir = test_dir("rehearse-skeleton");
    for file in ["breaker.rs", "bulkhead.rs", "relay.rs"] {
        std::fs::copy(
            kit().join("crates/relay_base/src").join(file),
            dir.join(file),
        )
        .expect("copy a skeleton file");
    }
    let out = grader()
        .args(["rehearse", "lab4", "--submission"])
        .arg(&dir)
        .output()
        .expect("run the grader");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(&format!("submission {} is not ready for a rehearsal: Relay::handle (a request for core_banking) hit todo!() at crates/relay_base/src/relay.rs:", dir.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("lab 4: send the request through its breaker and bulkhead"),
        "{stdout}"
    );
    assert!(
        stdout.contains("help: a rehearsal needs code that works; `grader check lab4`"),
        "{stdout}"
    );
}

#[test]
fn a_bad_script_or_duration_is_refused_before_anything_runs() {
    let dir = test_dir("rehearse-bad-script");
    let text = std::fs::read_to_string(kit().join("labs/lab4/rehearsal.json"))
        .expect("read the script")
        .replacen("\"max_concurrent\": 3", "\"max_concurrent\": 0", 1);
    let script = dir.join("bad.json");
    std::fs::write(&script, &text).expect("write the script");
    let out = grader()
        .args(["rehearse", "lab4", "--solution", "--script"])
        .arg(&script)
        .output()
        .expect("run the grader");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .position(|l| l.contains("\"max_concurrent\": 0"))
        .unwrap()
        + 1;
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("bad.json:{line}:"))
            && stderr.contains("max_concurrent must be at least 1"),
        "{stderr}"
    );
    assert!(!stderr.contains("building"), "{stderr}");

    // A problem inside a phase is placed at its key in that phase.
    let text = std::fs::read_to_string(kit().join("labs/lab4/rehearsal.json"))
        .expect("read the script")
        .replacen(
            "\"behaviour\": \"refusing\"",
            "\"behaviour\": \"refusing\",\n         \"latency_ms\": 9",
            1,
        );
    std::fs::write(&script, &text).expect("write the script");
    let out = grader()
        .args(["rehearse", "lab4", "--solution", "--script"])
        .arg(&script)
        .output()
        .expect("run the grader");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .position(|l| l.contains("\"latency_ms\": 9"))
        .unwrap()
        + 1;
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "bad.json:{line}:10: a refusing phase answers no call"
        )),
        "{stderr}"
    );

    let out = grader()
        .args(["rehearse", "lab4", "--solution", "--duration", "0.5"])
        .output()
        .expect("run the grader");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--duration must be between 2 and 600 seconds"),
        "{stderr}"
    );
}
