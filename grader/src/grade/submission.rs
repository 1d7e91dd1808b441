//! A student's submission: the lab's declared files, found in a folder, checked, and put
//! over a pristine copy of the kit's student crate.
//!
//! Only the files the lab declares (`student_files` in `lab.json`, such as
//! `src/breaker.rs`) are read from the submission. Everything else in it (the fixtures,
//! the scenarios, the grader, `Cargo.toml`, tests) is ignored, so none of it can change
//! the grade.
//!
//! Where the files are looked for depends on what the folder holds, decided once for the
//! whole folder:
//!
//! 1. it holds the student crate's folder (`crates/<student crate>`): it is a copy of the kit,
//!    and the files are `DIR/crates/<student crate>/src/breaker.rs`, ...;
//! 2. else it holds `src/`: it is the student crate itself, and the files are
//!    `DIR/src/breaker.rs`, ...;
//! 3. else the files lie directly in it: `DIR/breaker.rs`, ...
//!
//! A folder that holds none of these but exactly one sub-folder (as when a student zips
//! the folder rather than its files, and an upload unpacks it) is read through that
//! sub-folder, at most [`MAX_WRAPPING`] levels down, and every message names it.
//!
//! A declared file that is missing, is a symbolic link (or sits below one), is not a
//! regular file, resolves outside the folder, is larger than [`MAX_FILE_BYTES`] or is not
//! UTF-8 text is a [`FileProblem`]: the submission cannot be graded, and the result says
//! which file and why.

use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::lab::Lab;
use crate::report::Report;
use crate::report::provenance::{Provenance, hex};
pub use crate::report::rejected::{COULD_NOT_GRADE, FileProblem, Layout, Rejected};

/// How many folders that wrap nothing but one sub-folder are looked through.
pub const MAX_WRAPPING: usize = 3;

/// The largest declared file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A submission whose declared files were all found and read.
#[derive(Clone, Debug)]
pub struct Submission {
    /// The folder, as given.
    pub given: PathBuf,
    /// The folder, canonical.
    pub dir: PathBuf,
    /// Where its files were found.
    pub layout: Layout,
    /// The sub-folder the files were found in, when the folder only wrapped it
    /// (`lab4/` for an upload of a zipped folder); empty when they were at the top.
    pub found_in: PathBuf,
    /// Each declared file (path relative to the student crate) and its content.
    pub files: Vec<(String, String)>,
}

/// The result of grading one submission folder.
// One per submission, moved a handful of times: boxing the report would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Graded (possibly 0 points for code that does not compile); its provenance is set.
    Graded(Report),
    /// Not graded: a declared file is missing or unsafe to take.
    CouldNotGrade(Rejected),
}

impl Outcome {
    /// Points earned.
    pub fn score(&self) -> u32 {
        match self {
            Outcome::Graded(r) => r.score,
            Outcome::CouldNotGrade(_) => 0,
        }
    }

    /// Points available.
    pub fn max_score(&self) -> u32 {
        match self {
            Outcome::Graded(r) => r.max_score,
            Outcome::CouldNotGrade(r) => r.max_score,
        }
    }

    /// The provenance.
    pub fn provenance(&self) -> Option<&Provenance> {
        match self {
            Outcome::Graded(r) => r.provenance.as_ref(),
            Outcome::CouldNotGrade(r) => r.provenance.as_ref(),
        }
    }
}

/// Checks the lab's declared files: relative paths inside the student crate's `src/`.
/// A lab that breaks this is a broken kit, not a bad submission.
fn declared_files(lab: &Lab) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for f in &lab.manifest.student_files {
        let p = Path::new(f);
        let plain = p.components().all(|c| matches!(c, Component::Normal(_)));
        if !plain || !p.starts_with("src") || p.file_name().is_none() {
            return Err(Error::Invalid(vec![
                Diagnostic::file(
                    &crate::lab::kit::shown_path(&lab.kit, &lab.dir.join("lab.json")),
                    format!("student_files: `{f}` is not a plain path inside the crate's src/"),
                )
                .help("list files relative to the student crate, such as src/lib.rs"),
            ]));
        }
        out.push(f.clone());
    }
    Ok(out)
}

