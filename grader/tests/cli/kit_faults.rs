//! The kit's own faults are the kit's: a broken harness program or a lab without
//! scenarios stops grading with exit 3, whichever command meets it; and nothing the
//! scenario process writes can crash the grader.

use std::path::Path;
use std::process::Output;

use crate::subs::{self, Layout};
use crate::util::{copy_kit_paths, grader, test_dir, transcript};

/// What a kit needs to build and grade lab 4.
const KIT_PATHS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "crates",
    "fixtures",
    "grader/harness",
    "grader/protocol",
    "labs/lab4/lab.json",
    "labs/lab4/rules.json",
    "labs/lab4/scenarios",
    "labs/lab4/harness",
    "labs/lab4/race",
    "grader/race",
    "solutions",
];

/// The grader in `kit`, its builds kept in `root/cache`.
fn run(kit: &Path, root: &Path, args: &[&str]) -> Output {
    grader()
        .current_dir(kit)
        .env("GRADER_WORK_DIR", root.join("cache/work"))
        .args(args)
        .output()
        .expect("run the grader")
}

/// `grader grade lab4 SUBMISSIONS` in `kit`, results in `root/results`: the run and the
/// gradebook.
fn grade_folder(kit: &Path, root: &Path, submissions: &Path) -> (Output, serde_json::Value) {
    let results = root.join("results");
    let o = run(
        kit,
        root,
        &[
            "grade",
            "lab4",
            &submissions.display().to_string(),
            "--results-dir",
            &results.display().to_string(),
        ],
    );
    let text = std::fs::read_to_string(results.join("gradebook.json"))
        .unwrap_or_else(|e| panic!("no gradebook ({e}):\n{}", transcript(&o)));
    let book = serde_json::from_str(&text).expect("the gradebook is JSON");
    (o, book)
}

/// A type error in the kit's harness program is the kit's fault in `check`,
/// `--submission` and `grade` alike: exit 3, "the kit itself is broken", never "the
/// grader cannot call your code". Then, in the same kit (sharing its builds): a race
/// harness that does not compile while the lab's harness does stops a grading whose
/// ordinary scenarios have already started, with exit 3 and no report; and a lab whose
/// published scenarios are gone stops `check` with exit 3 instead of grading 0/0 as full
/// marks.
#[test]
fn a_broken_harness_program_and_a_lab_without_scenarios_are_the_kits_fault() {
    let root = test_dir("kit-faults");
    let kit = root.join("kit");
    copy_kit_paths(&kit, KIT_PATHS);
    let main = kit.join("labs/lab4/harness/main/src/main.rs");
    let program = std::fs::read_to_string(&main).expect("read the harness program");
    std::fs::write(
        &main,
        format!("{program}\nconst KIT_FAULT: u32 = \"not a number\";\n"),
    )
    .expect("break the harness program");

    let broken = |o: &Output| {
        let t = transcript(o);
        assert_eq!(o.status.code(), Some(3), "{t}");
        assert!(t.contains("the kit itself is broken"), "{t}");
        assert!(
            t.contains("KIT_FAULT"),
            "the compiler's words are shown:\n{t}"
        );
        assert!(!t.contains("cannot call your code"), "{t}");
    };
    broken(&run(
        &kit,
        &root,
        &["check", "lab4", "--scenario", "tr_full_cycle"],
    ));

    let submissions = root.join("submissions");
    let alice = submissions.join("alice");
    subs::write(&alice, Layout::Crate, &subs::reference_files());
    let alice = alice.display().to_string();
    broken(&run(
        &kit,
        &root,
        &[
            "check",
            "lab4",
            "--scenario",
            "tr_full_cycle",
            "--submission",
            &alice,
        ],
    ));

    let (o, book) = grade_folder(&kit, &root, &submissions);
    assert_eq!(o.status.code(), Some(3), "{}", transcript(&o));
    let row = &book["submissions"][0];
    assert_eq!(row["status"], "error", "{book:#}");
    assert!(
        row["message"]
            .as_str()
            .is_some_and(|m| m.contains("the kit itself is broken")),
        "{book:#}"
    );

    std::fs::write(&main, &program).expect("repair the harness program");
    let race = kit.join("labs/lab4/race/src/lib.rs");
    let race_lib = std::fs::read_to_string(&race).expect("read the race harness");
    std::fs::write(
        &race,
        format!("{race_lib}\nconst RACE_KIT_FAULT: u32 = \"not a number\";\n"),
    )
    .expect("break the race harness");
    let o = run(&kit, &root, &["check", "lab4", "--solution"]);
    let t = transcript(&o);
    assert_eq!(o.status.code(), Some(3), "{t}");
    assert!(t.contains("the kit itself is broken"), "{t}");
    assert!(
        t.contains("RACE_KIT_FAULT"),
        "the compiler's words are shown:\n{t}"
    );
    assert!(
        o.stdout.is_empty(),
        "no report of a grading that stopped:\n{t}"
    );
    std::fs::write(&race, &race_lib).expect("repair the race harness");

    let scenarios = kit.join("labs/lab4/scenarios");
    for entry in std::fs::read_dir(&scenarios).expect("read").flatten() {
        std::fs::remove_file(entry.path()).expect("remove a scenario");
    }
    let o = run(&kit, &root, &["check", "lab4"]);
    let t = transcript(&o);
    assert_eq!(o.status.code(), Some(3), "{t}");
    assert!(
        t.contains(
            "labs/lab4/scenarios: there are no scenario files (*.json) here; lab4 is broken"
        ),
        "{t}"
    );
}

