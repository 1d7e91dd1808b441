//! The instructors' walk-through (`docs/instructors.md`) runs as written: every command
//! of its `sh` blocks, in order, in a scratch copy of the kit, with the file changes its
//! text asks for. Then, in the same kit (whose builds are done by then), an audit fails,
//! naming the scenario, when a scenario is weakened so that it no longer catches its
//! mutant.
//!
//! Each kit it builds in has build folders of its own: cargo keys a path package by its
//! name and its path inside the workspace, which are the same in a copy of the kit, so a
//! build folder shared with another kit would mix their builds. The build folders stay in
//! the test's `cache/` (see `util::test_dir`), so only the first run on a machine
//! compiles the dependencies.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::util::{copy_kit_paths, test_dir, transcript};

const DOC: &str = include_str!("../../../docs/instructors.md");

/// What a kit needs to build and run code, and to release a student edition.
const KIT_PATHS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "clippy.toml",
    "crates",
    "fixtures",
    "grader/Cargo.toml",
    "grader/src",
    "grader/harness",
    "grader/lab",
    "grader/protocol",
    "grader/race",
    "solutions",
    "labs",
    "docs",
];

/// One thing the walk-through asks for.
#[derive(Debug)]
enum Action {
    /// "Save it as `PATH`:" and the `json` block that follows.
    Write { path: String, text: String },
    /// "In `FILE`, add the new scenario's N points to `KEY`".
    AddPoints {
        file: String,
        key: String,
        points: u32,
    },
    /// "in `FILE`, add `NAME` to `caught_by`" (a mutant's file).
    AddCaughtBy { file: String, name: String },
    /// A line of an `sh` block; `# exits with N` at its end gives the exit status.
    Run { command: String, status: i32 },
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// The walk-through's actions, in order.
fn actions() -> Vec<Action> {
    let mut actions = Vec::new();
    let mut block: Option<(String, String)> = None; // (info string, text)
    let mut prose = String::new();
    for line in DOC.lines() {
        if let Some((info, text)) = &mut block {
            if line.starts_with("```") {
                match info.as_str() {
                    "sh" => {}
                    "json" => {
                        if let Some(path) = between(&prose, "Save it as `", "`") {
                            actions.push(Action::Write {
                                path: path.to_owned(),
                                text: text.clone(),
                            });
                        }
                    }
                    _ => {}
                }
                block = None;
                prose.clear();
                continue;
            }
            if info == "sh" {
                let (command, comment) = match line.split_once(" # ") {
                    Some((c, comment)) => (c.trim(), comment.trim()),
                    None => (line.trim(), ""),
                };
                if !command.is_empty() && !command.starts_with('#') {
                    let status = comment
                        .strip_prefix("exits with ")
                        .map_or(0, |n| n.trim().parse().expect("an exit status"));
                    actions.push(Action::Run {
                        command: command.to_owned(),
                        status,
                    });
                }
            }
            text.push_str(line);
            text.push('\n');
            continue;
        }
        if let Some(info) = line.strip_prefix("```") {
            block = Some((info.trim().to_owned(), String::new()));
            continue;
        }
        if let Some(rest) = prose_and(&prose, line).split("in `").nth(1) {
            if let (Some(file), Some(name)) = (
                rest.split('`').next(),
                between(rest, "add `", "` to\n`caught_by`")
                    .or_else(|| between(rest, "add `", "` to `caught_by`")),
            ) {
                actions.push(Action::AddCaughtBy {
                    file: file.to_owned(),
                    name: name.to_owned(),
                });
            }
        }
        if let Some(rest) = line.split("In `").nth(1) {
            if let (Some(file), Some(points), Some(key)) = (
                rest.split('`').next(),
                between(rest, "add the new scenario's ", " points"),
                between(rest, " points to `", "`"),
            ) {
                actions.push(Action::AddPoints {
                    file: file.to_owned(),
                    key: key.to_owned(),
                    points: points.parse().expect("a number of points"),
                });
            }
        }
        prose.push_str(line);
        prose.push('\n');
    }
    actions
}

/// The last line of `prose` (the paragraph so far) and `line`, for a sentence that runs
/// over a line end.
fn prose_and(prose: &str, line: &str) -> String {
    let last = prose.lines().last().unwrap_or("");
    if last.contains("in `") && !line.contains("in `") {
        format!("{last}\n{line}")
    } else {
        line.to_owned()
    }
}

/// Runs one command line with `sh`, `grader` on the `PATH`.
fn run(command: &str, cwd: &Path, root: &Path) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_grader"))
        .parent()
        .expect("a folder")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("a PATH");
    let kit_name = cwd.file_name().expect("a name").to_owned();
    crate::util::bounded("sh")
        .timeout(crate::util::COLD_BUILD_LIMIT)
        .args(["-c", command])
        .current_dir(cwd)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        // Each kit its own build folders, kept for the next run.
        .env("GRADER_WORK_DIR", root.join("cache/work").join(&kit_name))
        .env("CARGO_TARGET_DIR", root.join("cache/cargo").join(&kit_name))
        .env_remove("CARGO_BUILD_BUILD_DIR")
        .output()
        .expect("run sh")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// What the shipped lab 4 holds.
fn shipped_counts() -> grader::instructor::validation::Counts {
    let lab = grader::lab::Lab::load(&grader::labs::registered(), &crate::util::kit(), "lab4")
        .expect("lab4 loads");
    grader::instructor::validation::lab(&lab)
        .expect("lab4 is readable")
        .counts
}

/// The points of the shipped lab 4's hidden scenarios.
fn hidden_points() -> u32 {
    let lab = grader::lab::Lab::load(&grader::labs::registered(), &crate::util::kit(), "lab4")
        .expect("lab4 loads");
    let hidden = lab.scenario_files().expect("lab4 is readable").hidden;
    grader::instructor::validation::load_scenarios(&lab, &hidden)
        .scenarios
        .iter()
        .map(|s| s.points)
        .sum()
}

/// `line` with every number replaced by `N` and runs of spaces by one: what stays the
/// same when lab 4 gains a scenario or a mutant.
fn shape(line: &str) -> String {
    let mut out = String::new();
    for word in line.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut last_digit = false;
        for c in word.chars() {
            if c.is_ascii_digit() {
                if !last_digit {
                    out.push('N');
                }
                last_digit = true;
            } else {
                out.push(c);
                last_digit = false;
            }
        }
    }
    out
}

