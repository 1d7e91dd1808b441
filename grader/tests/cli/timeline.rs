//! The page of timelines: a picture of every graded scenario. Headless Chromium opens the
//! page of a passing, a failing, a stuck and a racy submission of each lab (lab 6 has no
//! race checks yet) and the test fails on a script error, an empty picture, a lane count
//! other than the requests the scenario's steps sent, a failure without its framed step, a
//! stuck request not drawn as stuck, or a race schedule without its threads, its broken
//! property and its replay command; one screenshot is checked for drawn content.
//! Gradescope's results carry the failing scenarios' pictures inline, within their caps,
//! and a hidden scenario's picture shows no more than its text; JUnit names the page.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::browser::Browser;
use crate::util::{grader, kit, stdout, test_dir, tool_missing};

/// A submission (flat layout) in `dir`: the lab's reference files, with `mutant`'s edits
/// when one is named.
fn submission(lab: &str, mutant: Option<&str>, dir: &Path) -> PathBuf {
    let manifest = read_json(&kit().join("labs").join(lab).join("lab.json"));
    let solution = kit().join(manifest["solution_crate"].as_str().expect("solution_crate"));
    let mut files: Vec<(String, String)> = manifest["student_files"]
        .as_array()
        .expect("student_files")
        .iter()
        .map(|f| {
            let f = f.as_str().expect("a file");
            let text = std::fs::read_to_string(solution.join(f)).expect("read the reference");
            (f.to_owned(), text)
        })
        .collect();
    if let Some(name) = mutant {
        let m = read_json(
            &kit()
                .join("labs")
                .join(lab)
                .join("mutants")
                .join(format!("{name}.json")),
        );
        for edit in m["edits"].as_array().expect("edits") {
            let file = edit["file"].as_str().expect("file");
            let (_, text) = files
                .iter_mut()
                .find(|(f, _)| f == file)
                .expect("a file of the reference");
            let find = edit["find"].as_str().expect("find");
            assert_eq!(text.matches(find).count(), 1, "{name}: {find}");
            *text = text.replacen(find, edit["replace"].as_str().expect("replace"), 1);
        }
    }
    std::fs::create_dir_all(dir).expect("create the submission folder");
    for (file, text) in &files {
        let name = Path::new(file).file_name().expect("a file name");
        std::fs::write(dir.join(name), text).expect("write a file");
    }
    dir.to_path_buf()
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One grading of a submission: its JSON report and its page.
struct Graded {
    report: Value,
    page: PathBuf,
    lab: String,
}

/// Grades `mutant` (or the reference) of `lab` on `scenarios`, writing the JSON report and
/// the page of timelines.
fn grade(dir: &Path, lab: &str, mutant: Option<&str>, scenarios: &[&str]) -> Graded {
    let name = mutant.unwrap_or("reference");
    let sub = submission(lab, mutant, &dir.join(name));
    let report = dir.join(format!("{name}.json"));
    let page = dir.join(format!("{name}.html"));
    let mut cmd = grader();
    cmd.args(["check", lab, "--format", "json", "--submission"])
        .arg(&sub)
        .arg("--output")
        .arg(&report)
        .arg("--page")
        .arg(&page);
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    let output = cmd.output().expect("run the grader");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{name}: {}\n{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let said = stderr
        .lines()
        .find_map(|l| l.strip_prefix("timelines of every scenario: "))
        .unwrap_or_else(|| panic!("the run says where the page is: {stderr}"));
    // Relative to the folder it ran in, the kit's root.
    assert_eq!(kit().join(said), page, "{stderr}");
    Graded {
        report: read_json(&report),
        page,
        lab: lab.to_owned(),
    }
}

impl Graded {
    fn scenario(&self, name: &str) -> &Value {
        self.report["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not in the report"))
    }

    /// The requests scenario `name` sent, by its file and its `result`: what its picture
    /// must have a lane for. A run whose requests got stuck stops at that step, and a
    /// `send` there (one request after the other) sends none after the first stuck one,
    /// whose id (ids count the requests sent, from 1) the report names; every other run
    /// takes every step.
    fn sent(&self, name: &str, result: &Value) -> usize {
        let file = kit()
            .join("labs")
            .join(&self.lab)
            .join("scenarios")
            .join(format!("{name}.json"));
        let steps = read_json(&file)["steps"].as_array().expect("steps").clone();
        let requests = |step: &Value| -> (String, usize) {
            let (kind, body) = step
                .as_object()
                .expect("a step")
                .iter()
                .next()
                .expect("a kind");
            let count = match kind.as_str() {
                "send" => body["count"].as_u64().unwrap_or(1) as usize,
                "send_concurrent" => body["count"].as_u64().expect("count") as usize,
                _ => 0,
            };
            (kind.clone(), count)
        };
        if result["stuck"] != true {
            return steps.iter().map(|s| requests(s).1).sum();
        }
        let at = result["failure"]["step"].as_u64().expect("the stuck step") as usize - 1;
        let before: usize = steps[..at].iter().map(|s| requests(s).1).sum();
        let (kind, count) = requests(&steps[at]);
        let observed = result["failure"]["observed"].as_str().expect("observed");
        if kind != "send" {
            // Requests sent together: "some of the N requests". Lab 6's driver waits on
            // every request of the run at once, and stops sending at the first that
            // blocks, so its N is all the run sent; the others wait on the step's own.
            let n = observed
                .strip_prefix("some of the ")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse::<usize>().ok());
            // Or, when one request is named ("request #2 blocked for good"), lab 6's
            // driver sent the run's requests up to that one.
            let named = observed
                .split("request #")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse::<usize>().ok());
            return match (n, named) {
                (Some(n), _) if self.lab == "lab6" => n,
                (None, Some(id)) if self.lab == "lab6" => id,
                (Some(n), _) => before + n,
                (None, _) => before + count,
            };
        }
        observed
            .split("request #")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("{name}: the stuck request's id: {observed}"))
    }
}

