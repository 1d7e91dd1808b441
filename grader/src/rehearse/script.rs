//! Reading a lab's rehearsal script: the file, its shape and what its values mean (the
//! lab's plug-in says), every problem placed at its line and column.

use std::ops::Range;
use std::path::{Path, PathBuf};

use grader_lab::rehearsal::{Rehearsal, ScriptError, ScriptProblem};

use crate::diagnostic::{Diagnostic, Source, describe_json_error};
use crate::error::Error;
use crate::lab::Lab;
use crate::scenario::recover::{elements, members};

/// The default script's file name, in the lab's folder.
pub const FILE_NAME: &str = "rehearsal.json";

/// A script read from a file and accepted by the lab.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// Its text.
    pub text: String,
    /// Its path as people see it.
    pub shown: PathBuf,
    /// Its length in seconds, as written.
    pub duration_s: f64,
}

/// Reads the script at `path`, or the lab's default script.
pub fn load(lab: &Lab, rehearsal: &dyn Rehearsal, path: Option<&Path>) -> Result<Loaded, Error> {
    let path = path.map_or_else(|| lab.dir.join(FILE_NAME), Path::to_path_buf);
    if !path.is_file() {
        let name = &lab.manifest.name;
        return Err(Error::Usage(format!(
            "there is no rehearsal script at {}\n  help: lab {name} ships one as labs/{name}/{FILE_NAME}; --script FILE rehearses another",
            path.display(),
        )));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
    let shown = crate::lab::kit::shown_path(&lab.kit, &path);
    let duration_s = check(rehearsal, &text, &shown).map_err(Error::Invalid)?;
    Ok(Loaded {
        text,
        shown,
        duration_s,
    })
}

/// The script's length, or its problems placed in `text`, which `shown` names.
pub fn check(rehearsal: &dyn Rehearsal, text: &str, shown: &Path) -> Result<f64, Vec<Diagnostic>> {
    let source = Source::new(shown, text);
    match rehearsal.check_script(text) {
        Ok(duration_s) => Ok(duration_s),
        Err(ScriptError::Json(e)) => {
            Err(vec![source.at(
                source.lines.offset_of_error(&e),
                describe_json_error(&e),
            )])
        }
        Err(ScriptError::Problems(problems)) => {
            Err(problems.iter().map(|p| place(&source, p)).collect())
        }
    }
}

/// A problem at its key, inside the object it is about.
fn place(source: &Source<'_>, p: &ScriptProblem) -> Diagnostic {
    let range = object(source.text, &p.within);
    let d = source.at(source.key_in(range, &p.key), p.message.clone());
    match &p.help {
        Some(help) => d.help(help.clone()),
        None => d,
    }
}

/// Where the object that `within` leads to lies in `text`; as far down as the path can be
/// followed.
fn object(text: &str, within: &[(&str, usize)]) -> Range<usize> {
    let mut range = 0..text.len();
    for (field, index) in within {
        let list = members(text, range.clone())
            .and_then(|m| m.into_iter().find(|m| m.key == *field))
            .map(|m| m.value);
        let Some(element) = list
            .and_then(|list| elements(text, list))
            .and_then(|e| e.get(*index).cloned())
        else {
            break;
        };
        range = element;
    }
    range
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_leads_to_its_object() {
        let text = r#"{"a": 1, "targets": [{"x": 1}, {"x": 2, "phases": [{"k": 0}, {"k": 9}]}]}"#;
        let r = object(text, &[("targets", 1), ("phases", 1)]);
        assert_eq!(&text[r], r#"{"k": 9}"#);
        let r = object(text, &[("targets", 1)]);
        assert!(text[r].starts_with(r#"{"x": 2"#));
        // A path that cannot be followed stops where it can.
        let r = object(text, &[("targets", 7)]);
        assert_eq!(r, 0..text.len());
        assert_eq!(object(text, &[]), 0..text.len());
    }
}
