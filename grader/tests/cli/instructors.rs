//! The instructors' walk-through (`docs/instructors.md`) runs as written: every command
//! of its `sh` blocks, in order, in a scratch copy of the kit, with the file changes its
//! text asks for. And an audit fails, naming the scenario, when a scenario is weakened
//! so that it no longer catches its mutant.
//!
//! Both build code in scratch kits. They keep their folders under the target folder (see
//! `util::test_dir`), and point cargo's build folder (`CARGO_BUILD_BUILD_DIR`) at one
//! where the dependencies are likely compiled already: the grader's harness builds of the
//! real kit for `grader` commands, this test binary's for `cargo` commands. That only
//! saves time; nothing depends on it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{copy_kit_paths, target_dir, test_dir, transcript};

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
    "grader/protocol",
    "solutions",
    "labs",
    "docs",
];

/// One thing the walk-through asks for.
#[derive(Debug)]
enum Action {
    /// "Save it as `PATH`:" and the `json` block that follows.
    Write { path: String, text: String },
    /// "In `FILE`, change `FROM` to `TO`".
    Change {
        file: String,
        from: String,
        to: String,
    },
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
        if let Some(rest) = line.split("In `").nth(1) {
            if let (Some(file), Some(from), Some(to)) = (
                rest.split('`').next(),
                between(rest, ", change `", "` to `"),
                between(rest, "` to `", "`"),
            ) {
                actions.push(Action::Change {
                    file: file.to_owned(),
                    from: from.to_owned(),
                    to: to.to_owned(),
                });
            }
        }
        prose.push_str(line);
        prose.push('\n');
    }
    actions
}

/// Where cargo keeps intermediate build files for `command`: the real kit's harness
/// builds for the grader's, this test binary's for cargo's own.
fn build_dir(command: &str) -> PathBuf {
    if command.starts_with("cargo ") {
        target_dir()
    } else {
        crate::util::kit().join("target/grader/cargo")
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
    Command::new("sh")
        .args(["-c", command])
        .current_dir(cwd)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        // Each kit its own grader builds; cargo's own output away from this binary's.
        .env("GRADER_WORK_DIR", root.join("work").join(&kit_name))
        .env(
            "CARGO_TARGET_DIR",
            root.join("cargo-target").join(&kit_name),
        )
        .env("CARGO_BUILD_BUILD_DIR", build_dir(command))
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
fn shipped_counts() -> grader::validation::Counts {
    let lab = grader::lab::Lab::load(&crate::util::kit(), "lab4").expect("lab4 loads");
    grader::validation::lab(&lab).counts
}

/// The points of the shipped lab 4's hidden scenarios.
fn hidden_points() -> u32 {
    let lab = grader::lab::Lab::load(&crate::util::kit(), "lab4").expect("lab4 loads");
    let hidden = grader::validation::json_files(&lab.hidden_dir());
    grader::validation::load_scenarios(&lab, &hidden)
        .scenarios
        .iter()
        .map(|s| s.points)
        .sum()
}

/// What each command of the walk-through must have printed, beyond its exit status; and
/// where the text shows output, that the output is what it shows.
fn check(command: &str, status: i32, o: &Output) {
    let t = transcript(o);
    if command.starts_with("grader validate labs/lab4/drafts/") {
        assert!(
            err(o).contains(": 1 scenario file of lab4, 3 points: all valid"),
            "{t}"
        );
    } else if command.starts_with("grader check lab4 --solution --scenario") {
        assert!(
            out(o).contains("Total: 3/3 points, 1 of 1 scenarios passed"),
            "{t}"
        );
    } else if command == "grader validate lab4" && status == 2 {
        let shown = between(DOC, "```text\nlabs/lab4/lab.json", "```").expect("the doc shows it");
        assert_eq!(
            format!("labs/lab4/lab.json{shown}"),
            err(o)
                .lines()
                .take(2)
                .map(|l| format!("{l}\n"))
                .collect::<String>(),
            "{t}"
        );
    } else if command == "grader validate lab4" {
        // The shipped lab, plus the walk-through's scenario of 3 points.
        let c = shipped_counts();
        let (scenarios, points) = (c.visible + c.hidden + 1, c.points + 3);
        assert_eq!(
            err(o),
            format!(
                "lab4: {scenarios} scenarios ({} visible, {} hidden), {points} points, {} mutants: all valid\n",
                c.visible + 1,
                c.hidden,
                c.mutants
            ),
            "{t}"
        );
        let sentence = format!(
            "{scenarios} scenarios, {points} points and {} mutants",
            c.mutants
        );
        assert!(
            DOC.contains(&sentence),
            "docs/instructors.md should say \"{sentence}\" after `grader validate lab4`"
        );
    } else if command.starts_with("grader audit") {
        let text = out(o);
        assert!(text.contains("\nAudit passed"), "{t}");
        for line in text.lines().filter(|l| {
            l.starts_with("scenario ")
                || l.starts_with("sm_failed_e902_trial_reopens ")
                || l.contains(". no_half_open ")
                || l.contains(". wait_not_restarted ")
        }) {
            assert!(
                DOC.contains(&format!("\n{line}\n")),
                "docs/instructors.md should show this line of the audit as it is:\n{line}"
            );
        }
    } else if command.starts_with("cargo run") {
        let c = shipped_counts();
        let visible_points = c.points + 3 - hidden_points();
        assert!(
            out(o).contains(&format!(
                "Total: 0/{visible_points} points, 0 of {} scenarios passed",
                c.visible + 1
            )),
            "{t}"
        );
    }
}

#[test]
fn the_walkthrough_runs_as_written() {
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
            Action::Change { file, from, to } => {
                let path = cwd.join(file);
                let text = std::fs::read_to_string(&path).expect("read");
                assert!(text.contains(from.as_str()), "{file} has no {from}");
                std::fs::write(&path, text.replacen(from.as_str(), to, 1)).expect("write");
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
/// which scenario and which mutant. The kit is cut down to one mutant and two scenarios
/// (one visible, one hidden) to keep the builds few.
#[test]
fn a_weakened_scenario_fails_the_audit() {
    let root = test_dir("instructors-weakened");
    let kit = root.join("kit");
    copy_kit_paths(
        &kit,
        &[
            "Cargo.toml",
            "Cargo.lock",
            "crates",
            "fixtures",
            "grader/harness",
            "grader/protocol",
            "solutions",
            "labs",
        ],
    );
    let lab = kit.join("labs/lab4");
    let keep = [
        "scenarios/sm_opens_at_threshold.json",
        "hidden/bh_rejections_do_not_reset_the_count.json",
        "mutants/rejection_resets_count.json",
    ];
    for dir in ["scenarios", "hidden", "mutants"] {
        for entry in std::fs::read_dir(lab.join(dir)).expect("read").flatten() {
            let rel = format!("{dir}/{}", entry.file_name().to_string_lossy());
            if !keep.contains(&rel.as_str()) {
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

    let output = crate::util::grader()
        .arg("--kit")
        .arg(&kit)
        .args(["audit", "lab4", "--runs", "1"])
        .env("GRADER_WORK_DIR", root.join("work"))
        .env("CARGO_BUILD_BUILD_DIR", build_dir("grader"))
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    insta::assert_snapshot!(out(&output));
}