/// What the page shows of each scenario, as the browser lays it out (with every
/// `<details>` opened, so that passing scenarios' pictures are measured too).
const LOOK: &str = "
document.querySelectorAll('details').forEach(d => { d.open = true; });
return Array.from(document.querySelectorAll('section.scenario')).map(s => {
  const t = s.querySelector('svg.timeline');
  const q = s.querySelector('svg.sequence');
  const svg = t || q;
  const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  const focus = t ? t.querySelector('g.focus') : null;
  const cap = s.querySelector('figcaption');
  return {
    id: s.id, status: s.dataset.status, width: r.width, height: r.height,
    lanes: t ? t.querySelectorAll('g.lane').length : null,
    bars: t ? t.querySelectorAll('g.lane rect').length : 0,
    bands: t ? t.querySelectorAll('g.band').length : 0,
    steps: t ? Number(t.dataset.steps) : null,
    focus: focus ? Number(focus.dataset.step) : null,
    stuck: t ? t.querySelectorAll('g.lane[data-stuck]').length : 0,
    probes: t ? t.querySelectorAll('g.lane[data-probe]').length : 0,
    threads: q ? Array.from(q.querySelectorAll('g.thread')).map(g => g.dataset.thread) : null,
    moves: q ? q.querySelectorAll('g.move').length : 0,
    broke: q ? q.querySelector('g.broke') !== null : false,
    caption: cap ? cap.textContent : '',
    nothing: s.querySelector('.nothing') ? s.querySelector('.nothing').textContent : ''
  };
});";

/// Opens `g`'s page and checks every scenario's picture against its report; returns what
/// the page showed, by scenario.
fn look(browser: &Browser, g: &Graded) -> Vec<Value> {
    let errors = browser.open(&g.page).expect("open the page");
    assert!(
        errors.is_empty(),
        "script errors on {}: {errors:?}",
        g.page.display()
    );
    let shown = browser.run(LOOK, json!([])).expect("look at the page");
    let shown = shown.as_array().expect("sections").clone();
    let names: Vec<&str> = g.report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        shown.len(),
        names.len(),
        "a section per scenario: {shown:?}"
    );
    for s in &shown {
        let id = s["id"].as_str().expect("an id");
        let name = id.strip_prefix("s-").expect("ids are s-<name>");
        let result = g.scenario(name);
        let failed = result["status"] != "passed";
        assert_eq!(s["status"], result["status"], "{name}");
        let ran = result["timeline"].as_array().is_some_and(|t| !t.is_empty());
        if result["status"] == "error" && !ran && s["width"] == 0 {
            // Nothing ran (the race checks cannot run this code): the page says why.
            let message = result["message"].as_str().expect("a message");
            let note = s["nothing"].as_str().unwrap_or("");
            assert!(note.contains(message), "{name}: {s}");
            continue;
        }
        assert!(
            s["width"].as_f64().unwrap_or(0.0) > 200.0
                && s["height"].as_f64().unwrap_or(0.0) > 60.0,
            "{name}: an empty picture: {s}"
        );
        if s["lanes"].is_null() {
            continue;
        }
        assert_eq!(
            s["lanes"].as_u64().expect("lanes") as usize,
            g.sent(name, result),
            "{name}: a lane per request sent: {s}"
        );
        let lanes = s["lanes"].as_u64().unwrap_or(0);
        assert!(
            s["bars"].as_u64().unwrap_or(0) >= lanes,
            "{name}: every lane drawn: {s}"
        );
        assert!(
            s["bands"].as_u64().unwrap_or(0) >= 1,
            "{name}: a band per breaker: {s}"
        );
        match &result["failure"] {
            Value::Object(f) if failed => assert_eq!(
                s["focus"], f["step"],
                "{name}: the step that differs is framed: {s}"
            ),
            _ if failed => assert!(!s["focus"].is_null(), "{name}: where it stopped: {s}"),
            _ => assert!(s["focus"].is_null(), "{name}: a pass frames nothing: {s}"),
        }
    }
    shown
}

