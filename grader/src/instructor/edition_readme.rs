//! The student edition's README: the kit's own, without the parts written for
//! instructors, and a note on what the edition leaves out.
//!
//! The kit's README marks what is for instructors only (grading the reference solution,
//! the folders the edition does not have, the instructors' and CI guides) between
//! [`START`] and [`END`] lines; the edition's README has everything else.

use crate::error::Error;
use crate::lab::Lab;

/// The line that starts a part of the README for instructors only.
pub const START: &str = "<!-- instructors only -->";
/// The line that ends it.
pub const END: &str = "<!-- end instructors only -->";

/// `readme` without its parts for instructors only, and without the blank lines they
/// leave doubled. A part that is not closed is an error: the rest of the README would be
/// lost, or instructors' material kept.
pub fn for_students(readme: &str) -> Result<String, Error> {
    let mut out = String::new();
    let mut open: Option<usize> = None;
    for (i, line) in readme.lines().enumerate() {
        match (line.trim(), open) {
            (START, None) => open = Some(i + 1),
            (START, Some(first)) => {
                return Err(unclosed(
                    first,
                    &format!("a second one starts at line {}", i + 1),
                ));
            }
            (END, Some(_)) => open = None,
            (END, None) => {
                return Err(Error::Usage(format!(
                    "README.md:{}: `{END}` closes nothing\n  help: mark a part for instructors only with `{START}` before it",
                    i + 1
                )));
            }
            (_, Some(_)) => {}
            (_, None) => {
                if !(line.trim().is_empty() && out.ends_with("\n\n")) {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    if let Some(first) = open {
        return Err(unclosed(first, "the file ends first"));
    }
    Ok(out)
}

fn unclosed(line: usize, why: &str) -> Error {
    Error::Usage(format!(
        "README.md:{line}: a part for instructors only is not closed: {why}\n  help: end it with a line `{END}`"
    ))
}

/// The note appended to the edition's README, wrapped like the rest of it; `checks` is
/// how many mutants and correct alternatives the lab has.
pub fn note(lab: &Lab, hidden: usize, hidden_points: u32, checks: usize) -> String {
    let name = &lab.manifest.name;
    let mut left_out = vec![format!(
        "the reference solution (`{}`);",
        lab.manifest.solution_crate
    )];
    if hidden > 0 {
        left_out.push(format!(
            "{hidden} hidden scenario{} worth {hidden_points} points, which run only when submissions are graded;",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    if checks > 0 {
        left_out.push(
            "the known-wrong variants of the reference and the correct solutions written differently from it, which check the scenarios (`grader audit`);"
                .to_owned(),
        );
    }
    left_out.push(
        "the instructors' documentation, and the grader's own test suite (`grader/tests/`), which grades the reference solution and those other solutions."
            .to_owned(),
    );
    let mut text = String::from("## About this edition\n\n");
    text.push_str(&wrap(
        &format!(
            "This is the student edition of {name}, written by `grader release {name}`. \
             `cargo run -p grader -- check {name}` grades `{}` on the visible scenarios in \
             `labs/{name}/scenarios/`.",
            lab.manifest.student_crate
        ),
        "",
    ));
    text.push_str("\nLeft out, because they belong to the instructors:\n\n");
    for item in &left_out {
        text.push_str(&wrap(item, "- "));
    }
    text.push('\n');
    text.push_str(&wrap(
        "Links above to files that are not here point into the instructors' edition.",
        "",
    ));
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
    fn instructors_parts_are_left_out() {
        let readme = format!(
            "# Kit\n\nfor all\n\n{START}\n## For instructors\n\nsecret\n{END}\n\n## More\n"
        );
        assert_eq!(
            for_students(&readme).expect("closed"),
            "# Kit\n\nfor all\n\n## More\n"
        );
        assert!(for_students(&format!("a\n{START}\nb\n")).is_err());
        assert!(for_students(&format!("a\n{END}\n")).is_err());
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