/// Reads the lab's declared files from `dir`. `Ok(Err(_))` is a submission that cannot
/// be graded; `Err(_)` means the folder itself is unusable or the lab is broken.
pub fn collect(lab: &Lab, dir: &Path) -> Result<Result<Submission, Rejected>, Error> {
    let declared = declared_files(lab)?;
    let canonical = match dir.canonicalize() {
        Ok(c) if c.is_dir() => c,
        Ok(_) => {
            return Err(Error::Usage(format!(
                "--submission {}: not a folder\n  help: pass the folder that holds the student's files (a clone of their repository, or a folder of .rs files)",
                dir.display()
            )));
        }
        Err(e) => {
            return Err(Error::Usage(format!(
                "--submission {}: {e}\n  help: pass the folder that holds the student's files (a clone of their repository, or a folder of .rs files)",
                dir.display()
            )));
        }
    };
    let (found_in, root) = unwrap(lab, &canonical, &declared);
    let layout = detect(lab, &root);
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let flat_names: Vec<PathBuf> = declared.iter().map(|d| layout.place(lab, d)).collect();
    for (i, d) in declared.iter().enumerate() {
        let rel = layout.place(lab, d);
        let shown = found_in.join(&rel).display().to_string();
        if layout == Layout::Flat && flat_names[..i].contains(&rel) {
            problems.push(FileProblem {
                file: d.clone(),
                looked_at: shown,
                problem: "two of the lab's files have this name, so they cannot lie side by side: put them in src/ as in the kit".to_owned(),
            });
            continue;
        }
        match read_inside(&root, &rel) {
            Ok(text) => files.push((d.clone(), text)),
            Err(mut problem) => {
                if problem.starts_with("missing") {
                    problem.push_str(&elsewhere(lab, &root, layout, d));
                }
                problems.push(FileProblem {
                    file: d.clone(),
                    looked_at: shown,
                    problem,
                });
            }
        }
    }
    if problems.is_empty() {
        Ok(Ok(Submission {
            given: dir.to_path_buf(),
            dir: canonical,
            layout,
            found_in,
            files,
        }))
    } else {
        Ok(Err(Rejected {
            schema_version: crate::report::SCHEMA_VERSION,
            lab: lab.manifest.name.clone(),
            given: dir.to_path_buf(),
            status: COULD_NOT_GRADE,
            score: 0,
            max_score: 0,
            layout,
            read_as: describe(lab, layout, &found_in),
            problems,
            files,
            provenance: None,
        }))
    }
}

/// The layout in words, with the sub-folder it was found in.
pub fn describe(lab: &Lab, layout: Layout, found_in: &Path) -> String {
    if found_in.as_os_str().is_empty() {
        layout.describe(lab)
    } else {
        format!(
            "{}, found in its sub-folder {}/ (the only thing at the top)",
            layout.describe(lab),
            found_in.display()
        )
    }
}

/// `dir`, or the sub-folder that holds the lab's files when `dir` only wraps it: while a
/// folder holds no layout's files at its top and exactly one sub-folder (dot-folders and
/// `__MACOSX` aside, symbolic links never followed), look inside it. Returns the path
/// from `dir` and the folder to read.
fn unwrap(lab: &Lab, dir: &Path, declared: &[String]) -> (PathBuf, PathBuf) {
    // Whether a folder looks like a submission: a layout's folder, or a lab file (even a
    // symbolic link, which is then refused by name) at its top.
    let holds_files = |folder: &Path| {
        detect(lab, folder) != Layout::Flat
            || declared.iter().any(|d| {
                folder
                    .join(Layout::Flat.place(lab, d))
                    .symlink_metadata()
                    .is_ok()
            })
    };
    let mut found_in = PathBuf::new();
    let mut at = dir.to_path_buf();
    for _ in 0..MAX_WRAPPING {
        if holds_files(&at) {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&at) else {
            break;
        };
        let mut folders = Vec::new();
        let mut others = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "__MACOSX" {
                continue;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(entry.file_name()),
                _ => others += 1,
            }
        }
        let [only] = folders.as_slice() else {
            break;
        };
        if others > 0 && !holds_files(&at.join(only)) {
            // Files beside a folder that does not look like a submission either: leave
            // the layout to say what is missing where.
            break;
        }
        found_in.push(only);
        at.push(only);
    }
    (found_in, at)
}

/// Which layout a folder has (see the module documentation).
pub fn detect(lab: &Lab, dir: &Path) -> Layout {
    // `symlink_metadata`: a symbolic link named like the crate still decides the layout,
    // and is then refused by name rather than silently skipped.
    if dir
        .join(&lab.manifest.student_crate)
        .symlink_metadata()
        .is_ok()
    {
        Layout::Kit
    } else if dir.join("src").symlink_metadata().is_ok() {
        Layout::Crate
    } else {
        Layout::Flat
    }
}

