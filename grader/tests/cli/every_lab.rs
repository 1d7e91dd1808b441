//! What every lab's tests check the same way, written once over a table of the labs: the
//! reference gets full marks in every format, the untouched skeleton gets nothing and is
//! sent to the `todo!()` the handout quotes, the student edition leaks nothing of the
//! instructors' material, and the audit catches every mutant (a snapshot of its matrix).
//! What only one lab checks stays in that lab's file (`lab5.rs`, `lab6.rs`; lab 4's, which
//! came first, are spread over `check.rs`, `release.rs` and others, and also snapshot the
//! whole report). A new lab is a new row of [`LABS`] and a module in the macro
//! call at the end.

use std::collections::BTreeSet;

use crate::release::{files, leaks};
use crate::util::{grader, kit, stdout, transcript, whole_lab_audit};

/// What the tests below expect of one lab.
struct Lab {
    name: &'static str,
    /// The visible scenarios: points and how many.
    visible: (u32, u32),
    /// The skeleton's first `todo!()`, which every scenario reaches: the file, its line
    /// (from 1) and how its message starts.
    todo: (&'static str, usize, &'static str),
    /// The Start here line of the untouched skeleton, as the handout quotes it.
    start: &'static str,
    /// Files the student edition must hold.
    edition: &'static [&'static str],
    /// Names the reference uses and the skeleton does not, besides its own lines.
    reference_words: &'static [&'static str],
    /// How many needles the leak check must have at least (the lab's distinctive lines
    /// and names): fewer means the check has stopped finding what it looks for.
    needles: usize,
    /// The audit's options: one run each (`.ci/run` audits every lab twice more); the
    /// real-time limit per scenario is a safety net, lower than the lab's for labs whose
    /// stuck scenarios only wait.
    audit: &'static [&'static str],
}

const LABS: [Lab; 3] = [
    Lab {
        name: "lab4",
        visible: (205, 48),
        todo: (
            "crates/relay_base/src/relay.rs",
            57,
            "todo!(\"lab 4: report the breaker state",
        ),
        start: "48 scenarios stopped at todo!() at crates/relay_base/src/relay.rs:57:9: lab 4: report the breaker state in Relay::breaker_state",
        edition: &[
            "crates/relay_base/src/relay.rs",
            "crates/relay_kit/src/lib.rs",
            "fixtures/script/src/lib.rs",
            "labs/lab4/README.md",
            "labs/lab4/lab.json",
            "labs/lab4/scenario.schema.json",
            "labs/lab4/scenarios/be_b201_not_counted.json",
            "labs/lab4/harness/main/src/main.rs",
            "labs/lab4/plugin/src/lib.rs",
        ],
        reference_words: &[
            "trial_in_flight",
            "consecutive_failures",
            "fn settle(&self, ticket",
            "enum Ticket",
            "fn try_take_slot",
            "struct Slot<'a>",
        ],
        needles: 200,
        // Scenarios whose requests get stuck mostly wait, so more of them at once than
        // there are cores costs little and ends the audit sooner.
        audit: &["--runs", "1", "-j", "16"],
    },
    Lab {
        name: "lab5",
        visible: (280, 60),
        todo: (
            "crates/edi_gateway/src/gateway.rs",
            43,
            "todo!(\"lab 5: build one lane per flow",
        ),
        start: "60 scenarios stopped at todo!() at crates/edi_gateway/src/gateway.rs:43:9: lab 5: build one lane per flow in Gateway::new",
        edition: &[
            "crates/edi_gateway/src/gateway.rs",
            "crates/gateway_kit/src/lib.rs",
            "fixtures/partners/src/lib.rs",
            "fixtures/script/src/lib.rs",
            "labs/lab5/README.md",
            "labs/lab5/lab.json",
            "labs/lab5/scenario.schema.json",
            "labs/lab5/scenarios/pr_exactly_n_probes_at_once.json",
            "labs/lab5/harness/main/src/main.rs",
            "labs/lab5/plugin/src/lib.rs",
        ],
        reference_words: &["probes_passed", "fn too_many_failures", "era: u64"],
        needles: 120,
        // A lower limit than the lab's (3 s, not 5) ends the hanging ones sooner; correct
        // code takes milliseconds either way.
        audit: &["--runs", "1", "-j", "16", "--timeout", "3"],
    },
    Lab {
        name: "lab6",
        visible: (211, 43),
        todo: (
            "crates/quote_client/src/shop.rs",
            30,
            "todo!(\"lab 6: build one client per dependency",
        ),
        start: "43 scenarios stopped at todo!() at crates/quote_client/src/shop.rs:30:9: lab 6: build one client per dependency in Shop::new",
        edition: &[
            "crates/quote_client/src/client.rs",
            "crates/shipping_kit/src/lib.rs",
            "crates/waiting_clock/src/lib.rs",
            "labs/lab6/README.md",
            "labs/lab6/lab.json",
            "labs/lab6/scenario.schema.json",
            "labs/lab6/scenarios/qu_slot_held_until_the_call_ends.json",
            "labs/lab6/harness/main/src/main.rs",
            "labs/lab6/plugin/src/lib.rs",
        ],
        reference_words: &[
            "granted: BTreeSet<u64>",
            "fn too_many_failures",
            "handed_a_slot",
            "probes_handed",
        ],
        needles: 300,
        // A race check of lab 6 (500 schedules of up to two shop instances) takes a fifth
        // of a second of CPU alone, sixteen at once on two busy cores many times that.
        audit: &["--runs", "1", "-j", "16", "--timeout", "5"],
    },
];

