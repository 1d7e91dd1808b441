//! The gradebook as a spreadsheet (`gradebook.csv`), safe to open in Excel, LibreOffice or
//! Google Sheets as it is:
//!
//! - UTF-8 with a byte-order mark, so a spreadsheet does not read `José` as `JosÃ©`;
//! - categories headed by their titles, as a person reads the rubric;
//! - a `Points Possible` line under the header (as course platforms lay out a gradebook)
//!   with points only under the columns that hold points: `score` and each category;
//! - blank cells, not zeros, for a submission that was not graded (`could_not_grade`,
//!   `error`): nothing was measured;
//! - `failed` names the visible scenarios only, `hidden_failed` counts the hidden ones, so
//!   a sheet passed on to students names no hidden scenario; the skeleton, untouched, says
//!   so instead of listing every scenario;
//! - a free-text cell a spreadsheet would run as a formula starts with `'`.

use super::gradebook::{GRADED, Gradebook, Row};

/// The first cell of the line under the header that gives each column's points available.
pub const POINTS_POSSIBLE: &str = "Points Possible";

/// The byte-order mark every CSV file of the results folder starts with.
pub const BOM: &str = "\u{feff}";

/// The columns before the categories, in order; `student` only when the roster names
/// someone.
fn head(with_students: bool) -> Vec<&'static str> {
    let mut columns = vec!["submission"];
    if with_students {
        columns.push("student");
    }
    columns.extend(["status", "score", "max_score", "passed"]);
    columns
}

/// The columns after the categories, in order.
const TAIL: [&str; 9] = [
    "failed",
    "hidden_failed",
    "compiled",
    "graded_at",
    "kit_version",
    "student_files_sha256",
    "results_file",
    "message",
    "scenarios_sha256",
];

/// `gradebook.csv`: the header, the points possible, then one line per submission.
pub fn csv(book: &Gradebook) -> std::io::Result<String> {
    let with_students = book.submissions.iter().any(|r| r.student.is_some());
    let hidden: Vec<&str> = book
        .scenario_columns
        .iter()
        .filter(|s| s.hidden)
        .map(|s| s.name.as_str())
        .collect();
    let mut header: Vec<String> = head(with_students)
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
    header.extend(book.categories.iter().map(|c| text_cell(&c.title)));
    header.extend(TAIL.iter().map(|c| (*c).to_owned()));
    let mut lines = vec![header.clone()];
    let mut possible = vec![String::new(); header.len()];
    possible[0] = POINTS_POSSIBLE.to_owned();
    let at = |column: &str| header.iter().position(|h| h == column).unwrap_or(0);
    possible[at("score")] = book.max_score.to_string();
    let first_category = head(with_students).len();
    for (i, c) in book.categories.iter().enumerate() {
        possible[first_category + i] = c.max_score.to_string();
    }
    lines.push(possible);
    for r in &book.submissions {
        lines.push(line(r, book, with_students, &hidden));
    }
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(BOM.as_bytes().to_vec());
    for line in &lines {
        out.write_record(line)?;
    }
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

/// One submission's cells.
fn line(r: &Row, book: &Gradebook, with_students: bool, hidden: &[&str]) -> Vec<String> {
    let graded = r.status == GRADED;
    let points = |n: u32| if graded { n.to_string() } else { String::new() };
    let mut cells = vec![text_cell(&r.name)];
    if with_students {
        cells.push(text_cell(
            r.student.as_ref().map(|s| s.name.as_str()).unwrap_or(""),
        ));
    }
    cells.extend([
        r.status.clone(),
        points(r.score),
        r.max_score.to_string(),
        if graded {
            r.passed.to_string()
        } else {
            String::new()
        },
    ]);
    for c in &book.categories {
        cells.push(if graded {
            r.categories.get(&c.id).copied().unwrap_or(0).to_string()
        } else {
            String::new()
        });
    }
    let (failed, hidden_failed) = if !graded {
        (String::new(), String::new())
    } else if r.unchanged_skeleton {
        (
            "all (unchanged skeleton)".to_owned(),
            r.failed
                .iter()
                .filter(|f| hidden.contains(&f.as_str()))
                .count()
                .to_string(),
        )
    } else {
        let (hid, shown): (Vec<&String>, Vec<&String>) =
            r.failed.iter().partition(|f| hidden.contains(&f.as_str()));
        (
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            hid.len().to_string(),
        )
    };
    cells.extend([
        failed,
        hidden_failed,
        r.compiled.map(|c| c.to_string()).unwrap_or_default(),
        r.graded_at.clone(),
        r.kit_version.clone(),
        r.student_files_sha256.clone().unwrap_or_default(),
        r.results_file.clone().unwrap_or_default(),
        text_cell(&r.message),
        r.scenarios_sha256.clone(),
    ]);
    cells
}

/// A free-text cell that a spreadsheet will not run as a formula.
pub fn text_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::gradebook::{CategoryColumn, ScenarioColumn};
    use crate::grade::roster::Student;

    fn row(name: &str, status: &str) -> Row {
        let mut row = Row::new(name, status, 10);
        row.graded_at = "2025-01-01T00:00:00Z".into();
        row.kit_version = "0.1.0".into();
        row.scenarios_sha256 = "abc".into();
        row
    }

    fn book(submissions: Vec<Row>) -> Gradebook {
        let column = |name: &str, hidden: bool| ScenarioColumn {
            name: name.into(),
            title: String::new(),
            category: "a".into(),
            points: 5,
            hidden,
        };
        Gradebook {
            schema_version: 2,
            lab: "lab5".into(),
            kit_version: "0.1.0".into(),
            scenarios: 2,
            scenarios_sha256: "abc".into(),
            max_score: 10,
            sandbox: None,
            categories: vec![CategoryColumn {
                id: "a".into(),
                title: "Alerts, once".into(),
                max_score: 10,
            }],
            scenario_columns: vec![column("seen", false), column("secret", true)],
            submissions,
        }
    }

    #[test]
    fn a_spreadsheet_reads_it_as_written() {
        let mut graded = row("b,c", GRADED);
        graded.score = 5;
        graded.passed = 0;
        graded.categories = [("a".to_owned(), 5)].into();
        graded.failed = vec!["seen".into(), "secret".into()];
        graded.compiled = Some(true);
        graded.message = "=cmd() said \"hi\"".into();
        graded.student = Some(Student {
            name: "José Núñez".into(),
            ..Student::default()
        });
        let missing = row("missing", "could_not_grade");
        let text = csv(&book(vec![graded, missing])).unwrap();
        assert_eq!(
            text,
            "\u{feff}submission,student,status,score,max_score,passed,\"Alerts, once\",failed,hidden_failed,compiled,graded_at,kit_version,student_files_sha256,results_file,message,scenarios_sha256\r\n\
             Points Possible,,,10,,,10,,,,,,,,,\r\n\
             \"b,c\",José Núñez,graded,5,10,0,5,seen,1,true,2025-01-01T00:00:00Z,0.1.0,,,\"'=cmd() said \"\"hi\"\"\",abc\r\n\
             missing,,could_not_grade,,10,,,,,,2025-01-01T00:00:00Z,0.1.0,,,,abc\r\n"
        );
    }

    #[test]
    fn the_untouched_skeleton_says_so_and_names_no_hidden_scenario() {
        let mut skeleton = row("skel", GRADED);
        skeleton.failed = vec!["seen".into(), "secret".into()];
        skeleton.unchanged_skeleton = true;
        let text = csv(&book(vec![skeleton])).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last.contains(",all (unchanged skeleton),1,"), "{last}");
        assert!(!text.contains("secret"), "{text}");
    }
}
