//! `grader grade` for a class: a batch of lab 5 submissions (the reference, the untouched
//! skeleton, two copies of one mutant and the same mutant with other comments, another
//! mutant, one with a file missing) graded with a roster. The platforms' files hold the
//! columns docs/ci.md gives, the gradebook is safe for a spreadsheet, the class page
//! shows every chart in headless Chromium, groups the copies and ranks the mutants'
//! Start here first, and grading one submission again keeps every other row.
//!
//! The batch is graded once for the whole module.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::browser;
use crate::util::{grader, kit, test_dir, tool_missing, transcript};

/// The first mutant: a failed probe reopens without a fresh wait.
const MUTANT_A: &str = "wait_not_restarted";
/// The second: one probe however many the flow allows.
const MUTANT_B: &str = "single_probe";
/// The grade column's name.
const ASSIGNMENT: &str = "Lab 5 (4242)";

/// Lab 5's declared files as the reference has them.
fn reference() -> BTreeMap<String, String> {
    files_of("solutions/lab5")
}

/// The declared files under `crate_dir` of the kit.
fn files_of(crate_dir: &str) -> BTreeMap<String, String> {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(kit().join("labs/lab5/lab.json")).expect("lab.json"),
    )
    .expect("JSON");
    manifest["student_files"]
        .as_array()
        .expect("student_files")
        .iter()
        .map(|f| {
            let f = f.as_str().expect("a path").to_owned();
            let text = std::fs::read_to_string(kit().join(crate_dir).join(&f)).expect("read");
            (f, text)
        })
        .collect()
}

/// The reference with mutant `name`'s edits.
fn mutant(name: &str) -> BTreeMap<String, String> {
    let path = kit().join("labs/lab5/mutants").join(format!("{name}.json"));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON");
    let mut files = reference();
    for e in m["edits"].as_array().expect("edits") {
        let text = files
            .get_mut(e["file"].as_str().expect("file"))
            .expect("a declared file");
        let find = e["find"].as_str().expect("find");
        assert_eq!(text.matches(find).count(), 1, "{name}: {find}");
        *text = text.replacen(find, e["replace"].as_str().expect("replace"), 1);
    }
    files
}

fn write(dir: &Path, files: &BTreeMap<String, String>) {
    for (f, text) in files {
        let path = dir.join(f);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create");
        std::fs::write(path, text).expect("write");
    }
}

const ROSTER: &str = "\
GitHub,Name,Email,Student ID,Canvas ID,Section,submission
alice,Alice Martin,alice@example.edu,1001,11,A,
bob,José Núñez,bob@example.edu,1002,12,A,
,Carol Chen,carol@example.edu,1003,13,B,carol
,Dave Diaz,,,14,B,dave
,Erin Eve,erin@example.edu,1005,15,B,erin
,Frank Fox,frank@example.edu,1006,16,B,frank
";

/// The graded batch.
struct Run {
    root: PathBuf,
    out: PathBuf,
    code: Option<i32>,
    stderr: String,
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let root = test_dir("class");
        let subs = root.join("submissions");
        write(&subs.join("reference"), &reference());
        write(&subs.join("skeleton"), &files_of("crates/edi_gateway"));
        write(&subs.join("lab5-alice"), &mutant(MUTANT_A));
        write(&subs.join("lab5-bob"), &mutant(MUTANT_A));
        let mut commented = mutant(MUTANT_A);
        for text in commented.values_mut() {
            *text = format!("// Carol's copy.\n{}", text.replace("    ", "  "));
        }
        write(&subs.join("carol"), &commented);
        write(&subs.join("dave"), &mutant(MUTANT_B));
        let mut missing = reference();
        missing.remove("src/window.rs");
        write(&subs.join("erin"), &missing);
        let roster = root.join("roster.csv");
        std::fs::write(&roster, ROSTER).expect("write the roster");
        let out = root.join("results");
        let output = grader()
            .args(["grade", "lab5"])
            .arg(&subs)
            .arg("--results-dir")
            .arg(&out)
            .arg("--roster")
            .arg(&roster)
            .args(["--assignment", ASSIGNMENT])
            .output()
            .expect("run the grader");
        Run {
            root,
            out,
            code: output.status.code(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    })
}