fn lab(name: &str) -> &'static Lab {
    LABS.iter()
        .find(|l| l.name == name)
        .expect("the lab has a row in LABS")
}

fn check(lab: &Lab, args: &[&str]) -> std::process::Output {
    grader()
        .args(["check", lab.name])
        .args(args)
        .output()
        .expect("run the grader")
}

fn reference_in_every_format(lab: &Lab) {
    let (points, scenarios) = lab.visible;
    let output = check(lab, &["--solution"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    let total =
        format!("Total: {points}/{points} points, {scenarios} of {scenarios} scenarios passed");
    assert!(text.contains(&total), "{text}");
    for (format, needle) in [
        ("json", format!("\"lab\": \"{}\"", lab.name)),
        (
            "junit",
            format!("<testsuites name=\"{}\" tests=\"{scenarios}\"", lab.name),
        ),
        ("gradescope", format!("\"score\": {points}.0")),
    ] {
        let output = check(lab, &["--solution", "--format", format]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{format}: {}",
            transcript(&output)
        );
        assert!(
            stdout(&output).contains(&needle),
            "{format}: no {needle}:\n{}",
            stdout(&output)
        );
    }
}

/// A new student's first run: every scenario stops at the same `todo!()`, named with its
/// place, and the handout quotes that line as it is.
fn skeleton_starts_where_the_handout_says(lab: &Lab) {
    let (points, scenarios) = lab.visible;
    let output = check(lab, &[]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let total = format!("Total: 0/{points} points, 0 of {scenarios} scenarios passed");
    assert!(text.contains(&total), "{text}");
    let start = format!("Start here:\n  {}\n", lab.start);
    assert!(text.contains(&start), "{text}");
    let handout = std::fs::read_to_string(kit().join("labs").join(lab.name).join("README.md"))
        .expect("read the handout");
    assert!(
        handout.contains(start.trim_end()),
        "the handout's Start here line is stale"
    );
    let (file, line, message) = lab.todo;
    let skeleton = std::fs::read_to_string(kit().join(file)).expect("read the skeleton");
    let at = skeleton.lines().nth(line - 1).expect("the todo's line");
    assert!(at.trim_start().starts_with(message), "{file}:{line}: {at}");
}

/// Lines of the reference's and the correct alternatives' code (their unit tests left out)
/// that are their own: long enough to be distinctive, neither comments, imports,
/// attributes nor string literals, in no crate of the kit (the edition holds them anyway)
/// and not quoted by the lab's handout (which may show an idiom it recommends).
fn reference_only_lines(lab: &Lab) -> BTreeSet<String> {
    let lines_of = |path: &std::path::Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).expect("read");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        code.lines().map(|l| l.trim().to_owned()).collect()
    };
    let rust_files = |dir: std::path::PathBuf| -> Vec<std::path::PathBuf> {
        files(&dir)
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "rs"))
            .filter(|f| f.file_stem().is_none_or(|s| s != "tests"))
            .map(|f| dir.join(f))
            .collect()
    };
    let labs = kit().join("labs").join(lab.name);
    let shared: BTreeSet<String> = rust_files(kit().join("crates"))
        .iter()
        .flat_map(|f| lines_of(f))
        .collect();
    let handout = std::fs::read_to_string(labs.join("README.md")).expect("read the handout");
    let mut own = rust_files(kit().join("solutions").join(lab.name));
    for alternative in std::fs::read_dir(labs.join("alternatives"))
        .expect("the lab has correct alternatives")
        .flatten()
    {
        own.extend(rust_files(alternative.path()));
    }
    own.iter()
        .flat_map(|f| lines_of(f))
        .filter(|l| {
            l.len() >= 30
                && !l.starts_with("//")
                && !l.starts_with("use ")
                && !l.starts_with("#[")
                && !l.starts_with('"')
                && !shared.contains(l)
                && !handout.contains(l.as_str())
        })
        .collect()
}

