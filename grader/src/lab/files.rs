//! Finding a lab's files: the one place every command lists a lab's scenario and mutant
//! files and its alternatives' folders. A folder that cannot be read is an error, never
//! an empty list; a lab without a published scenario, or with an empty `hidden/`, is a
//! broken lab.

use std::path::{Path, PathBuf};

use super::Lab;
use crate::error::Error;

/// A lab's scenario files.
#[derive(Clone, Debug)]
pub struct ScenarioFiles {
    /// `scenarios/*.json`, sorted.
    pub visible: Vec<PathBuf>,
    /// `hidden/*.json`, sorted; none in the student edition, which has no `hidden/`.
    pub hidden: Vec<PathBuf>,
    /// Whether the lab has a `hidden/` folder (the instructors' edition).
    pub has_hidden: bool,
}

impl ScenarioFiles {
    /// Visible, then hidden.
    pub fn all(&self) -> Vec<PathBuf> {
        self.visible.iter().chain(&self.hidden).cloned().collect()
    }
}

impl Lab {
    /// The lab's scenario files. `scenarios/` must hold at least one; `hidden/` may be
    /// absent (the student edition), but not empty or unreadable.
    pub fn scenario_files(&self) -> Result<ScenarioFiles, Error> {
        let visible_dir = self.scenarios_dir();
        if !visible_dir.exists() {
            return Err(self.broken(&visible_dir, "the folder of published scenarios is missing"));
        }
        let visible = json_files(&visible_dir)?;
        if visible.is_empty() {
            return Err(self.broken(&visible_dir, "there are no scenario files (*.json) here"));
        }
        let hidden_dir = self.hidden_dir();
        let has_hidden = hidden_dir.symlink_metadata().is_ok();
        let hidden = if has_hidden {
            let hidden = json_files(&hidden_dir)?;
            if hidden.is_empty() {
                return Err(self.broken(
                    &hidden_dir,
                    "there are no scenario files (*.json) here; remove the folder if the lab has no hidden scenarios",
                ));
            }
            hidden
        } else {
            Vec::new()
        };
        Ok(ScenarioFiles {
            visible,
            hidden,
            has_hidden,
        })
    }

    /// The lab's mutant files; none when it has no `mutants/` (the student edition).
    pub fn mutant_files(&self) -> Result<Vec<PathBuf>, Error> {
        let dir = self.dir.join("mutants");
        if dir.symlink_metadata().is_err() {
            return Ok(Vec::new());
        }
        json_files(&dir)
    }

    /// The folders of the lab's correct alternatives, sorted; none when it has no
    /// `alternatives/` (the student edition). Any other entry in that folder is skipped.
    pub fn alternative_folders(&self) -> Result<Vec<PathBuf>, Error> {
        let dir = self.alternatives_dir();
        if dir.symlink_metadata().is_err() {
            return Ok(Vec::new());
        }
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::io("read the folder", &dir, e))?;
        let mut folders = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read the folder", &dir, e))?;
            let path = entry.path();
            let meta = std::fs::metadata(&path).map_err(|e| Error::io("read", &path, e))?;
            if meta.is_dir() {
                folders.push(path);
            }
        }
        folders.sort();
        Ok(folders)
    }

    fn broken(&self, dir: &Path, why: &str) -> Error {
        Error::BrokenLab {
            lab: self.manifest.name.clone(),
            place: super::kit::shown_path(&self.kit, dir),
            why: why.to_owned(),
        }
    }
}

/// The `*.json` files directly in `dir`, sorted. A folder that cannot be read, or an
/// entry whose type cannot be told, is an error.
pub fn json_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io("read the folder", dir, e))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read the folder", dir, e))?;
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let meta = std::fs::metadata(&path).map_err(|e| Error::io("read", &path, e))?;
        if meta.is_file() {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}
