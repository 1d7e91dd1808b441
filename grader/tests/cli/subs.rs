//! Making submission folders for the tests of `--submission` and `grader grade`, out of
//! the reference solution's files and the lab's mutants.
//!
//! Each test gets a temporary folder of its own, so runs of the suite side by side do not
//! meet. A submission's build is keyed by its files' content, so the same submission in
//! the next run reuses its build instead of adding one: keep what a test writes the same
//! from run to run (pass anything that must differ through the environment).

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use crate::util::kit;

/// The lab's declared files, relative to the student crate.
pub const FILES: [&str; 3] = ["src/breaker.rs", "src/bulkhead.rs", "src/relay.rs"];

/// Where a submission keeps its files.
#[derive(Clone, Copy, Debug)]
pub enum Layout {
    /// A clone of the kit: `crates/relay_base/src/breaker.rs`.
    Kit,
    /// The crate: `src/breaker.rs`.
    Crate,
    /// Just the files: `breaker.rs`.
    Flat,
}

impl Layout {
    /// Where declared file `file` (`src/breaker.rs`) goes.
    pub fn place(self, file: &str) -> PathBuf {
        match self {
            Layout::Kit => Path::new("crates/relay_base").join(file),
            Layout::Crate => PathBuf::from(file),
            Layout::Flat => PathBuf::from(Path::new(file).file_name().expect("a file name")),
        }
    }
}

/// A temporary folder, removed when dropped; it derefs to its path.
pub struct Folder(tempfile::TempDir);

impl Deref for Folder {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Folder {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<OsStr> for Folder {
    fn as_ref(&self) -> &OsStr {
        self.0.path().as_os_str()
    }
}

/// An empty temporary folder for `test` (the name shows in the folder's name).
pub fn folder(test: &str) -> Folder {
    Folder(
        tempfile::Builder::new()
            .prefix(&format!("grader-{test}-"))
            .tempdir()
            .expect("a temporary folder"),
    )
}

/// The reference solution's version of declared file `file`.
pub fn reference(file: &str) -> String {
    let path = kit().join("solutions/lab4").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The reference's files with mutant `name`'s edits applied (`labs/lab4/mutants/`).
pub fn mutant(name: &str) -> Vec<(String, String)> {
    let mut files = reference_files();
    apply_mutant("lab4", name, &mut files);
    files
}

/// Applies the edits of `lab`'s mutant `name` (`labs/<lab>/mutants/<name>.json`) to `files`.
pub fn apply_mutant(lab: &str, name: &str, files: &mut [(String, String)]) {
    let path = kit()
        .join("labs")
        .join(lab)
        .join("mutants")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).expect("read the mutant");
    let mutant: serde_json::Value = serde_json::from_str(&text).expect("a mutant is JSON");
    for e in mutant["edits"].as_array().expect("edits") {
        let file = e["file"].as_str().expect("file");
        let find = e["find"].as_str().expect("find");
        let replace = e["replace"].as_str().expect("replace");
        edit(files, file, find, replace);
    }
}

/// `files` with `find` replaced by `replace` in `file`; `find` must occur there once.
pub fn edit(files: &mut [(String, String)], file: &str, find: &str, replace: &str) {
    let entry = files
        .iter_mut()
        .find(|(f, _)| f == file)
        .expect("an edit of a declared file");
    assert_eq!(entry.1.matches(find).count(), 1, "{file}: {find}");
    entry.1 = entry.1.replacen(find, replace, 1);
}

/// The reference's three files.
pub fn reference_files() -> Vec<(String, String)> {
    FILES
        .iter()
        .map(|f| ((*f).to_owned(), reference(f)))
        .collect()
}

/// Writes `files` (declared path, content) into `dir` in `layout`.
pub fn write(dir: &Path, layout: Layout, files: &[(String, String)]) {
    for (file, text) in files {
        let path = dir.join(layout.place(file));
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create folder");
        std::fs::write(&path, text).expect("write a submission file");
    }
}

/// `files` with `code` put at the start of the body of the first `fn_start` (such as
/// `pub fn new(`) in `file`.
pub fn inject(files: &mut [(String, String)], file: &str, fn_start: &str, code: &str) {
    let entry = files
        .iter_mut()
        .find(|(f, _)| f == file)
        .expect("a declared file");
    let at = entry.1.find(fn_start).expect("the function");
    let body = at + entry.1[at..].find('{').expect("its body") + 1;
    entry.1.insert_str(body, &format!("\n{code}\n"));
}

/// The JSON report on standard output.
pub fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "one JSON object on stdout ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Each scenario's name and status in a JSON report.
pub fn statuses(report: &serde_json::Value) -> Vec<(String, String)> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().expect("name").to_owned(),
                s["status"].as_str().expect("status").to_owned(),
            )
        })
        .collect()
}

/// SHA-256 in lowercase hex.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What `sha256sum FILES... | sha256sum` prints for these files: the documented
/// student-files hash.
pub fn listing_hash(files: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = files.iter().collect();
    sorted.sort();
    let listing: String = sorted
        .iter()
        .map(|(f, t)| format!("{}  {f}\n", sha256(t.as_bytes())))
        .collect();
    sha256(listing.as_bytes())
}

/// A lab's declared files, as `lab.json` lists them.
fn declared(lab: &str) -> Vec<String> {
    let text = std::fs::read_to_string(kit().join("labs").join(lab).join("lab.json"))
        .expect("read lab.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("lab.json is JSON");
    manifest["student_files"]
        .as_array()
        .expect("student_files")
        .iter()
        .map(|f| f.as_str().expect("a path").to_owned())
        .collect()
}

/// The reference's declared files of any lab (as `lab.json` lists them, without the unit
/// tests students do not have), with mutant `mutant`'s edits when given.
pub fn lab_files(lab: &str, mutant: Option<&str>) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = declared(lab)
        .into_iter()
        .map(|f| {
            let path = kit().join("solutions").join(lab).join(&f);
            let text = std::fs::read_to_string(&path).expect("read the reference");
            // The reference keeps its unit tests in files students do not have.
            (f, text.replace("#[cfg(test)]\nmod tests;\n", ""))
        })
        .collect();
    if let Some(name) = mutant {
        let path = kit()
            .join("labs")
            .join(lab)
            .join("mutants")
            .join(format!("{name}.json"));
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON");
        for e in m["edits"].as_array().expect("edits") {
            let (file, find, replace) = (
                e["file"].as_str().expect("file"),
                e["find"].as_str().expect("find"),
                e["replace"].as_str().expect("replace"),
            );
            edit(&mut files, file, find, replace);
        }
    }
    files
}
