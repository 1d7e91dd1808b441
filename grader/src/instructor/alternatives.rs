//! Correct solutions written differently from the reference ("alternatives"), which must
//! keep full marks: the proof that the scenarios score the rules, not the reference's
//! way of keeping them.
//!
//! Each lives in its own folder of the lab's instructor material,
//! `labs/<lab>/alternatives/<name>/`: an `alternative.json` naming it and saying how its
//! design differs, and the student's files (`student_files` of `lab.json`) under the same
//! paths as in the student crate. `grader audit` builds each one the way it builds a
//! submission (the pristine student crate with those files put over it) and fails when
//! one of them loses a point. `grader release` never copies the folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::build::Subject;
use crate::build::materialize::{materialize, source_files};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::lab::Lab;
use crate::lab::kit::shown_path;
use crate::scenario::load::{self, key_pos};

/// The format version of `alternative.json` this grader reads.
pub const FORMAT_VERSION: u32 = 1;

/// The file that names an alternative, in its folder.
pub const FILE_NAME: &str = "alternative.json";

/// `alternative.json`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Must be 1.
    pub format_version: u32,
    /// The folder's name: lowercase letters, digits and `_`.
    pub name: String,
    /// The design in a few words; the audit prints it.
    pub title: String,
    /// How it differs from the reference, and which rule it keeps another way.
    pub design: String,
}

/// One alternative, ready to build.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// What `alternative.json` says.
    pub meta: Meta,
    /// Its folder.
    pub dir: PathBuf,
    /// The student's files: path as in `student_files`, and text.
    pub files: Vec<(String, String)>,
}

/// Loads every alternative of `lab`; refuses the lot if one of them has a problem.
pub fn load(lab: &Lab) -> Result<Vec<Alternative>, Error> {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for folder in lab.alternative_folders()? {
        match read(lab, &folder) {
            Ok(alternative) => all.push(alternative),
            Err(mut found) => problems.append(&mut found),
        }
    }
    if problems.is_empty() {
        Ok(all)
    } else {
        Err(Error::Invalid(problems))
    }
}

/// Reads and checks one alternative's folder: its `alternative.json`, and exactly the
/// student's files beside it (a file the grader would not use is a mistake too, since
/// it would silently not be graded).
pub fn read(lab: &Lab, folder: &Path) -> Result<Alternative, Vec<Diagnostic>> {
    let shown_dir = shown_path(&lab.kit, folder);
    let meta_path = folder.join(FILE_NAME);
    let shown = shown_dir.join(FILE_NAME);
    let mut problems = Vec::new();
    let meta = match std::fs::read_to_string(&meta_path) {
        Err(e) => {
            problems.push(
                Diagnostic::file(&shown, format!("cannot read it: {e}")).help(
                    "every alternative's folder has an alternative.json with its name, title and design",
                ),
            );
            None
        }
        Ok(text) => match serde_json::from_str::<Meta>(&text) {
            Err(e) => {
                problems.extend(load::every_json_mistake::<Meta>(&shown, &text, e));
                None
            }
            Ok(meta) => {
                problems.extend(meta_problems(&meta, &text, &shown, folder));
                Some(meta)
            }
        },
    };
    let expected: Vec<&str> = lab
        .manifest
        .student_files
        .iter()
        .map(String::as_str)
        .collect();
    let mut files = Vec::new();
    for rel in &expected {
        let path = folder.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(text) => files.push(((*rel).to_owned(), text)),
            Err(e) => {
                let what = if path.exists() {
                    format!("cannot read it: {e}")
                } else {
                    "this student file is missing".to_owned()
                };
                problems.push(Diagnostic::file(&shown_dir.join(rel), what).help(format!(
                    "an alternative holds every student file: {}",
                    expected.join(", ")
                )));
            }
        }
    }
    let listed = match source_files(folder) {
        Ok(listed) => listed,
        Err(e) => {
            problems.push(
                Diagnostic::file(&shown_dir, format!("cannot list its files: {e}"))
                    .help("make the folder and every folder in it readable"),
            );
            Vec::new()
        }
    };
    for extra in listed {
        let rel = extra.to_string_lossy().replace('\\', "/");
        if rel != FILE_NAME && !expected.contains(&rel.as_str()) {
            problems.push(
                Diagnostic::file(
                    &shown_dir.join(&extra),
                    "this file is not one of the student's files, so it would not be graded",
                )
                .help(format!(
                    "an alternative holds {FILE_NAME} and the student's files ({}), nothing else",
                    expected.join(", ")
                )),
            );
        }
    }
    match meta {
        Some(meta) if problems.is_empty() => Ok(Alternative {
            meta,
            dir: folder.to_path_buf(),
            files,
        }),
        _ => Err(problems),
    }
}

fn meta_problems(meta: &Meta, text: &str, shown: &Path, folder: &Path) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let top = |key: &str| key_pos(text, 0, text.len(), key);
    if meta.format_version != FORMAT_VERSION {
        problems.push(
            Diagnostic::at(
                shown,
                top("format_version"),
                format!(
                    "format_version {} is not supported; this grader reads version {FORMAT_VERSION}",
                    meta.format_version
                ),
            )
            .help(format!("set \"format_version\": {FORMAT_VERSION}")),
        );
    }
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if meta.name != folder_name {
        problems.push(
            Diagnostic::at(
                shown,
                top("name"),
                format!(
                    "the alternative is named `{}`, but its folder is {folder_name}",
                    meta.name
                ),
            )
            .help(format!(
                "rename the folder to {}, or set \"name\": \"{folder_name}\"",
                meta.name
            )),
        );
    }
    for (key, value) in [("title", &meta.title), ("design", &meta.design)] {
        if value.trim().is_empty() {
            problems.push(Diagnostic::at(
                shown,
                top(key),
                format!("the {key} is empty"),
            ));
        }
    }
    problems
}

/// The alternative as a crate to build: the pristine student crate with its files put
/// over it, under the work folder. Compiler messages name the alternative's own files.
pub fn subject(lab: &Lab, work: &Path, alternative: &Alternative) -> Result<Subject, Error> {
    let name = &alternative.meta.name;
    let shown = shown_path(&lab.kit, &alternative.dir);
    materialize(
        lab,
        work,
        &format!("alternative_{name}"),
        &format!("alternative {name}"),
        &lab.manifest.student_crate,
        &shown.display().to_string(),
        |sources: &mut BTreeMap<PathBuf, String>| {
            for (declared, text) in &alternative.files {
                let rel = Path::new(declared);
                let rel = rel.strip_prefix("src").unwrap_or(rel);
                sources.insert(rel.to_path_buf(), text.clone());
            }
            Ok(())
        },
    )
}
