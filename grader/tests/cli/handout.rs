//! A handout cannot go stale silently: after two new scenarios, `validate` and `release`
//! name every number and the rubric row the lab's data now contradicts, at its line and
//! column, and `validate --fix` rewrites them.

use std::path::Path;

use crate::util::{change_total_points, grader, scratch_kit, transcript};

fn run(kit: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = grader()
        .arg("--kit")
        .arg(kit)
        .args(args)
        .output()
        .expect("run the grader");
    (output.status.code(), transcript(&output))
}

/// Publishes a copy of `from` (a visible scenario of lab 4) as `name`; returns its points.
fn publish_copy(kit: &Path, from: &str, name: &str) -> u32 {
    let dir = kit.join("labs/lab4/scenarios");
    let text = std::fs::read_to_string(dir.join(format!("{from}.json"))).expect("read");
    let text = text.replace(
        &format!("\"name\": \"{from}\""),
        &format!("\"name\": \"{name}\""),
    );
    std::fs::write(dir.join(format!("{name}.json")), &text).expect("write");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    value["points"].as_u64().expect("points") as u32
}

#[test]
fn a_stale_handout_is_reported_refused_by_release_and_fixed() {
    let scratch = scratch_kit(&["Cargo.toml", "labs", "solutions/lab4/src"]);
    let kit = scratch.path();
    let (_, before) = run(kit, &["list", "lab4"]);
    let visible_before = before.matches("  visible").count();
    let added = publish_copy(kit, "tr_full_cycle", "tr_full_cycle_again")
        + publish_copy(kit, "sm_opens_at_threshold", "sm_opens_at_threshold_again");
    change_total_points(&kit.join("labs/lab4/lab.json"), |n| n + added);

    let (code, text) = run(kit, &["validate", "lab4"]);
    assert_eq!(code, Some(2), "{text}");
    let visible = visible_before + 2;
    for stale in [
        format!(
            "labs/lab4/README.md:9:50: the handout says {} visible scenarios, but the lab has {visible}",
            visible - 2
        ),
        "the rubric table is out of date".to_owned(),
        format!("scenarios in a whole run, but the lab has {visible}"),
        "points for State machine".to_owned(),
        "points in all".to_owned(),
    ] {
        assert!(text.contains(&stale), "no `{stale}` in:\n{text}");
    }
    assert!(
        text.contains("help: `grader validate lab4 --fix` rewrites"),
        "{text}"
    );

    let out = kit.join("edition");
    let (code, text) = run(
        kit,
        &["release", "lab4", "--out", out.to_str().expect("UTF-8")],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("labs/lab4/README.md:9:50") && !out.exists(),
        "{text}"
    );

    let (code, text) = run(kit, &["validate", "lab4", "--fix"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("rewrote labs/lab4/README.md"), "{text}");
    let handout = std::fs::read_to_string(kit.join("labs/lab4/README.md")).expect("read");
    assert!(
        handout.contains(&format!("The grader runs {visible} visible scenarios")),
        "{handout}"
    );
    let (code, text) = run(kit, &["validate", "lab4"]);
    assert_eq!(code, Some(0), "{text}");
}