/// What the page showed of scenario `name`.
fn section<'a>(shown: &'a [Value], name: &str) -> &'a Value {
    shown
        .iter()
        .find(|s| s["id"] == format!("s-{name}"))
        .unwrap_or_else(|| panic!("{name} is not on the page"))
}

/// A racy submission's race check: drawn as its schedule, with the threads its
/// interleaving names, the broken property, and the replay command.
fn racy(g: &Graded, shown: &[Value], name: &str) {
    let result = g.scenario(name);
    assert_eq!(result["status"], "failed", "{name}: {result}");
    let told = &result["interleaving"];
    let s = section(shown, name);
    let threads: BTreeSet<String> = told["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(|l| l.as_str()?.split_once(": ").map(|(who, _)| who.to_owned()))
        .filter(|who| who.starts_with("request #") || who.starts_with("message #"))
        .collect();
    let drawn: BTreeSet<String> = s["threads"]
        .as_array()
        .expect("a sequence picture")
        .iter()
        .map(|t| t.as_str().expect("a thread").to_owned())
        .collect();
    assert_eq!(
        drawn, threads,
        "{name}: the threads of the interleaving: {s}"
    );
    assert!(
        s["moves"].as_u64().unwrap_or(0) >= threads.len() as u64,
        "{s}"
    );
    assert_eq!(
        s["broke"], true,
        "{name}: the broken property is marked: {s}"
    );
    let replay = told["replay"].as_str().expect("a replay command");
    assert!(
        s["caption"].as_str().unwrap_or("").contains(replay),
        "{name}: the replay command beside the picture: {s}"
    );
}

fn browser() -> Browser {
    Browser::start().unwrap_or_else(|| tool_missing("chromium and chromedriver"))
}

/// The four submissions of a lab on `scenarios`: the reference passes them, `failing`
/// fails `fails`, `stuck` leaves requests stuck in `sticks`, `racy` breaks `races`.
struct Lab<'a> {
    lab: &'a str,
    scenarios: &'a [&'a str],
    failing: (&'a str, &'a str),
    stuck: (&'a str, &'a str),
    racy: Option<(&'a str, &'a str)>,
}