/// Reads `rel` inside `root`, refusing symbolic links anywhere on the way, anything but
/// a regular file, paths that resolve outside `root`, large files and non-UTF-8 text.
fn read_inside(root: &Path, rel: &Path) -> Result<String, String> {
    let mut at = root.to_path_buf();
    let mut walked = PathBuf::new();
    for part in rel.components() {
        let Component::Normal(name) = part else {
            return Err("not a plain relative path".to_owned());
        };
        at.push(name);
        walked.push(name);
        match at.symlink_metadata() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(if walked == rel {
                    "missing".to_owned()
                } else {
                    format!("missing: there is no {}", walked.display())
                });
            }
            Err(e) => return Err(format!("cannot be read: {e}")),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(if walked == rel {
                    "is a symbolic link; submit the file itself".to_owned()
                } else {
                    format!(
                        "{} is a symbolic link; submit real folders and files",
                        walked.display()
                    )
                });
            }
            Ok(_) => {}
        }
    }
    let meta = at
        .symlink_metadata()
        .map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file".to_owned());
    }
    match at.canonicalize() {
        Ok(real) if real.starts_with(root) => {}
        Ok(real) => {
            return Err(format!(
                "resolves to {}, outside the submission folder",
                real.display()
            ));
        }
        Err(e) => return Err(format!("cannot be read: {e}")),
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "is {} bytes; the grader reads files of at most {MAX_FILE_BYTES} bytes",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&at).map_err(|e| format!("cannot be read: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// For a missing file: where else it is, if another layout would have found it.
fn elsewhere(lab: &Lab, root: &Path, layout: Layout, declared: &str) -> String {
    let found: Vec<String> = [Layout::Kit, Layout::Crate, Layout::Flat]
        .into_iter()
        .filter(|l| *l != layout)
        .map(|l| l.place(lab, declared))
        .filter(|p| root.join(p).is_file())
        .map(|p| p.display().to_string())
        .collect();
    match found.first() {
        Some(p) => format!(
            "; it is at {p}, but the grader looks for every file in the same place (see docs/ci.md)"
        ),
        None => String::new(),
    }
}

/// The build key of a submission: a hash of its declared files (path and content), so
/// different code never shares a build, and grading the same code again, from any
/// folder, reuses the build instead of adding one.
pub fn key(files: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = files.iter().collect();
    sorted.sort();
    let mut hasher = Sha256::new();
    for (path, text) in sorted {
        for part in [path.as_bytes(), text.as_bytes()] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    format!("sub_{}", &hex(&hasher.finalize())[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_file_is_read_only_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root, "src/a.rs", "fn a() {}");
        assert_eq!(
            read_inside(&root, Path::new("src/a.rs")).unwrap(),
            "fn a() {}"
        );
        assert_eq!(
            read_inside(&root, Path::new("src/b.rs")).unwrap_err(),
            "missing"
        );
        assert!(
            read_inside(&root, Path::new("lib/b.rs"))
                .unwrap_err()
                .contains("there is no lib")
        );
        assert!(read_inside(&root, Path::new("src")).is_err());
    }

    #[test]
    fn symbolic_links_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(outside.path(), "secret.rs", "x");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.rs"), root.join("src/a.rs"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("lib")).unwrap();
        assert!(
            read_inside(&root, Path::new("src/a.rs"))
                .unwrap_err()
                .contains("symbolic link")
        );
        assert!(
            read_inside(&root, Path::new("lib/secret.rs"))
                .unwrap_err()
                .starts_with("lib is a symbolic link")
        );
    }

    #[test]
    fn keys_differ_per_content_and_are_package_names() {
        let file = |text: &str| vec![("src/a.rs".to_owned(), text.to_owned())];
        let a = key(&file("fn a() {}"));
        assert_ne!(a, key(&file("fn b() {}")));
        assert_eq!(a, key(&file("fn a() {}")));
        // Moving text from one file to the next is a different submission.
        let two = |x: &str, y: &str| {
            vec![
                ("src/a.rs".to_owned(), x.to_owned()),
                ("src/b.rs".to_owned(), y.to_owned()),
            ]
        };
        assert_ne!(key(&two("ab", "c")), key(&two("a", "bc")));
        assert!(
            a.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        );
    }
}
