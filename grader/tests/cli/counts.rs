//! Counts that agree: the figures the docs state (how many labs, each lab's point total
//! and visible points, its mutants and correct alternatives) are the lab data's, as the
//! handouts' are (`handout.rs`), and `grader list` and the JSON report count the hidden
//! scenarios alike.

use std::path::Path;

use crate::util::{grader, kit};

/// What the lab data says of one lab.
struct Facts {
    name: String,
    total: u32,
    visible_points: u32,
    hidden: usize,
    hidden_points: u32,
    mutants: usize,
    alternatives: usize,
}

fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.flatten().count())
}

fn facts() -> Vec<Facts> {
    let registry = grader::labs::registered();
    grader::lab::lab_names(&kit())
        .expect("labs")
        .into_iter()
        .map(|name| {
            let lab = grader::lab::Lab::load(&registry, &kit(), &name).expect("loads");
            let all = grader::grade::select(&lab, true, &[]).expect("scenarios");
            let points = |hidden: bool| -> (usize, u32) {
                let mine: Vec<_> = all
                    .scenarios
                    .iter()
                    .filter(|s| (s.visibility == grader::scenario::Visibility::Hidden) == hidden)
                    .collect();
                (mine.len(), mine.iter().map(|s| s.points).sum())
            };
            // The generated scenarios graded in CI are hidden ones.
            let generated = grader::generate::seeds::Seeds::of(&lab)
                .expect("seeds")
                .map_or((0, 0), |s| s.graded_points());
            Facts {
                total: lab.manifest.total_points,
                visible_points: points(false).1,
                hidden: points(true).0 + generated.0,
                hidden_points: points(true).1 + generated.1,
                mutants: count(&lab.dir.join("mutants")),
                alternatives: count(&lab.dir.join("alternatives")),
                name,
            }
        })
        .collect()
}

/// `lab4` as the docs say it: `lab 4`.
fn spoken(name: &str) -> String {
    format!("lab {}", name.trim_start_matches("lab"))
}

fn word(n: usize) -> &'static str {
    [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ]
    .get(n)
    .copied()
    .unwrap_or("many")
}

/// A document's text with its lines joined, as a reader reads its sentences.
fn read(rel: &str) -> String {
    let text = std::fs::read_to_string(kit().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_docs_figures_are_the_lab_data() {
    let labs = facts();
    let readme = read("README.md");
    let has = format!("It has {} labs.", word(labs.len()));
    assert!(readme.contains(&has), "README.md should say `{has}`");
    // The point total each Gradescope assignment needs.
    let ci = read("docs/ci.md");
    let totals: Vec<String> = labs
        .iter()
        .map(|l| format!("{} for {}", l.total, spoken(&l.name)))
        .collect();
    let sentence = format!("`total_points` in `lab.json`: {}", totals.join(", "));
    assert!(ci.contains(&sentence), "docs/ci.md should say `{sentence}`");
    let first = &labs[0];
    let visible = format!(
        "({} of {} in {})",
        first.visible_points,
        first.total,
        spoken(&first.name)
    );
    assert!(ci.contains(&visible), "docs/ci.md should say `{visible}`");
    // Correct alternatives per lab, in the README; mutants per lab, in ARCHITECTURE.md.
    let alternatives: Vec<String> = labs
        .iter()
        .map(|l| format!("{} {}", spoken(&l.name), word(l.alternatives)))
        .collect();
    let sentence = format!("Correct alternatives: {}.", alternatives.join(", "));
    assert!(
        readme.contains(&sentence),
        "README.md should say `{sentence}`"
    );
    let architecture = read("ARCHITECTURE.md");
    for l in labs.iter().skip(1) {
        let said = format!("{} mutants", l.mutants);
        assert!(
            architecture.contains(&said),
            "ARCHITECTURE.md should give {}'s {said}",
            l.name
        );
    }
}

#[test]
fn list_and_the_json_report_count_the_hidden_scenarios_alike() {
    for l in facts() {
        let list = grader().args(["list", &l.name]).output().expect("list");
        let text = String::from_utf8_lossy(&list.stdout);
        let visible = text.lines().filter(|x| x.ends_with("  visible")).count();
        let sentence = format!(
            "{visible} visible scenarios ({} points) and {} hidden ({} points): {} points in all",
            l.visible_points, l.hidden, l.hidden_points, l.total
        );
        assert!(text.contains(&sentence), "{}: {text}", l.name);
        let labs = grader().arg("list").output().expect("list");
        let row = String::from_utf8_lossy(&labs.stdout)
            .lines()
            .find(|x| x.starts_with(&format!("{} ", l.name)))
            .map(|x| {
                x.split_whitespace()
                    .rev()
                    .take(5)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .expect("a row");
        assert_eq!(
            row,
            format!(
                "{} {} {} {} {visible}",
                l.total, l.hidden_points, l.hidden, l.visible_points
            ),
            "{}",
            l.name
        );
    }
}
