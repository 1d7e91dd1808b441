//! The student edition's README, written for the labs it holds: what they are, the two
//! commands (grade the first lab's crate, run the edition's tests), what to fill in, the
//! commands to grade with (the race-check and rehearsal ones only for a lab that has
//! them), the exit statuses (the kit README's own section, which holds for any lab), the
//! folders the edition has, and what it leaves out.
//!
//! It is written from the labs' data (`lab.json`, the scenarios, the packages'
//! descriptions), never by cutting the kit's README, which speaks of every lab.

use crate::error::Error;
use crate::lab::Lab;

use super::edition_members::Package;

/// What the README says of one lab of the edition.
#[derive(Clone, Debug)]
pub struct LabFacts<'a> {
    /// The lab.
    pub lab: &'a Lab,
    /// Its visible scenarios and their points.
    pub visible: (usize, u32),
    /// Its hidden scenarios and their points.
    pub hidden: (usize, u32),
    /// Whether it has a rehearsal script (`grader rehearse`).
    pub rehearsal: bool,
}

/// The README of an edition of `labs`; `kit_readme` is the kit's (its title and its
/// exit-status section are reused), `members` the packages the edition holds, with
/// their descriptions.
pub fn write(
    kit_readme: &str,
    labs: &[LabFacts<'_>],
    members: &[(Package, String)],
) -> Result<String, Error> {
    let first = labs
        .first()
        .ok_or_else(|| Error::Usage("an edition holds one lab or more".into()))?;
    let title = kit_readme
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or("Lab kit");
    let names: Vec<String> = labs.iter().map(|l| spoken(&l.lab.manifest.name)).collect();
    let mut out = format!("# {title}: {}\n\n", and_list(&names));
    out.push_str(&wrap(
        &format!(
            "This is the student edition of {}. You fill in a skeleton; the `grader` drives \
             your code through scripted scenarios with a fake clock and mock systems that can \
             be told to fail or to hold calls, and scores it: which scenario failed, at which \
             step and fake-clock time, expected against observed, and a hint. Your code always \
             runs in a separate process, so a panic, a `todo!()`, a deadlock or an endless loop \
             costs one scenario, never the grading run. Nothing a scenario checks depends on \
             real time, so the same code always gets the same grade.",
            and_list(&names)
        ),
        "",
    ));
    out.push('\n');
    for l in labs {
        let m = &l.lab.manifest;
        let mut text = format!(
            "**{}: {}.** You work in `{}`; the handout is `labs/{}/README.md`. {} visible \
             scenarios are worth {} points",
            capitalised(&spoken(&m.name)),
            m.title,
            m.student_crate,
            m.name,
            l.visible.0,
            l.visible.1
        );
        if l.hidden.0 > 0 {
            text.push_str(&format!(
                "; {} hidden scenarios worth {} more run when your submission is graded, for \
                 a total of {}",
                l.hidden.0, l.hidden.1, m.total_points
            ));
        }
        text.push('.');
        out.push_str(&wrap(&text, ""));
        out.push('\n');
    }
    let racing: Vec<&LabFacts<'_>> = labs.iter().filter(|l| l.lab.has_race_checks()).collect();
    if let Some(r) = racing.first() {
        let schedules = r.lab.manifest.race.as_ref().map_or(0, |s| s.schedules);
        let which: Vec<String> = racing
            .iter()
            .map(|l| spoken(&l.lab.manifest.name))
            .collect();
        out.push_str(&wrap(
            &format!(
                "Races too ({}): the *race checks* build your files a second time, unchanged, \
                 against a `std` whose locks, atomics and threads run on a schedule explorer, \
                 and run their scenarios on {schedules} interleavings from a fixed seed. Code \
                 that checks in one locked section and acts in another loses points on every \
                 run, with the interleaving that broke it told in a few lines and a command \
                 that replays exactly that schedule.",
                and_list(&which)
            ),
            "",
        ));
        out.push('\n');
    }
    let lab = &first.lab.manifest.name;
    out.push_str("## Two commands\n\n");
    out.push_str(&wrap(
        "On a machine with Rust (stable, 1.85 or later; install it with \
         [rustup](https://rustup.rs)):",
        "",
    ));
    out.push_str(&format!(
        "\n```sh\n# grade your crate: the untouched skeleton scores 0, each scenario naming the\n# todo!() it stopped at\ncargo run -p grader -- check {lab}\n# the edition's own tests\ncargo test --workspace\n```\n\n"
    ));
    out.push_str(&wrap(
        "The first run downloads the crates and builds the grader and the lab's harness (a few \
         minutes); later runs take a fraction of a second.",
        "",
    ));
    out.push_str("\n## What to do\n\n");
    for l in labs {
        let m = &l.lab.manifest;
        let n = &m.name;
        if labs.len() > 1 {
            out.push_str(&format!("### {}\n\n", capitalised(&spoken(n))));
        }
        let files: Vec<String> = m.student_files.iter().map(|f| format!("`{f}`")).collect();
        out.push_str(&wrap(
            &format!("1. Read the handout: [`labs/{n}/README.md`](labs/{n}/README.md)."),
            "",
        ));
        out.push_str(&wrap(
            &format!(
                "2. Fill in {} of `{}` (every `TODO({n})`).",
                and_list(&files),
                m.student_crate
            ),
            "",
        ));
        out.push_str("3. Grade your work, as often as you like:\n\n```sh\n");
        let mut commands = vec![
            (format!("check {n}"), "every visible scenario"),
            (format!("check {n} --scenario NAME"), "one scenario"),
        ];
        if l.lab.has_race_checks() {
            commands.push((
                format!("check {n} --scenario NAME --schedule N"),
                "replay a race check's schedule",
            ));
        }
        commands.extend([
            (format!("watch {n}"), "grade again on every save"),
            (format!("list {n}"), "scenarios, categories, points"),
            (
                format!("explain {n} NAME"),
                "what a scenario does, in words",
            ),
        ]);
        let width = commands.iter().map(|c| c.0.len()).max().unwrap_or(0);
        for (command, what) in &commands {
            out.push_str(&format!(
                "cargo run -p grader -- {command:<width$}  # {what}\n"
            ));
        }
        out.push_str("```\n\n");
        if l.rehearsal {
            out.push_str(&wrap(
                &format!(
                    "4. Once it passes, watch it work: `cargo run -p grader -- rehearse {n}` \
                     runs your code and an unprotected stand-in side by side on real sockets \
                     while a dependency slows down, refuses connections and recovers, and \
                     writes a page with charts of what happened (see the handout)."
                ),
                "",
            ));
            out.push('\n');
        }
    }
    out.push_str(&wrap(
        &format!(
            "`cargo install --path grader` puts `grader` on your `PATH`, so `grader check {lab}` \
             works from anywhere inside the kit, and `grader list` lists the labs. Useful \
             flags: `--format json` (machine-readable report on standard output), \
             `--no-hints`, `-v` (whole timelines and panic backtraces), `--timeout SECONDS`, \
             `--color never`. Colour is used only on a terminal and never when `NO_COLOR` is \
             set; reports go to standard output, progress to standard error."
        ),
        "",
    ));
    out.push_str("\n## Grading in CI\n\n");
    out.push_str(&wrap(
        &format!(
            "`ci/github/grade.yml` is the workflow a repository of this edition runs on every \
             push: it grades {} with the course's copy of the kit (only your lab files are \
             taken from the repository), puts the points in the job summary, marks compile \
             errors, the first failing scenario's place and real-clock calls on your lines, and \
             fails below the pass mark. The course sets it up; its comments say how.",
            and_list(&names)
        ),
        "",
    ));
    if let Some(status) = section(kit_readme, "## Exit status") {
        out.push('\n');
        out.push_str(&status);
    }
    out.push_str("\n## Layout\n\n| folder | what it holds |\n|---|---|\n");
    for l in labs {
        let n = &l.lab.manifest.name;
        out.push_str(&format!(
            "| `labs/{n}` | the handout, the lab manifest `lab.json`, the visible scenarios and their schema, and the lab's code for the grader (`plugin/`) and for the process that drives your crate (`harness/`) |\n"
        ));
    }
    for (p, description) in members {
        let shown =
            p.dir.starts_with("crates/") || p.dir.starts_with("fixtures/") || p.dir == "grader";
        if shown && !description.is_empty() {
            out.push_str(&format!("| `{}` | {} |\n", p.dir, description));
        }
    }
    out.push_str("| `ci/github` | the workflow a student repository runs to grade each push |\n");
    Ok(out)
}

/// `lab5` as a sentence says it: `lab 5`.
pub fn spoken(name: &str) -> String {
    match name.strip_prefix("lab") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => format!("lab {n}"),
        _ => name.to_owned(),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The section of `readme` that starts at the heading line `heading`, up to the next
/// heading of the same level.
fn section(readme: &str, heading: &str) -> Option<String> {
    let start = readme.find(&format!("\n{heading}\n"))? + 1;
    let rest = &readme[start + heading.len() + 1..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
    Some(format!("{heading}\n{}", &rest[..end]))
}

/// The note appended to the edition's README, wrapped like the rest of it; `checks` is
/// whether the labs have mutants or correct alternatives.
pub fn note(labs: &[LabFacts<'_>], checks: bool) -> String {
    let names: Vec<String> = labs.iter().map(|l| l.lab.manifest.name.clone()).collect();
    let solutions: Vec<String> = labs
        .iter()
        .map(|l| format!("`{}`", l.lab.manifest.solution_crate))
        .collect();
    let mut left_out = vec![format!(
        "the reference solution{} ({});",
        if labs.len() == 1 { "" } else { "s" },
        and_list(&solutions)
    )];
    let hidden: usize = labs.iter().map(|l| l.hidden.0).sum();
    let hidden_points: u32 = labs.iter().map(|l| l.hidden.1).sum();
    if hidden > 0 {
        left_out.push(format!(
            "{hidden} hidden scenario{} worth {hidden_points} points, which run only when submissions are graded;",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    if checks {
        left_out.push(
            "the known-wrong variants of the reference and the correct solutions written differently from it, which check the scenarios;"
                .to_owned(),
        );
    }
    left_out.push(
        "the instructors' documentation and commands (`grader audit` and `grader release`, and `--solution`), and the grader's own test suite, which grades the reference solution and those other solutions."
            .to_owned(),
    );
    let mut text = String::from("\n## About this edition\n\n");
    text.push_str(&wrap(
        &format!(
            "This is the student edition of {}, written by `grader release {}`; \
             `edition.json` says what it holds.",
            and_list(
                &labs
                    .iter()
                    .map(|l| spoken(&l.lab.manifest.name))
                    .collect::<Vec<_>>()
            ),
            names.join(" ")
        ),
        "",
    ));
    text.push_str("\nLeft out, because they belong to the instructors:\n\n");
    for item in &left_out {
        text.push_str(&wrap(item, "- "));
    }
    text
}

/// `text` as lines of at most 90 characters (a `code span` is never split), the first
/// starting with `first` and the others indented to match it.
fn wrap(text: &str, first: &str) -> String {
    const WIDTH: usize = 90;
    // Words, with each code span kept whole.
    let mut tokens: Vec<String> = Vec::new();
    let mut in_code = false;
    for word in text.split_whitespace() {
        match tokens.last_mut() {
            Some(last) if in_code => {
                last.push(' ');
                last.push_str(word);
            }
            _ => tokens.push(word.to_owned()),
        }
        if word.matches('`').count() % 2 == 1 {
            in_code = !in_code;
        }
    }
    let indent = " ".repeat(first.len());
    let mut out = String::new();
    let mut line = first.to_owned();
    let mut empty = true;
    for token in tokens {
        if !empty && line.len() + 1 + token.len() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(&token);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_names_read_as_sentences() {
        assert_eq!(spoken("lab12"), "lab 12");
        assert_eq!(spoken("echo"), "echo");
        let items: Vec<String> = ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(and_list(&items[..1]), "a");
        assert_eq!(and_list(&items[..2]), "a and b");
        assert_eq!(and_list(&items), "a, b and c");
        assert_eq!(capitalised("lab 4"), "Lab 4");
    }

    #[test]
    fn a_section_ends_at_the_next_heading() {
        let readme = "# Kit\n\n## Exit status\n\n| 0 | ok |\n\n## Layout\n\nx\n";
        assert_eq!(
            section(readme, "## Exit status").as_deref(),
            Some("## Exit status\n\n| 0 | ok |\n\n")
        );
        assert_eq!(section(readme, "## Nothing"), None);
    }

    #[test]
    fn notes_are_wrapped_at_90_columns() {
        let text = wrap(&"word ".repeat(40), "- ");
        assert!(text.lines().all(|l| l.len() <= 90), "{text}");
        assert!(text.starts_with("- word"));
        assert!(
            text.lines().skip(1).all(|l| l.starts_with("  word")),
            "{text}"
        );
        let text = wrap(&format!("{} `a code span`", "x".repeat(80)), "");
        assert_eq!(text, format!("{}\n`a code span`\n", "x".repeat(80)));
    }
}
