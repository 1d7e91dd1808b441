//! The gradebook in the layouts course platforms import, for the submissions the roster
//! names (see [`super::roster`]). Each file holds one grade column, the lab's total, under
//! the assignment's name; a submission that was not graded leaves its cell blank.
//!
//! **Canvas** (`canvas.csv`): Canvas imports the layout of its own gradebook export:
//! `Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`, then one column per
//! assignment, and under the header a `Points Possible` line whose first cell is indented,
//! as the export writes it. Canvas finds each student by one of the ids (the roster's
//! `canvas_id`, `student_id`, `sis_login_id`); an assignment column whose header is not an
//! existing assignment's, `Name (id)` as the export spells it, becomes a new assignment. A
//! blank cell changes nothing.
//!
//! **Moodle** (`moodle.csv`): Moodle imports the layout of its own plain-text export:
//! `First name`, `Last name`, `ID number`, `Institution`, `Department`, `Email address`,
//! then the grade items. On import, "Identify user by" maps `Email address` to the user's
//! email (or `ID number` to their ID number), and the grade column is mapped to the grade
//! item. Moodle gives up the whole import at a line whose user it cannot find, so lines
//! without an e-mail address or ID number are left out, and so is any line that is not a
//! student (no `Points Possible`). A blank cell is "no grade".

use super::gradebook::{GRADED, Gradebook, Row};
use super::gradebook_csv::{BOM, text_cell};
use super::roster::Student;

/// Canvas's columns before the assignments.
pub const CANVAS_COLUMNS: [&str; 5] = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"];

/// Moodle's user columns, as its export writes them.
pub const MOODLE_COLUMNS: [&str; 6] = [
    "First name",
    "Last name",
    "ID number",
    "Institution",
    "Department",
    "Email address",
];

/// The first cell of Canvas's points line, as its export writes it.
pub const CANVAS_POINTS_POSSIBLE: &str = "    Points Possible";

/// One platform file and the submissions it could not hold.
#[derive(Debug, Default)]
pub struct Export {
    /// The file's text.
    pub text: String,
    /// The students written.
    pub written: usize,
    /// Submissions left out, with why.
    pub left_out: Vec<(String, &'static str)>,
}

/// `canvas.csv` for the gradebook, `assignment` naming the grade column.
pub fn canvas(book: &Gradebook, assignment: &str) -> std::io::Result<Export> {
    let mut header: Vec<String> = CANVAS_COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    header.push(text_cell(assignment));
    let mut points = vec![String::new(); header.len()];
    points[0] = CANVAS_POINTS_POSSIBLE.to_owned();
    points[CANVAS_COLUMNS.len()] = book.max_score.to_string();
    let mut lines = vec![header, points];
    let mut export = Export::default();
    for r in &book.submissions {
        let Some(s) = &r.student else {
            export.left_out.push((r.name.clone(), "not on the roster"));
            continue;
        };
        if s.canvas_id.is_empty() && s.student_id.is_empty() && s.sis_login_id.is_empty() {
            export.left_out.push((
                r.name.clone(),
                "the roster gives no canvas_id, student_id or sis_login_id to find the student by",
            ));
            continue;
        }
        lines.push(vec![
            text_cell(&s.name),
            text_cell(&s.canvas_id),
            text_cell(&s.student_id),
            text_cell(&s.sis_login_id),
            text_cell(&s.section),
            score(r),
        ]);
        export.written += 1;
    }
    export.text = write(&lines)?;
    Ok(export)
}

/// `moodle.csv` for the gradebook, `assignment` naming the grade column.
pub fn moodle(book: &Gradebook, assignment: &str) -> std::io::Result<Export> {
    let mut header: Vec<String> = MOODLE_COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    header.push(text_cell(assignment));
    let mut lines = vec![header];
    let mut export = Export::default();
    for r in &book.submissions {
        let Some(s) = &r.student else {
            export.left_out.push((r.name.clone(), "not on the roster"));
            continue;
        };
        if s.email.is_empty() && s.student_id.is_empty() {
            export.left_out.push((
                r.name.clone(),
                "the roster gives no email or student_id, which Moodle finds a user by",
            ));
            continue;
        }
        let (first, last) = names(s);
        lines.push(vec![
            text_cell(&first),
            text_cell(&last),
            text_cell(&s.student_id),
            String::new(),
            String::new(),
            text_cell(&s.email),
            score(r),
        ]);
        export.written += 1;
    }
    export.text = write(&lines)?;
    Ok(export)
}

/// The grade cell: the points of a graded submission, else blank.
fn score(r: &Row) -> String {
    if r.status == GRADED {
        r.score.to_string()
    } else {
        String::new()
    }
}

/// First and last name: the roster's, or the full name split at its last space.
fn names(s: &Student) -> (String, String) {
    if !s.first_name.is_empty() || !s.last_name.is_empty() {
        return (s.first_name.clone(), s.last_name.clone());
    }
    match s.name.rsplit_once(' ') {
        Some((first, last)) => (first.to_owned(), last.to_owned()),
        None => (s.name.clone(), String::new()),
    }
}

fn write(lines: &[Vec<String>]) -> std::io::Result<String> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(BOM.as_bytes().to_vec());
    for line in lines {
        out.write_record(line)?;
    }
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}
