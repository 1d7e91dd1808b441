//! Grading into a results folder that already holds a gradebook: the submissions graded
//! now replace their rows, every other row stays as it was (with its results file, its
//! time and the kit that graded it), and the command says which were kept.

use std::path::Path;

use super::gradebook::Gradebook;
use crate::error::Error;

/// The file a results folder keeps its gradebook in.
pub const GRADEBOOK_JSON: &str = "gradebook.json";

/// The gradebook already in `dir`, if there is one.
pub fn existing(dir: &Path) -> Result<Option<Gradebook>, Error> {
    let path = dir.join(GRADEBOOK_JSON);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("read", &path, e)),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Error::Usage(format!(
            "{} is not a gradebook this grader can add to: {}\n  help: grade into another --results-dir, or move that folder away to start a new gradebook",
            path.display(),
            crate::diagnostic::describe_json_error(&e)
        ))
    })
}

/// `Ok` when `old`, the gradebook in `dir`, is of `lab`: only then can rows join it.
pub fn same_lab(old: &Gradebook, lab: &str, dir: &Path) -> Result<(), Error> {
    if old.lab == lab {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{} holds the gradebook of {}, not {lab}\n  help: grade {lab} into another --results-dir",
        dir.display(),
        old.lab
    )))
}

/// What joining two gradebooks did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Joined {
    /// Rows of the earlier gradebook graded again now.
    pub updated: Vec<String>,
    /// Rows of the earlier gradebook left as they were.
    pub kept: Vec<String>,
    /// The kept rows that ran other scenarios than this batch.
    pub other_scenarios: Vec<String>,
}

/// `new` with the rows of `old` it does not grade again, sorted by name. A gradebook of
/// another lab is refused: its rows cannot share columns.
pub fn join(
    mut new: Gradebook,
    old: Option<Gradebook>,
    dir: &Path,
) -> Result<(Gradebook, Joined), Error> {
    let Some(old) = old else {
        return Ok((new, Joined::default()));
    };
    same_lab(&old, &new.lab, dir)?;
    let mut joined = Joined::default();
    for row in old.submissions {
        if let Some(again) = new.submissions.iter_mut().find(|r| r.name == row.name) {
            // Graded again without a roster: still the same student's.
            if again.student.is_none() {
                again.student = row.student;
            }
            joined.updated.push(row.name);
            continue;
        }
        if row.scenarios_sha256 != new.scenarios_sha256 {
            joined.other_scenarios.push(row.name.clone());
        }
        joined.kept.push(row.name.clone());
        new.submissions.push(row);
    }
    new.submissions.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((new, joined))
}

impl Joined {
    /// What to tell the person who graded, when rows were kept.
    pub fn words(&self, gradebook: &Path) -> Option<String> {
        if self.kept.is_empty() {
            return None;
        }
        let mut text = format!(
            "kept {} of {} graded earlier ({}); graded again: {}",
            grader_lab::quantity(self.kept.len() as u64, "row"),
            gradebook.display(),
            list(&self.kept),
            if self.updated.is_empty() {
                "none".to_owned()
            } else {
                list(&self.updated)
            }
        );
        if !self.other_scenarios.is_empty() {
            text.push_str(&format!(
                "\n  note: {} ran other scenarios than this batch ({}); grade {} again for a gradebook graded alike",
                grader_lab::quantity(self.other_scenarios.len() as u64, "kept row"),
                list(&self.other_scenarios),
                if self.other_scenarios.len() == 1 { "it" } else { "them" }
            ));
        }
        Some(text)
    }
}

/// Up to five names, then how many more.
fn list(names: &[String]) -> String {
    let mut text = names.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 5 {
        text.push_str(&format!(" and {} more", names.len() - 5));
    }
    text
}