/// A CSV file's lines as cells, after its byte-order mark.
fn csv_file(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or_else(|| panic!("{} starts with a byte-order mark", path.display()));
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("a CSV record").iter().map(str::to_owned).collect())
        .collect()
}

/// The lines of docs/ci.md's example that start with `first`, as cells.
fn documented(first: &str) -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(kit().join("docs/ci.md")).expect("read docs/ci.md");
    let start = doc
        .find(first)
        .unwrap_or_else(|| panic!("docs/ci.md shows `{first}`"));
    let block = &doc[start..doc[start..].find("```").map_or(doc.len(), |e| start + e)];
    block
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // The doc's block is indented under a list item.
            let line = l.strip_prefix("  ").unwrap_or(l);
            csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(line.as_bytes())
                .records()
                .next()
                .expect("a line")
                .expect("CSV")
                .iter()
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

fn max_score() -> String {
    let book = gradebook(&run().out);
    book["max_score"].to_string()
}

fn gradebook(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("gradebook.json")).expect("read"))
        .expect("gradebook.json")
}

#[test]
fn the_batch_is_graded_with_its_roster() {
    let run = run();
    // One submission could not be graded (a file is missing): exit status 2.
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    for said in [
        "roster: 1 student has no submission here: Frank Fox",
        "canvas: ",
        "left out: dave (the roster gives no email or student_id, which Moodle finds a user by)",
        "class page: ",
    ] {
        assert!(run.stderr.contains(said), "no `{said}` in:\n{}", run.stderr);
    }
}

