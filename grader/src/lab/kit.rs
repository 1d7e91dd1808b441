//! Finding the kit: the folder that holds `Cargo.toml`, `labs/` and the crates.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// The kit root: `explicit` if given, else the nearest folder at or above the current
/// directory that holds both `Cargo.toml` and `labs/`.
pub fn find(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(dir) = explicit {
        return if is_kit(dir) {
            dir.canonicalize()
                .map_err(|e| Error::io("open the kit folder", dir, e))
        } else {
            Err(Error::KitNotFound {
                from: dir.to_path_buf(),
            })
        };
    }
    let cwd = std::env::current_dir().map_err(|e| Error::io("read", Path::new("."), e))?;
    cwd.ancestors()
        .find(|dir| is_kit(dir))
        .map(Path::to_path_buf)
        .ok_or(Error::KitNotFound { from: cwd })
}

fn is_kit(dir: &Path) -> bool {
    dir.join("Cargo.toml").is_file() && dir.join("labs").is_dir()
}

/// `path` relative to the kit when it is inside it, for messages people read.
pub fn shown_path(kit: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(kit)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}
