//! Checks of the kit's shape that read its files and need no build: the grader's modules
//! import one another in the order ARCHITECTURE.md lists (`imports`), and the race twins
//! stand on the same crates as the originals they build (`twins`), and every race property a
//! lab can report belongs to one of its rules (`race_rules`).

mod imports;
mod paths;
mod race_rules;
mod twins;

use std::path::PathBuf;

/// The workspace's root folder.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the grader's folder is inside the workspace")
        .to_path_buf()
}
