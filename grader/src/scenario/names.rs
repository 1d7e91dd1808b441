//! Scenario names: each is the name of one file only, across a lab's published and
//! hidden scenarios and any draft checked or run beside them, because reports,
//! `--scenario NAME` and mutants' `caught_by` find a scenario by it. Names are read from
//! files whether or not the rest of the file is valid.

use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;
use crate::lab::Lab;

/// The name a scenario file gives itself, and where.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The name.
    pub name: String,
    /// The file, as shown.
    pub path: PathBuf,
    /// Where its `name` key is.
    pub at: Pos,
}

/// The name `text` (a scenario file shown as `shown`) gives itself, and where.
pub fn claim(text: &str, shown: &Path) -> Option<Claim> {
    let top = super::recover::members(text, 0..text.len())?;
    let m = top.iter().find(|m| m.key == "name")?;
    let name: String = serde_json::from_str(&text[m.value.clone()]).ok()?;
    Some(Claim {
        name,
        path: shown.to_path_buf(),
        at: Pos::of_offset(text, m.key_start),
    })
}

/// Names of `claims` (of loose files at `paths`) used twice among them or by one of the
/// lab's published or hidden scenarios (other than these files).
pub fn clashes(lab: &Lab, paths: &[PathBuf], claims: &[Claim]) -> Result<Vec<Diagnostic>, Error> {
    let lab_files = lab.scenario_files()?.all();
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let others: Vec<PathBuf> = lab_files
        .into_iter()
        .filter(|f| !paths.iter().any(|p| same(p, f)))
        .collect();
    let mut published = Vec::new();
    for path in &others {
        let shown = crate::lab::kit::shown_path(&lab.kit, path);
        if let Some(c) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| claim(&text, &shown))
        {
            published.push(c);
        }
    }
    Ok(duplicates(claims, &published))
}

/// Claims of `these` whose name is already used by an earlier one, or by one of
/// `others`; each reported at its `name`.
pub fn duplicates(these: &[Claim], others: &[Claim]) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (i, s) in these.iter().enumerate() {
        let first = others.iter().chain(&these[..i]).find(|e| e.name == s.name);
        let Some(first) = first else {
            continue;
        };
        problems.push(
            Diagnostic::at(
                &s.path,
                s.at,
                format!(
                    "the name `{}` is already used by {}",
                    s.name,
                    first.path.display()
                ),
            )
            .help("give every scenario its own name: it is how reports, `--scenario` and mutants' caught_by find it"),
        );
    }
    problems
}
