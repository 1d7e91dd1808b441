//! The class roster: who each submission folder belongs to, for the gradebooks a course
//! platform imports (`platforms.rs`).
//!
//! A roster is a CSV file with a header line. Each line is one student; it names how
//! their submission is found, by one or more of:
//!
//! - `submission`: the folder's name, exactly;
//! - `github`: a GitHub user name, matched (in any case) by a folder of that name or one
//!   ending in `-<name>`, as GitHub Classroom names its clones (`lab5-octocat`);
//! - `gradescope_id`: a Gradescope submission id, matched by a folder of that name or
//!   `submission_<id>`, as Gradescope's export names them;
//!
//! and who they are: `name` (or `first_name` and `last_name`), `email`, `student_id` (the
//! institution's number: Moodle's "ID number", Canvas's "SIS User ID"), `canvas_id`
//! (Canvas's own "ID"), `sis_login_id`, `section`. Headers are read in any case, with
//! spaces or `_`. Any other column is refused, so a misspelt one is never ignored.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Pos, did_you_mean};
use crate::error::Error;

/// One student, as the platforms need them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Student {
    /// Full name, as the roster gives it or made of the first and last names.
    pub name: String,
    /// First name (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub first_name: String,
    /// Last name (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last_name: String,
    /// E-mail address.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub email: String,
    /// The institution's student number.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub student_id: String,
    /// Canvas's own user id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub canvas_id: String,
    /// Canvas's SIS login id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sis_login_id: String,
    /// Section.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub section: String,
}

/// One line of the roster.
#[derive(Clone, Debug, Default)]
struct Entry {
    line: usize,
    submission: String,
    github: String,
    gradescope_id: String,
    student: Student,
}

/// A roster read from its file.
#[derive(Clone, Debug, Default)]
pub struct Roster {
    entries: Vec<Entry>,
}

/// The columns a roster may have.
const COLUMNS: [&str; 11] = [
    "submission",
    "github",
    "gradescope_id",
    "name",
    "first_name",
    "last_name",
    "email",
    "student_id",
    "canvas_id",
    "sis_login_id",
    "section",
];

/// `Student ID`, `student-id` and `STUDENT_ID` are one column.
fn column_key(header: &str) -> String {
    header
        .trim()
        .trim_start_matches('\u{feff}')
        .to_lowercase()
        .replace([' ', '-'], "_")
}

impl Roster {
    /// Reads `path`; every problem is placed at its line.
    pub fn read(path: &Path, shown: &Path) -> Result<Roster, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        Roster::parse(&text, shown).map_err(Error::Invalid)
    }

    fn parse(text: &str, shown: &Path) -> Result<Roster, Vec<Diagnostic>> {
        let at =
            |line: usize, message: String| Diagnostic::at(shown, Pos { line, col: 1 }, message);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
        let mut records = reader.records();
        let header = match records.next() {
            Some(Ok(h)) => h,
            Some(Err(e)) => return Err(vec![at(1, format!("this is not CSV: {e}"))]),
            None => {
                return Err(vec![at(1, "the roster is empty".into()).help(
                    "give a header line (such as `github,name,email,student_id`) and one line per student",
                )]);
            }
        };
        let mut problems = Vec::new();
        let mut columns: Vec<&'static str> = Vec::new();
        for cell in header.iter() {
            let key = column_key(cell);
            match COLUMNS.iter().find(|c| **c == key) {
                Some(c) if columns.contains(c) => {
                    problems.push(at(1, format!("the column `{cell}` is there twice")));
                }
                Some(c) => columns.push(c),
                None => {
                    let help = match did_you_mean(&key, COLUMNS.iter().copied()) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => format!("the columns a roster may have: {}", COLUMNS.join(", ")),
                    };
                    problems.push(at(1, format!("unknown column `{cell}`")).help(help));
                    columns.push("");
                }
            }
        }
        let keys = ["submission", "github", "gradescope_id"];
        if !columns.iter().any(|c| keys.contains(c)) {
            problems.push(
                at(
                    1,
                    "the roster does not say which submission is whose".into(),
                )
                .help("add a column `submission` (the folder's name), `github` or `gradescope_id`"),
            );
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let mut entries = Vec::new();
        for record in records {
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    let line = e.position().map_or(0, |p| p.line() as usize);
                    problems.push(at(line, format!("this line is not CSV: {e}")));
                    continue;
                }
            };
            let line = record.position().map_or(0, |p| p.line() as usize);
            if record.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            let mut e = Entry {
                line,
                ..Entry::default()
            };
            for (column, cell) in columns.iter().zip(record.iter()) {
                let cell = cell.trim().to_owned();
                let s = &mut e.student;
                match *column {
                    "submission" => e.submission = cell,
                    "github" => e.github = cell,
                    "gradescope_id" => e.gradescope_id = cell,
                    "name" => s.name = cell,
                    "first_name" => s.first_name = cell,
                    "last_name" => s.last_name = cell,
                    "email" => s.email = cell,
                    "student_id" => s.student_id = cell,
                    "canvas_id" => s.canvas_id = cell,
                    "sis_login_id" => s.sis_login_id = cell,
                    _ => s.section = cell,
                }
            }
            if e.student.name.is_empty() {
                e.student.name = format!("{} {}", e.student.first_name, e.student.last_name)
                    .trim()
                    .to_owned();
            }
            if e.submission.is_empty() && e.github.is_empty() && e.gradescope_id.is_empty() {
                problems.push(at(
                    line,
                    "this student has no submission, github or gradescope_id to find their folder by"
                        .into(),
                ));
            }
            if e.student.name.is_empty() {
                problems.push(at(line, "this student has no name".into()).help(
                    "fill in `name`, or `first_name` and `last_name`: the platforms show it",
                ));
            }
            entries.push(e);
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Roster { entries })
    }

    /// Each folder's student: `Err` names a folder that two lines of the roster claim.
    pub fn match_folders(&self, folders: &[&str]) -> Result<Matches, String> {
        let mut students: BTreeMap<String, Student> = BTreeMap::new();
        let mut claimed = vec![false; self.entries.len()];
        for folder in folders {
            let lines: Vec<usize> = (0..self.entries.len())
                .filter(|&i| self.entries[i].claims(folder))
                .collect();
            match lines.as_slice() {
                [] => {}
                [i] => {
                    claimed[*i] = true;
                    students.insert((*folder).to_owned(), self.entries[*i].student.clone());
                }
                many => {
                    let list: Vec<String> = many
                        .iter()
                        .map(|&i| self.entries[i].line.to_string())
                        .collect();
                    return Err(format!(
                        "the submission {folder} is claimed by lines {} of the roster: give each student a key of their own",
                        list.join(" and ")
                    ));
                }
            }
        }
        let unclaimed = self
            .entries
            .iter()
            .zip(&claimed)
            .filter(|(_, c)| !**c)
            .map(|(e, _)| e.student.name.clone())
            .collect();
        Ok(Matches {
            students,
            unclaimed,
        })
    }
}