/// What must not be found in the lab's student edition: the reference's own lines and
/// names, and the names of the hidden scenarios, mutants and alternatives.
fn leak_needles(lab: &Lab) -> Vec<String> {
    let mut needles: Vec<String> = lab
        .reference_words
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    needles.extend(reference_only_lines(lab));
    assert!(
        needles.len() >= lab.needles,
        "too few distinctive lines: {needles:?}"
    );
    for dir in ["hidden", "mutants", "alternatives"] {
        for f in files(&kit().join("labs").join(lab.name).join(dir)) {
            if dir == "hidden" {
                let stem = f.file_stem().expect("a name").to_string_lossy();
                needles.push(stem.into_owned());
            }
            needles.push(f.display().to_string());
        }
    }
    needles
}

/// The student edition holds the skeleton, the contract, the handout and the visible
/// scenarios, and nothing of the reference, the hidden scenarios, the mutants or the
/// alternatives.
fn edition_leaks_nothing(lab: &Lab) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join(format!("{}-student", lab.name));
    let output = grader()
        .args(["release", lab.name, "--out"])
        .arg(&out)
        .output()
        .expect("run the grader");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    for present in lab.edition {
        assert!(out.join(present).is_file(), "{present} missing");
    }
    let labs = format!("labs/{}", lab.name);
    for absent in [
        "solutions".to_owned(),
        format!("{labs}/hidden"),
        format!("{labs}/mutants"),
        format!("{labs}/alternatives"),
        format!("{labs}/SCENARIOS.md"),
    ] {
        assert!(!out.join(&absent).exists(), "{absent} released");
    }
    let leaks = leaks(&out, &leak_needles(lab));
    assert!(
        leaks.is_empty(),
        "leaked into the student edition:\n{}",
        leaks.join("\n")
    );
}

/// Every scenario on the reference, the correct alternatives and every mutant, from one
/// pool of workers: the audit passes, and its matrix is the snapshot.
fn audit_matrix(lab: &Lab) {
    let (_turn, mut audit) = whole_lab_audit(lab.name);
    let output = audit.args(lab.audit).output().expect("run the grader");
    assert_eq!(
        output.status.code(),
        Some(0),
        "the audit failed:\n{}",
        transcript(&output)
    );
    insta::assert_snapshot!(format!("{}_audit_matrix", lab.name), stdout(&output));
}

/// One module per lab, so that each test is named for its lab (the audit's snapshot is
/// named for it by `audit_matrix`).
macro_rules! every_lab {
    ($($name:ident),*) => {$(
        mod $name {
            fn lab() -> &'static super::Lab {
                super::lab(stringify!($name))
            }

            #[test]
            fn the_reference_gets_full_marks_in_every_format() {
                super::reference_in_every_format(lab());
            }

            #[test]
            fn the_untouched_skeleton_gets_zero_and_starts_where_the_handout_says() {
                super::skeleton_starts_where_the_handout_says(lab());
            }

            #[test]
            fn the_student_edition_leaks_nothing() {
                super::edition_leaks_nothing(lab());
            }

            #[test]
            fn the_audit_catches_every_mutant_and_keeps_every_alternative_at_full_marks() {
                super::audit_matrix(lab());
            }
        }
    )*};
}

every_lab!(lab4, lab5, lab6);