/// Every command finds a lab's scenarios the same way: no published scenarios, or a
/// `hidden` that is not a readable folder, is a broken lab (exit 3) for `list`,
/// `explain`, `validate` and `audit` alike, never an empty lab.
#[test]
fn every_command_refuses_a_lab_whose_scenario_folders_are_missing_or_unreadable() {
    let scratch = crate::util::scratch_kit(&["Cargo.toml", "labs/lab4", "solutions/lab4/src"]);
    let lab = scratch.path().join("labs/lab4");
    let commands: [&[&str]; 4] = [
        &["list", "lab4"],
        &["explain", "lab4", "tr_full_cycle"],
        &["validate", "lab4"],
        &["audit", "lab4"],
    ];
    let expect_broken = |what: &str| {
        for args in commands {
            let o = grader()
                .current_dir(scratch.path())
                .args(args)
                .output()
                .expect("run the grader");
            let t = transcript(&o);
            assert_eq!(o.status.code(), Some(3), "{args:?}:\n{t}");
            assert!(t.contains(what), "{args:?} should say {what:?}:\n{t}");
        }
    };
    // A `hidden` that is a file cannot be read as a folder.
    std::fs::remove_dir_all(lab.join("hidden")).expect("remove hidden/");
    std::fs::write(lab.join("hidden"), "not a folder").expect("write");
    expect_broken("cannot read the folder");
    std::fs::remove_file(lab.join("hidden")).expect("remove");
    std::fs::remove_dir_all(lab.join("scenarios")).expect("remove scenarios/");
    expect_broken("labs/lab4/scenarios: the folder of published scenarios is missing");
}

/// A lab's `alternatives` that cannot be read as a folder is a broken lab for the
/// commands that read it, never a lab without alternatives: an audit that silently
/// graded none would prove nothing.
#[test]
fn an_unreadable_alternatives_folder_is_a_broken_lab() {
    let scratch = crate::util::scratch_kit(&["Cargo.toml", "labs/lab4", "solutions/lab4/src"]);
    let alternatives = scratch.path().join("labs/lab4/alternatives");
    std::fs::remove_dir_all(&alternatives).expect("remove alternatives/");
    std::fs::write(&alternatives, "not a folder").expect("write");
    let commands: [&[&str]; 3] = [
        &["validate", "lab4"],
        &["validate", "labs/lab4/alternatives"],
        &["audit", "lab4"],
    ];
    for args in commands {
        let o = grader()
            .current_dir(scratch.path())
            .args(args)
            .output()
            .expect("run the grader");
        let t = transcript(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}:\n{t}");
        assert!(
            t.contains("cannot read the folder") && t.contains("alternatives"),
            "{args:?}:\n{t}"
        );
    }
}