impl Entry {
    /// Whether the submission folder `folder` is this student's.
    fn claims(&self, folder: &str) -> bool {
        let lower = folder.to_lowercase();
        let github = self.github.to_lowercase();
        (!self.submission.is_empty() && folder == self.submission)
            || (!github.is_empty() && (lower == github || lower.ends_with(&format!("-{github}"))))
            || (!self.gradescope_id.is_empty()
                && (folder == self.gradescope_id
                    || folder == format!("submission_{}", self.gradescope_id)))
    }
}

/// Who each submission belongs to.
#[derive(Clone, Debug, Default)]
pub struct Matches {
    /// Per folder name, its student.
    pub students: BTreeMap<String, Student>,
    /// The names of the students no folder belongs to.
    pub unclaimed: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roster(text: &str) -> Result<Roster, Vec<String>> {
        Roster::parse(text, Path::new("roster.csv"))
            .map_err(|ps| ps.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn folders_are_found_by_name_github_user_or_gradescope_id() {
        let r = roster(
            "\u{feff}GitHub,Name,Email,Student ID,submission,gradescope_id\n\
             octocat,José Núñez,jose@example.edu,1001,,\n\
             ,Ada Byron,ada@example.edu,1002,ada-folder,\n\
             ,Alan Turing,alan@example.edu,1003,,987\n\
             ,Nobody Here,no@example.edu,1004,gone,\n",
        )
        .expect("a valid roster");
        let m = r
            .match_folders(&["lab5-OctoCat", "ada-folder", "submission_987", "stranger"])
            .expect("no folder claimed twice");
        assert_eq!(m.students["lab5-OctoCat"].name, "José Núñez");
        assert_eq!(m.students["ada-folder"].student_id, "1002");
        assert_eq!(m.students["submission_987"].email, "alan@example.edu");
        assert!(!m.students.contains_key("stranger"));
        assert_eq!(m.unclaimed, ["Nobody Here"]);
    }

    #[test]
    fn a_misspelt_column_and_a_line_without_key_are_placed() {
        assert_eq!(
            roster("github,name,emial\nx,X,x@y\n").unwrap_err(),
            ["roster.csv:1:1: unknown column `emial`\n  help: did you mean `email`?"]
        );
        assert_eq!(
            roster("github,name\nx,X\n,Y\n").unwrap_err(),
            [
                "roster.csv:3:1: this student has no submission, github or gradescope_id to find their folder by"
            ]
        );
        assert!(
            roster("name,email\nX,x@y\n").unwrap_err()[0].contains("which submission is whose")
        );
    }

    #[test]
    fn two_lines_claiming_one_folder_are_refused() {
        let r = roster("github,name\nbob,Bob One\nlab5-bob,Bob Two\n").expect("valid");
        let e = r.match_folders(&["lab5-bob"]).unwrap_err();
        assert!(e.contains("lines 2 and 3"), "{e}");
    }
}