/// The points of the walk-through's new scenario, from the doc.
fn draft_points() -> u32 {
    let Some(Action::Write { text, .. }) = actions().into_iter().next() else {
        panic!("the walk-through starts by saving a scenario");
    };
    let draft: serde_json::Value = serde_json::from_str(&text).expect("the draft is JSON");
    draft["points"].as_u64().expect("points") as u32
}

/// What each command of the walk-through must have printed, beyond its exit status; and
/// where the text shows output, that it is what the grader prints (numbers aside, which
/// change as lab 4 gains scenarios and mutants).
fn check(command: &str, status: i32, o: &Output) {
    let t = transcript(o);
    let new = draft_points();
    if command.starts_with("grader validate labs/lab4/drafts/") {
        assert!(
            out(o).contains(&format!(
                ": 1 scenario file of lab4, {new} points: all valid"
            )),
            "{t}"
        );
    } else if command.starts_with("grader check lab4 --solution --scenario") {
        assert!(
            out(o).contains(&format!(
                "Total: {new}/{new} points, 1 of 1 scenario passed"
            )),
            "{t}"
        );
    } else if command.starts_with("grader audit lab4 --scenario labs/lab4/drafts/") {
        assert!(
            out(o).contains("sm_failed_e902_trial_reopens  ok ")
                && out(o).contains("Audit of 1 scenario passed"),
            "{t}"
        );
        assert!(
            !out(o).contains("When you publish them"),
            "the draft names the mutant's rule, so nothing is asked:\n{t}"
        );
        // What publishing it would change, as the doc shows it.
        let head = "If the drafts were published";
        let shown = between(DOC, &format!("```text\n{head}"), "```").expect("the doc shows it");
        assert!(
            out(o).contains(&format!("{head}{shown}")),
            "docs/instructors.md shows other words:\n{t}"
        );
    } else if command == "grader validate lab4" && status == 2 {
        let shown = between(DOC, "```text\nlabs/lab4/lab.json", "```").expect("the doc shows it");
        let shown: Vec<String> = format!("labs/lab4/lab.json{shown}")
            .lines()
            .map(shape)
            .collect();
        let printed: Vec<String> = err(o).lines().take(2).map(shape).collect();
        assert_eq!(
            shown, printed,
            "docs/instructors.md shows other words:\n{t}"
        );
    } else if command.starts_with("grader validate lab4") {
        // The shipped lab, plus the walk-through's scenario; `--fix` first rewrote the
        // handout's numbers.
        let c = shipped_counts();
        let text = out(o);
        let last = text.lines().last().unwrap_or_default();
        if command.ends_with("--fix") {
            assert!(
                text.starts_with("lab4: rewrote labs/lab4/README.md from the lab's data ("),
                "{t}"
            );
        }
        assert_eq!(
            format!("{last}\n"),
            format!(
                "lab4: {} scenarios ({} visible, {} hidden){}, {} points, {} mutants, {} alternatives: all valid\n",
                c.visible + c.hidden + 1,
                c.visible + 1,
                c.hidden,
                match c.generated_scenarios {
                    0 => String::new(),
                    n => format!(" and {n} generated scenarios graded in CI"),
                },
                c.points + new,
                c.mutants,
                c.alternatives
            ),
            "{t}"
        );
    } else if command.starts_with("grader audit") {
        let text = out(o);
        assert!(text.contains("\nAudit of 1 scenario passed"), "{t}");
        let row: Vec<&str> = text
            .lines()
            .find(|l| l.starts_with("sm_failed_e902_trial_reopens "))
            .expect("a row for the new scenario")
            .split_whitespace()
            .collect();
        // The reference and every correct alternative (lettered columns) pass it.
        let alternatives = text
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                l.split_once(". ").is_some_and(|(label, _)| {
                    !label.is_empty() && label.chars().all(|c| c.is_ascii_lowercase())
                })
            })
            .count();
        assert_eq!(alternatives, shipped_counts().alternatives, "{t}");
        assert!(row[1..=1 + alternatives].iter().all(|c| *c == "ok"), "{t}");
        // The mutants the doc says it catches are caught.
        for mutant in ["no_half_open", "wait_not_restarted"] {
            let legend = text
                .lines()
                .find(|l| l.contains(&format!(". {mutant} ")))
                .expect("a legend line");
            let n: usize = legend
                .trim_start()
                .split('.')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a number");
            assert_eq!(
                row[1 + alternatives + n],
                "x",
                "{mutant} should be caught:\n{t}"
            );
            assert!(
                DOC.lines().any(|l| shape(l) == shape(legend)),
                "docs/instructors.md should show this line of the audit:\n{legend}"
            );
        }
        assert!(DOC.contains("\nsm_failed_e902_trial_reopens  ok  ok "));
    } else if command.starts_with("cargo run") {
        let c = shipped_counts();
        let visible_points = c.points + new - hidden_points() - c.generated;
        assert!(
            out(o).contains(&format!(
                "Total: 0/{visible_points} points, 0 of {} scenarios passed",
                c.visible + 1
            )),
            "{t}"
        );
    }
}