#[test]
fn canvas_csv_has_the_columns_canvas_imports() {
    let run = run();
    let table = csv_file(&run.out.join("canvas.csv"));
    let doc = documented("Student,ID,SIS User ID");
    // The documented columns, with this batch's assignment name in the last.
    let mut header = doc[0].clone();
    *header.last_mut().expect("a grade column") = ASSIGNMENT.to_owned();
    assert_eq!(table[0], header, "{}", run.stderr);
    assert_eq!(
        table[0][..5],
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    );
    assert_eq!(doc[1][0], "    Points Possible", "the doc's points line");
    assert_eq!(table[1][0], "    Points Possible");
    assert_eq!(table[1][5], max_score());
    assert!(
        table[1][1..5].iter().all(String::is_empty),
        "{:?}",
        table[1]
    );
    let lines: BTreeMap<&str, &Vec<String>> =
        table[2..].iter().map(|l| (l[0].as_str(), l)).collect();
    assert_eq!(
        lines.keys().copied().collect::<Vec<_>>(),
        [
            "Alice Martin",
            "Carol Chen",
            "Dave Diaz",
            "Erin Eve",
            "José Núñez"
        ],
        "everyone on the roster with a submission, and no one else"
    );
    assert_eq!(lines["Alice Martin"][1..5], ["11", "1001", "", "A"]);
    let score = |name: &str| lines[name][5].clone();
    let book = gradebook(&run.out);
    let row = |name: &str| {
        book["submissions"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no row {name}"))
            .clone()
    };
    assert_eq!(
        score("Alice Martin"),
        row("lab5-alice")["score"].to_string()
    );
    assert_eq!(score("Dave Diaz"), row("dave")["score"].to_string());
    assert_eq!(score("Erin Eve"), "", "not graded: blank, not 0");
    for line in &table {
        assert_eq!(line.len(), header.len(), "{line:?}");
    }
}

#[test]
fn moodle_csv_has_the_columns_moodle_imports() {
    let run = run();
    let table = csv_file(&run.out.join("moodle.csv"));
    let doc = documented("First name,Last name,ID number");
    let mut header = doc[0].clone();
    *header.last_mut().expect("a grade column") = ASSIGNMENT.to_owned();
    assert_eq!(table[0], header, "{}", run.stderr);
    assert_eq!(
        table[0][..6],
        [
            "First name",
            "Last name",
            "ID number",
            "Institution",
            "Department",
            "Email address"
        ]
    );
    // Every line is a student Moodle can find: no points line, nobody without an email
    // or ID number (Moodle would give up the whole import there).
    let emails: Vec<&str> = table[1..].iter().map(|l| l[5].as_str()).collect();
    assert_eq!(
        emails,
        [
            "carol@example.edu",
            "erin@example.edu",
            "alice@example.edu",
            "bob@example.edu"
        ]
    );
    let bob = &table[4];
    assert_eq!(bob[..3], ["José", "Núñez", "1002"]);
    assert_eq!(table[2][6], "", "Erin's submission was not graded: blank");
}

#[test]
fn the_gradebook_is_safe_for_a_spreadsheet() {
    let run = run();
    let table = csv_file(&run.out.join("gradebook.csv"));
    let book = gradebook(&run.out);
    let head = &table[0];
    let at = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    for c in book["categories"].as_array().expect("categories") {
        let title = c["title"].as_str().expect("a title");
        let i = at(title);
        assert_eq!(table[1][i], c["max_score"].to_string(), "{title}");
    }
    assert_eq!(table[1][0], "Points Possible");
    assert_eq!(table[1][at("score")], max_score());
    for column in ["max_score", "passed", "hidden_failed"] {
        assert_eq!(table[1][at(column)], "", "no points under {column}");
    }
    let line = |name: &str| {
        table
            .iter()
            .find(|l| l[0] == name)
            .unwrap_or_else(|| panic!("no line {name}"))
    };
    assert_eq!(line("lab5-bob")[at("student")], "José Núñez");
    let erin = line("erin");
    assert_eq!(erin[at("status")], "could_not_grade");
    for column in ["score", "passed", "failed", "hidden_failed"] {
        assert_eq!(
            erin[at(column)],
            "",
            "blank {column} for a submission not graded"
        );
    }
    let skeleton = line("skeleton");
    assert_eq!(skeleton[at("failed")], "all (unchanged skeleton)");
    assert!(skeleton[at("message")].starts_with("unchanged skeleton"));
    assert!(!line("reference")[at("message")].contains("skeleton"));
    let hidden: Vec<&str> = book["scenario_columns"]
        .as_array()
        .expect("scenario columns")
        .iter()
        .filter(|s| s["hidden"] == true)
        .map(|s| s["name"].as_str().expect("a name"))
        .collect();
    assert!(!hidden.is_empty());
    for file in ["gradebook.csv", "canvas.csv", "moodle.csv"] {
        let text = std::fs::read_to_string(run.out.join(file)).expect("read");
        for name in &hidden {
            assert!(
                !text.contains(name),
                "{file} names the hidden scenario {name}"
            );
        }
    }
    for r in book["submissions"].as_array().expect("rows") {
        assert_eq!(r["kit_version"], env!("CARGO_PKG_VERSION"));
        assert!(
            r["graded_at"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{r}"
        );
    }
}

/// The class page, as written.
fn page() -> String {
    std::fs::read_to_string(run().out.join("class.html")).expect("read the class page")
}

#[test]
fn the_class_page_ranks_the_mutants_start_here_and_groups_the_copies() {
    let html = page();
    // The mistakes table: Mutant A's Start here (three submissions) first, then B's.
    let table = &html[html
        .find("<table id=\"mistakes\">")
        .expect("a table of mistakes")..];
    let table = &table[..table.find("</table>").expect("its end")];
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 2, "one line per Start here:\n{table}");
    let caught = |m: &str| -> Vec<String> {
        let path = kit().join("labs/lab5/mutants").join(format!("{m}.json"));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON");
        serde_json::from_value(v["caught_by"].clone()).expect("caught_by")
    };
    // Each line: its rank, how many submissions, a scenario that catches the mutant, whose.
    for (row, rank, count, mutant, whose) in [
        (rows[0], 1, 3, MUTANT_A, "carol, lab5-alice, lab5-bob"),
        (rows[1], 2, 1, MUTANT_B, "dave"),
    ] {
        assert!(
            row.starts_with(&format!("<td>{rank}</td><td>{count}</td>")),
            "{row}"
        );
        assert!(row.contains(&format!("<td>{whose}</td>")), "{row}");
        assert!(
            caught(mutant)
                .iter()
                .any(|n| row.contains(&format!("<code>{n}</code>"))),
            "{row} should start at a scenario that catches {mutant}"
        );
    }
    assert!(!table.contains("skeleton"), "the skeleton is counted apart");
    assert!(
        html.contains("Unchanged skeleton (no declared file differs from the kit's): skeleton."),
        "the skeleton is named on its own"
    );

    // The copies, and the copy with other comments and indentation.
    let alike = &html[html
        .find("<ul id=\"alike\">")
        .expect("submissions that look alike")..];
    let alike = &alike[..alike.find("</ul>").expect("its end")];
    assert!(
        alike.contains(
            "<li data-likeness=\"identical\"><b>2</b> (identical files): lab5-alice, lab5-bob</li>"
        ),
        "{alike}"
    );
    assert!(
        alike.contains("<li data-likeness=\"same-code\"><b>3</b> (the same code once comments and white space are left out): carol, lab5-alice, lab5-bob</li>"),
        "{alike}"
    );
    assert!(
        !alike.contains("reference") && !alike.contains("dave"),
        "{alike}"
    );
    assert!(
        html.contains("What this cannot see:"),
        "the page says what it cannot see"
    );
    // Nothing is fetched.
    for fetch in ["src=\"http", "href=\"http", "url(http", "<link", "@import"] {
        assert!(!html.contains(fetch), "the page fetches something: {fetch}");
    }
}

#[test]
fn the_class_page_renders_every_chart_in_headless_chromium() {
    let run = run();
    let page = run.out.join("class.html");
    assert!(page.is_file(), "no page:\n{}", run.stderr);
    let Some(browser) = browser::Browser::start() else {
        tool_missing("chromium and chromedriver");
    };
    // The checks can fail: a script error and an empty chart are caught.
    let broken = run.root.join("broken.html");
    std::fs::write(
        &broken,
        "<html><body><figure id=\"empty\"><svg width=\"400\" height=\"200\"></svg></figure><script>undefinedFunction();</script></body></html>",
    )
    .expect("write a broken page");
    let errors = browser.open(&broken).expect("open the broken page");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let empty = data_marks(&browser, "empty", &["#1F77B4"]);
    assert_eq!(empty, 0);

    let errors = browser.open(&page).expect("open the page");
    assert!(errors.is_empty(), "script errors: {errors:?}");
    let charts = browser.charts().expect("measure the charts");
    let ids: Vec<&str> = charts.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["scores", "categories", "scenarios", "grid"]);
    for c in &charts {
        assert!(c.width > 300.0 && c.height > 100.0, "{c:?}");
        assert!(c.texts > 5, "{c:?}");
    }
    // What each chart draws from the data, beyond its frame and legend.
    let book = gradebook(&run.out);
    let scenarios = book["scenario_columns"].as_array().expect("columns").len() as u64;
    let categories = book["categories"].as_array().expect("categories").len() as u64;
    let statuses = ["#2CA02C", "#D62728", "#FF7F0E", "#5A5A5A"];
    for (id, colours, legend, least) in [
        // A bar per band of scores that has a submission: the skeleton's, dave's, the rest.
        ("scores", &["#1F77B4"][..], 1, 3),
        ("categories", &["#1F77B4"][..], 1, categories),
        // Visible and hidden scenarios, each with its legend entry.
        ("scenarios", &["#1F77B4", "#9467BD"][..], 2, scenarios),
        // A cell per graded submission and scenario; a legend entry per status shown.
        ("grid", &statuses[..], 3, 6 * scenarios),
    ] {
        let drawn = data_marks(&browser, id, colours);
        assert!(
            drawn >= least + legend,
            "{id}: {drawn} marks of its data's colours, fewer than {least} and the legend"
        );
    }
}