fn every_kind(dir: &Path, l: &Lab<'_>) -> Vec<(Graded, Vec<Value>)> {
    let browser = browser();
    let mut out = Vec::new();
    let passing = grade(dir, l.lab, None, l.scenarios);
    let shown = look(&browser, &passing);
    assert!(
        passing.report["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .all(|s| s["status"] == "passed"),
        "the reference passes"
    );
    out.push((passing, shown));

    let (mutant, fails) = l.failing;
    let failing = grade(dir, l.lab, Some(mutant), l.scenarios);
    let shown = look(&browser, &failing);
    assert_eq!(failing.scenario(fails)["status"], "failed", "{mutant}");
    assert!(!section(&shown, fails)["focus"].is_null());
    out.push((failing, shown));

    let (mutant, sticks) = l.stuck;
    let stuck = grade(dir, l.lab, Some(mutant), l.scenarios);
    let shown = look(&browser, &stuck);
    assert_eq!(
        stuck.scenario(sticks)["stuck"],
        true,
        "{mutant}: {}",
        stuck.scenario(sticks)
    );
    assert!(
        section(&shown, sticks)["stuck"].as_u64().unwrap_or(0) >= 1,
        "{mutant}: stuck requests are drawn as stuck: {}",
        section(&shown, sticks)
    );
    out.push((stuck, shown));

    if let Some((mutant, races)) = l.racy {
        let g = grade(dir, l.lab, Some(mutant), &[races]);
        let shown = look(&browser, &g);
        racy(&g, &shown, races);
        out.push((g, shown));
    }
    out
}

#[test]
fn lab4_pages_show_every_kind_of_run() {
    let dir = test_dir("timeline-lab4");
    let runs = every_kind(
        &dir,
        &Lab {
            lab: "lab4",
            scenarios: &[
                "sm_opens_at_threshold",
                "ho_single_trial_under_concurrency",
                "bh_full_bulkhead_answers_at_once",
                "race_single_trial",
            ],
            failing: ("many_trials", "ho_single_trial_under_concurrency"),
            stuck: ("queueing_bulkhead", "bh_full_bulkhead_answers_at_once"),
            racy: Some(("trial_check_then_mark", "race_single_trial")),
        },
    );
    // The reference's single trial is drawn as one; the mutant that lets several through
    // has each drawn as a trial.
    let (_, reference) = &runs[0];
    assert_eq!(
        section(reference, "ho_single_trial_under_concurrency")["probes"],
        1
    );
    let (_, many) = &runs[1];
    let probes = section(many, "ho_single_trial_under_concurrency")["probes"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        probes > 1,
        "{}",
        section(many, "ho_single_trial_under_concurrency")
    );
    // A race check that passed is drawn as its first schedule's timeline.
    let race = section(reference, "race_single_trial");
    assert!(race["lanes"].as_u64().unwrap_or(0) > 0, "{race}");
    assert!(
        race["caption"]
            .as_str()
            .unwrap_or("")
            .contains("schedule 1 of"),
        "{race}"
    );
}

#[test]
fn lab5_pages_show_flows_probes_and_alerts() {
    let dir = test_dir("timeline-lab5");
    let runs = every_kind(
        &dir,
        &Lab {
            lab: "lab5",
            scenarios: &[
                "pr_exactly_n_probes_at_once",
                "al_one_alert_per_outage",
                "bh_full_bulkhead_answers_at_once",
                "race_probe_limit",
            ],
            failing: ("single_probe", "pr_exactly_n_probes_at_once"),
            stuck: ("queueing_bulkhead", "bh_full_bulkhead_answers_at_once"),
            racy: Some(("probe_check_then_count", "race_probe_limit")),
        },
    );
    let (reference, shown) = &runs[0];
    let alerts = alerts_drawn(&reference.page, "al_one_alert_per_outage");
    assert_eq!(alerts, 2, "an opening and a closing alert, each a mark");
    let probes = section(shown, "pr_exactly_n_probes_at_once")["probes"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        probes >= 2,
        "every probe of the round is drawn as one: {probes}"
    );
}

/// How many alert marks scenario `name`'s picture on `page` has, read from the file (the
/// page needs no script to show them).
fn alerts_drawn(page: &Path, name: &str) -> usize {
    let html = std::fs::read_to_string(page).expect("read the page");
    let start = html
        .find(&format!("id=\"s-{name}\""))
        .expect("the scenario's section");
    let end = html[start..]
        .find("</section>")
        .map_or(html.len(), |e| start + e);
    html[start..end].matches("class=\"mark alert\"").count()
}

#[test]
fn lab6_pages_show_queues_pauses_and_budgets() {
    let dir = test_dir("timeline-lab6");
    let runs = every_kind(
        &dir,
        &Lab {
            lab: "lab6",
            scenarios: &[
                "qu_eight_active_ten_queued_then_no_capacity",
                "bu_pauses_spend_the_budget",
                "br_one_probe_then_closed",
            ],
            failing: ("no_queue", "qu_eight_active_ten_queued_then_no_capacity"),
            stuck: (
                "lock_held_during_attempt",
                "qu_eight_active_ten_queued_then_no_capacity",
            ),
            racy: None,
        },
    );
    let (reference, _) = &runs[0];
    let html = std::fs::read_to_string(&reference.page).expect("read the page");
    let queue = &html[html
        .find("id=\"s-qu_eight_active_ten_queued_then_no_capacity\"")
        .expect("a section")..];
    assert!(
        queue.contains("data-gauge=\"shipping: queued\""),
        "the queue's length is drawn"
    );
    let budget = &html[html
        .find("id=\"s-bu_pauses_spend_the_budget\"")
        .expect("a section")..];
    assert!(
        budget.contains("its budget ran out at"),
        "the budget is drawn on its lane"
    );
    assert!(
        budget.contains("data-gauge=\"shipping: pausing\""),
        "pauses are drawn"
    );
}

/// Decodes a screenshot in the page and counts what is not white in the part of it that
/// `arguments[1]` (a box in CSS pixels, or the whole window) covers.
const PIXELS: &str = "
const done = arguments[arguments.length - 1];
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const x = c.getContext('2d');
  x.drawImage(img, 0, 0);
  const scale = img.width / window.innerWidth;
  const b = arguments[1] || {x: 0, y: 0, w: window.innerWidth, h: window.innerHeight};
  const sx = Math.max(0, Math.floor(b.x * scale)), sy = Math.max(0, Math.floor(b.y * scale));
  const sw = Math.max(1, Math.min(c.width - sx, Math.floor(b.w * scale)));
  const sh = Math.max(1, Math.min(c.height - sy, Math.floor(b.h * scale)));
  const d = x.getImageData(sx, sy, sw, sh).data;
  let ink = 0; const colours = new Set();
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235) { ink++; }
    colours.add((d[i] >> 4) + ',' + (d[i + 1] >> 4) + ',' + (d[i + 2] >> 4));
  }
  done({width: sw, height: sh, ink: ink, colours: colours.size});
};
img.onerror = () => done({error: 'the screenshot is not an image'});
img.src = 'data:image/png;base64,' + arguments[0];";