/// The walk-through as written; then, in the same kit, an audit that fails because a
/// scenario was weakened.
#[test]
fn the_walkthrough_runs_as_written_and_a_weakened_scenario_fails_the_audit() {
    let actions = actions();
    let runs = actions
        .iter()
        .filter(|a| matches!(a, Action::Run { .. }))
        .count();
    assert!(
        runs >= 9,
        "only {runs} commands found in the walk-through: {actions:?}"
    );
    let root = test_dir("instructors-walkthrough");
    let kit = root.join("kit");
    copy_kit_paths(&kit, KIT_PATHS);
    let mut cwd: PathBuf = kit.clone();
    for action in &actions {
        match action {
            Action::Write { path, text } => {
                let path = cwd.join(path);
                std::fs::create_dir_all(path.parent().expect("a folder")).expect("create");
                std::fs::write(&path, text).expect("write");
            }
            Action::AddPoints { file, key, points } => {
                let path = cwd.join(file);
                let text = std::fs::read_to_string(&path).expect("read");
                let needle = format!("\"{key}\": ");
                let at = text.find(&needle).expect("the key") + needle.len();
                let digits = text[at..]
                    .find(|c: char| !c.is_ascii_digit())
                    .expect("a number");
                let old: u32 = text[at..at + digits].parse().expect("a number");
                let new = format!("{}{}{}", &text[..at], old + points, &text[at + digits..]);
                std::fs::write(&path, new).expect("write");
            }
            Action::AddCaughtBy { file, name } => {
                let path = cwd.join(file);
                let text = std::fs::read_to_string(&path).expect("read");
                let key = "\"caught_by\": [";
                assert!(text.contains(key), "{file} has a caught_by list");
                let new = text.replacen(key, &format!("{key}\n    \"{name}\","), 1);
                std::fs::write(&path, new).expect("write");
            }
            Action::Run { command, status } => {
                if let Some(dir) = command.strip_prefix("cd ") {
                    cwd = cwd.join(dir).canonicalize().expect("the folder exists");
                    continue;
                }
                let o = run(command, &cwd, &root);
                assert_eq!(
                    o.status.code(),
                    Some(*status),
                    "`{command}` in {}:\n{}",
                    cwd.display(),
                    transcript(&o)
                );
                check(command, *status, &o);
            }
        }
    }
    // The student edition came out of the same walk-through: drafts stayed behind.
    let student = root.join("lab4-student");
    assert!(
        student
            .join("labs/lab4/scenarios/sm_failed_e902_trial_reopens.json")
            .is_file()
    );
    assert!(!student.join("labs/lab4/drafts").exists());
    assert!(!student.join("docs").exists());

    a_weakened_scenario_fails_the_audit(&root, &kit);
}