/// Shapes filled with any of `colours` in the chart of figure `id`.
fn data_marks(browser: &browser::Browser, id: &str, colours: &[&str]) -> u64 {
    let selector: Vec<String> = colours
        .iter()
        .map(|c| format!("figure#{id} svg [fill=\"{c}\"]"))
        .collect();
    browser
        .count(&selector.join(", "))
        .expect("count the chart's marks")
}

#[test]
fn grading_one_submission_again_keeps_every_other_row() {
    let run = run();
    let before = gradebook(&run.out);
    let rows = |b: &serde_json::Value| -> BTreeMap<String, serde_json::Value> {
        b["submissions"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| (r["name"].as_str().expect("name").to_owned(), r.clone()))
            .collect()
    };
    let earlier = rows(&before);
    // A copy of the results folder, so the other tests see the batch as it was.
    let out = run.root.join("regraded");
    copy(&run.out, &out);
    // Dave fixed his probes: only his folder is graded, into the same results folder.
    let again = run.root.join("again");
    write(&again.join("dave"), &reference());
    let output = grader()
        .args(["grade", "lab5"])
        .arg(&again)
        .arg("--results-dir")
        .arg(&out)
        .output()
        .expect("run the grader");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let after = rows(&gradebook(&out));
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        earlier.keys().collect::<Vec<_>>(),
        "every row is still there"
    );
    assert!(
        stderr.contains(&format!(
            "kept {} rows of {} graded earlier (",
            earlier.len() - 1,
            out.join("gradebook.json").display()
        )) && stderr.contains("); graded again: dave"),
        "{stderr}"
    );
    for (name, row) in &earlier {
        if name == "dave" {
            assert_eq!(
                after[name]["score"], before["max_score"],
                "dave's row is new"
            );
            assert_ne!(
                after[name]["student_files_sha256"],
                row["student_files_sha256"]
            );
            // Still Dave's, though no roster was given this time.
            assert_eq!(after[name]["student"]["name"], "Dave Diaz");
        } else {
            assert_eq!(&after[name], row, "{name}'s row is kept as it was");
        }
    }
    let canvas = csv_file(&out.join("canvas.csv"));
    let dave = canvas
        .iter()
        .find(|l| l[0] == "Dave Diaz")
        .expect("dave in canvas.csv");
    assert_eq!(dave[5], before["max_score"].to_string());
    // The class page is made anew from every row.
    let html = std::fs::read_to_string(out.join("class.html")).expect("the page");
    assert!(
        html.contains("7 submissions"),
        "{}",
        &html[..html.len().min(600)]
    );
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("read").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// `grade --help` says what `-j` counts there: submissions, not scenarios.
#[test]
fn grade_help_says_jobs_counts_submissions() {
    let output = grader()
        .args(["grade", "--help"])
        .output()
        .expect("run the grader");
    let help = String::from_utf8_lossy(&output.stdout);
    let jobs = help
        .split("-j, --jobs")
        .nth(1)
        .unwrap_or_else(|| panic!("no -j in:\n{help}"));
    let said: String = jobs.lines().take(3).collect::<Vec<_>>().join(" ");
    assert!(said.contains("Submissions graded at once"), "{said}");
    assert!(!said.contains("Scenarios run at once"), "{said}");
    // `check` runs scenarios, so there it counts scenarios.
    let output = grader()
        .args(["check", "--help"])
        .output()
        .expect("run the grader");
    assert!(String::from_utf8_lossy(&output.stdout).contains("Scenarios run at once"));
}