/// Submissions that write into their scenario's results file: a forged panic record
/// naming a step the scenario does not have (then a panic the harness catches, so the
/// run ends without its last event: the grader used to panic on that), a line that is no
/// event (it used to be dropped silently), a line of 2 MB. Each gets an error for that
/// scenario; `check` reports it, and `grade` writes its gradebook. The kit's one
/// scenario has one step.
#[test]
fn what_a_scenario_process_writes_is_an_error_for_that_scenario_never_a_crash() {
    let root = test_dir("forged-events");
    let kit = root.join("kit");
    copy_kit_paths(&kit, KIT_PATHS);
    let scenarios = kit.join("labs/lab4/scenarios");
    std::fs::remove_dir_all(&scenarios).expect("remove the scenarios");
    std::fs::create_dir_all(&scenarios).expect("create the scenarios folder");
    std::fs::write(
        scenarios.join("one_step.json"),
        r#"{"format_version": 1, "name": "one_step", "title": "One request", "category": "state_machine", "points": 1, "hint": "x", "steps": [{"send": {"target": "core_banking", "expect": "OK"}}]}"#,
    )
    .expect("write the scenario");
    let mut files = subs::reference_files();
    subs::inject(
        &mut files,
        "src/relay.rs",
        "pub fn new(",
        r#"        {
            use std::io::Write;
            // The results file is one the process has open, wherever it is.
            for fd in std::fs::read_dir("/proc/self/fd").into_iter().flatten().flatten() {
                let Ok(path) = std::fs::read_link(fd.path()) else { continue };
                if !path.is_file() { continue; }
                if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(&path) {
                    let forged = "{\"panic\":{\"step\":99,\"message\":\"forged\",\"location\":null,\"thread\":\"main\",\"backtrace\":null}}\n";
                    let _ = f.write_all(forged.as_bytes());
                }
            }
        }"#,
    );
    subs::inject(
        &mut files,
        "src/relay.rs",
        "pub fn transitions(",
        "        panic!(\"no records today\");",
    );
    let submissions = root.join("submissions");
    let mut expected = vec![(
        "mallory",
        "it reports step 100, but the scenario has 1 step".to_owned(),
    )];
    subs::write(&submissions.join("mallory"), Layout::Crate, &files);
    // Garbage, and a line longer than any event, written by the code under test.
    for (name, line, error) in [
        (
            "trudy",
            "String::from(\"this is not an event\\n\")",
            "line 2 of the results is not an event",
        ),
        (
            "victor",
            "format!(\"\\\"{}\\\"\\n\", \"x\".repeat(2 << 20))",
            "bytes long, more than the 1024 kB",
        ),
    ] {
        let mut files = subs::reference_files();
        subs::inject(
            &mut files,
            "src/relay.rs",
            "pub fn new(",
            &format!(
                "        {{\n            use std::io::Write;\n            let line: String = {line};\n            for fd in std::fs::read_dir(\"/proc/self/fd\").into_iter().flatten().flatten() {{\n                let Ok(path) = std::fs::read_link(fd.path()) else {{ continue }};\n                if !path.is_file() {{ continue; }}\n                if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(&path) {{\n                    let _ = f.write_all(line.as_bytes());\n                }}\n            }}\n        }}"
            ),
        );
        subs::write(&submissions.join(name), Layout::Crate, &files);
        expected.push((name, error.to_owned()));
    }
    for (name, error) in &expected {
        let dir = submissions.join(name).display().to_string();
        let o = run(
            &kit,
            &root,
            &["check", "lab4", "--format", "json", "--submission", &dir],
        );
        assert_eq!(o.status.code(), Some(1), "{name}: {}", transcript(&o));
        let report = subs::json(&o);
        assert_eq!(report["scenarios"][0]["status"], "error", "{report:#}");
        let message = report["scenarios"][0]["message"]
            .as_str()
            .expect("a message");
        assert!(message.contains(error), "{name}: {message}");
    }

    let (o, book) = grade_folder(&kit, &root, &submissions);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let rows = book["submissions"].as_array().expect("rows");
    assert_eq!(rows.len(), 3, "{book:#}");
    for row in rows {
        assert_eq!(row["status"], "graded", "{book:#}");
        assert_eq!(row["score"], 0, "{book:#}");
    }
}