/// The doc's example of a mistake is what `grader validate` prints for it.
#[test]
fn the_walkthroughs_example_mistake_is_reported_as_shown() {
    let Some(Action::Write { path, text }) = actions().into_iter().next() else {
        panic!("the walk-through starts by saving a scenario");
    };
    let scratch = crate::util::scratch_kit(&["Cargo.toml", "labs"]);
    let file = scratch.path().join(&path);
    std::fs::create_dir_all(file.parent().expect("a folder")).expect("create");
    std::fs::write(
        &file,
        text.replace("\"expect\": \"E902\"", "\"expect\": \"E092\""),
    )
    .expect("write");
    let output = crate::util::grader()
        .current_dir(scratch.path())
        .args(["validate", &path])
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(2));
    let shown = between(DOC, "```text\nlabs/lab4/drafts/", "```").expect("the doc shows it");
    let printed: String = err(&output)
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(format!("labs/lab4/drafts/{shown}"), printed);
}

/// A scenario that stops catching the mutant its file names fails the audit, which says
/// which scenario and which mutant. Run in the walk-through's kit, whose reference,
/// alternatives and mutants are built already, cut down to one mutant, one correct
/// alternative and three scenarios (two visible, one hidden).
fn a_weakened_scenario_fails_the_audit(root: &Path, kit: &Path) {
    let lab = kit.join("labs/lab4");
    let keep = [
        "scenarios/sm_opens_at_threshold.json",
        "scenarios/bh_rejections_between_failures_change_nothing.json",
        "hidden/bh_rejections_do_not_reset_the_count.json",
        "mutants/rejection_resets_count.json",
        "alternatives/phase_enum",
    ];
    for dir in ["scenarios", "hidden", "mutants", "alternatives"] {
        for entry in std::fs::read_dir(lab.join(dir)).expect("read").flatten() {
            let rel = format!("{dir}/{}", entry.file_name().to_string_lossy());
            if keep.contains(&rel.as_str()) {
                continue;
            }
            if entry.path().is_dir() {
                std::fs::remove_dir_all(entry.path()).expect("remove");
            } else {
                std::fs::remove_file(entry.path()).expect("remove");
            }
        }
    }
    // Weakened: the checks that the circuit opened are gone, so a breaker whose count an
    // E905 resets passes it.
    let scenario = lab.join("hidden/bh_rejections_do_not_reset_the_count.json");
    let text = std::fs::read_to_string(&scenario).expect("read");
    let sharp = "    {\"expect\": {\"target\": \"core_banking\", \"state\": \"OPEN\", \"calls\": 3}},\n    {\"expect_transitions\": [\"00:00:00.000 core_banking CLOSED -> OPEN\"]}\n";
    assert!(text.contains(sharp), "{text}");
    std::fs::write(
        &scenario,
        text.replace(
            sharp,
            "    {\"expect\": {\"target\": \"core_banking\", \"calls\": 3}}\n",
        ),
    )
    .expect("write");
    let o = run("grader audit lab4 --runs 1", kit, root);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    // The shrunk files are in this machine's work folder: named from the lab's folder on.
    let text: String = out(&o)
        .lines()
        .map(|l| {
            match (
                l.strip_prefix("  shrunk files: "),
                l.find("/lab4/generated/"),
            ) {
                (Some(_), Some(i)) => format!("  shrunk files: WORK{}\n", &l[i..]),
                _ => format!("{l}\n"),
            }
        })
        .collect();
    insta::assert_snapshot!("a_weakened_scenario_fails_the_audit", text);
}