#[test]
fn a_screenshot_of_a_failing_picture_is_not_blank() {
    let dir = test_dir("timeline-screenshot");
    let g = grade(
        &dir,
        "lab4",
        Some("opens_one_late"),
        &["sm_opens_at_threshold"],
    );
    let browser = browser();
    // The check can fail: a blank page has next to nothing drawn.
    let blank = dir.join("blank.html");
    std::fs::write(&blank, "<html><body></body></html>").expect("write a blank page");
    browser.open(&blank).expect("open the blank page");
    let shot = browser.screenshot().expect("a screenshot");
    let empty = browser
        .run_async(PIXELS, json!([shot, null]))
        .expect("count pixels");
    assert!(empty["ink"].as_u64().unwrap_or(u64::MAX) < 10, "{empty}");

    browser.open(&g.page).expect("open the page");
    let area = browser
        .run(
            "const s = document.querySelector('section.failed svg.timeline');
             s.scrollIntoView();
             const r = s.getBoundingClientRect();
             return {x: r.x, y: r.y, w: Math.min(r.width, window.innerWidth - r.x),
                     h: Math.min(r.height, window.innerHeight - r.y)};",
            json!([]),
        )
        .expect("show the first failing picture");
    let shot = browser.screenshot().expect("a screenshot");
    // Only the picture's part of the window: the text around it does not count.
    let seen = browser
        .run_async(PIXELS, json!([shot, area]))
        .expect("count pixels");
    let (w, h) = (
        seen["width"].as_u64().unwrap_or(0),
        seen["height"].as_u64().unwrap_or(0),
    );
    let ink = seen["ink"].as_u64().unwrap_or(0);
    assert!(w > 0 && h > 0, "{seen}");
    assert!(
        ink * 20 > w * h,
        "at least 5% of the picture is drawn: {seen}"
    );
    assert!(
        seen["colours"].as_u64().unwrap_or(0) >= 8,
        "lanes, bands and text in colours: {seen}"
    );
}

/// The `<svg ...>` start tag in `html`, and the whole picture's length in bytes.
fn picture_in(html: &str) -> Option<(&str, usize)> {
    let start = html.find("<svg")?;
    let tag_end = start + html[start..].find('>')?;
    let end = start + html[start..].find("</svg>")? + "</svg>".len();
    Some((&html[start..=tag_end], end - start))
}

