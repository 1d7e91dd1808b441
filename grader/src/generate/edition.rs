//! Generated scenarios as files, for the copies of the kit that have no reference to fill
//! them in: the student edition gets the published practice seeds
//! (`labs/<lab>/generated/`), a Gradescope bundle the seeds graded in CI (its
//! `labs/<lab>/hidden/`, where they are hidden scenarios like any other). Each file is
//! the scenario the instructors' kit fills in on the fly for the same seed.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Oracle, Seeds, seeds};
use crate::error::Error;
use crate::grade::RunOptions;
use crate::lab::Lab;

/// Which seeds to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The published practice seeds, visible.
    Practice,
    /// The seeds graded in CI, hidden.
    Graded,
}

/// Fills in `which` seeds of `lab` from its reference and writes each as
/// `<dir>/gen_<seed>.json`; the paths written, in seed order. Nothing for a lab without
/// generated scenarios. `dir` is created if need be.
pub fn write(
    lab: &Lab,
    which: Which,
    dir: &Path,
    opts: &RunOptions,
    progress: &mut dyn Write,
) -> Result<Vec<PathBuf>, Error> {
    let Some(seeds) = Seeds::of(lab)? else {
        return Ok(Vec::new());
    };
    let list: Vec<u64> = match which {
        Which::Practice => seeds.practice().collect(),
        Which::Graded => seeds.graded.clone().into_iter().flatten().collect(),
    };
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let oracle = Oracle::build(lab, opts, crate::grade::limits(lab), progress)?;
    let points = seeds.settings.points;
    let category = seeds.settings.category.clone();
    let hidden = which == Which::Graded;
    let filled = super::each(&list, opts.jobs, |&seed| {
        oracle.seed(seed, hidden, points, &category)
    });
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut written = Vec::new();
    for (seed, f) in list.iter().zip(filled) {
        let path = dir.join(format!("{}.json", super::name(*seed)));
        std::fs::write(&path, f?.text).map_err(|e| Error::io("write", &path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// Where `which` files go in a copy of the kit rooted at `root`.
pub fn folder(lab: &Lab, which: Which, root: &Path) -> PathBuf {
    let lab_dir = root.join("labs").join(&lab.manifest.name);
    match which {
        Which::Practice => lab_dir.join(seeds::PRACTICE_DIR),
        Which::Graded => lab_dir.join("hidden"),
    }
}