#[test]
fn gradescope_carries_failing_pictures_and_hidden_ones_show_no_more_than_their_text() {
    let dir = test_dir("timeline-platforms");
    let sub = submission("lab4", Some("opens_one_late"), &dir.join("sub"));
    let results = dir.join("results.json");
    grader()
        .args(["check", "lab4", "--format", "gradescope", "--submission"])
        .arg(&sub)
        .arg("--output")
        .arg(&results)
        .assert()
        .code(1);
    let results = read_json(&results);
    let (mut pictured, mut hidden_pictured, mut total) = (0, 0, 0);
    for t in results["tests"].as_array().expect("tests") {
        let output = t["output"].as_str().expect("an output");
        let name = t["name"].as_str().expect("a name");
        if t["status"] == "passed" {
            assert!(t.get("output_format").is_none(), "{name}: {t}");
            assert!(
                !output.contains("<svg"),
                "{name}: a pass carries no picture"
            );
            continue;
        }
        assert_eq!(t["output_format"], "html", "{name}: {t}");
        assert!(
            output.starts_with("<p><strong>FAIL</strong>"),
            "{name}: {output}"
        );
        let Some((tag, bytes)) = picture_in(output) else {
            assert!(output.contains("No picture here"), "{name}: {output}");
            continue;
        };
        assert!(bytes <= 64 * 1024, "{name}: {bytes} bytes");
        let start = output.find("<svg").unwrap_or(0);
        let drawn = output[start..start + bytes].matches("<rect").count();
        assert!(drawn > 3, "{name}: an empty picture: {tag}");
        total += bytes;
        pictured += 1;
        for part in ["<script", "<style", "href=", "src="] {
            assert!(!output.contains(part), "{name}: {part} in {output}");
        }
        if t["visibility"] == "after_published" {
            // The text stops at the step that differs; so does the picture.
            let step: usize = output
                .split("step ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{name}: the failing step: {output}"));
            assert!(
                tag.contains(&format!("data-steps=\"{step}\"")),
                "{name}: a hidden scenario's picture ends at step {step}: {tag}"
            );
            hidden_pictured += 1;
        }
    }
    assert!(pictured >= 2, "the failing scenarios have their pictures");
    assert!(
        hidden_pictured >= 1,
        "a failing hidden scenario was checked"
    );
    assert!(total <= 512 * 1024, "{total} bytes of pictures");

    // JUnit names the page: a property on every case, an attachment on those that fail.
    let page = dir.join("timeline.html");
    let xml = dir.join("results.xml");
    grader()
        .args(["check", "lab4", "--format", "junit", "--submission"])
        .arg(&sub)
        .arg("--output")
        .arg(&xml)
        .arg("--page")
        .arg(&page)
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&xml).expect("read the JUnit file");
    let case = |name: &str| -> &str {
        let start = xml
            .find(&format!("<testcase name=\"{name}\""))
            .unwrap_or_else(|| panic!("{name} in {xml}"));
        let end = start + xml[start..].find("</testcase>").expect("its end");
        &xml[start..end]
    };
    let failing = case("sm_opens_at_threshold");
    assert!(
        failing.contains(&format!("[[ATTACHMENT|{}]]", page.display())),
        "{failing}"
    );
    assert!(
        failing.contains(&format!("{}#s-sm_opens_at_threshold", page.display())),
        "{failing}"
    );
    let passing = case("bh_full_bulkhead_answers_at_once");
    assert!(!passing.contains("ATTACHMENT"), "{passing}");
    assert!(
        passing.contains("#s-bh_full_bulkhead_answers_at_once"),
        "{passing}"
    );
    let html = std::fs::read_to_string(&page).expect("the page is written");
    assert!(html.contains("id=\"s-sm_opens_at_threshold\""));
}

#[test]
fn the_page_is_written_for_a_student_by_default_and_not_when_declined() {
    let page = kit().join("target/grader/lab4/timeline.html");
    let run = |extra: &[&str]| {
        let output = grader()
            .args(["check", "lab4", "--scenario", "sm_opens_at_threshold"])
            .args(extra)
            .output()
            .expect("run the grader");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let _ = std::fs::remove_file(&page);
    let said = run(&["--no-page"]);
    assert!(!said.contains("timelines"), "{said}");
    assert!(!page.exists(), "--no-page writes none");
    let said = run(&[]);
    assert!(
        said.contains("timelines of every scenario: target/grader/lab4/timeline.html"),
        "{said}"
    );
    let html = std::fs::read_to_string(&page).expect("the page is written");
    // The skeleton stops at its todo!(): the picture says where it stopped.
    assert!(html.contains("id=\"s-sm_opens_at_threshold\""), "{html}");
    assert!(
        html.contains("class=\"focus\""),
        "the step it stopped at is framed"
    );
    // A machine format writes none unless asked.
    let _ = std::fs::remove_file(&page);
    let said = run(&["--format", "json"]);
    assert!(!said.contains("timelines"), "{said}");
    assert!(!page.exists());
}
