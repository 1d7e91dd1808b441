//! Which seeds a lab's generated scenarios come from: practice seeds, published (1 to
//! `lab.json`'s `generated.practice`), and graded seeds, which only the instructors' kit
//! has (`labs/<lab>/generated_seeds.json`, left out of the student edition like
//! everything `grader release` does not list).

use std::path::PathBuf;

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Pos, describe_json_error};
use crate::error::Error;
use crate::lab::{GeneratedSettings, Lab};

/// The file of the seeds graded in CI, in the lab's folder.
pub const GRADED_FILE: &str = "generated_seeds.json";
/// The folder of the published practice scenarios in the student edition, in the lab's
/// folder: ordinary scenario files whose expectations the reference filled in when the
/// edition was made.
pub const PRACTICE_DIR: &str = "generated";

/// `generated_seeds.json`: the seeds graded in CI, `from` to `from + count - 1`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GradedFile {
    format_version: u32,
    /// The first seed.
    from: u64,
    /// How many.
    count: u64,
}

/// A lab's generated scenarios: how they score and which seeds they come from.
#[derive(Clone, Debug)]
pub struct Seeds {
    /// `lab.json`'s `generated`.
    pub settings: GeneratedSettings,
    /// The seeds graded in CI, when this kit has them (the instructors' kit).
    pub graded: Option<std::ops::Range<u64>>,
}

impl Seeds {
    /// The lab's, or `None` for a lab without generated scenarios. A graded-seeds file
    /// that cannot be read is an error placed in it.
    pub fn of(lab: &Lab) -> Result<Option<Seeds>, Error> {
        let Some(settings) = lab.manifest.generated.clone() else {
            return Ok(None);
        };
        let path = graded_path(lab);
        let graded = if path.symlink_metadata().is_ok() {
            Some(read_graded(lab, &path)?)
        } else {
            None
        };
        Ok(Some(Seeds { settings, graded }))
    }

    /// The seeds published for practice.
    pub fn practice(&self) -> std::ops::Range<u64> {
        1..self.settings.practice.saturating_add(1)
    }

    /// How many graded seeds there are, and their points (none outside the instructors'
    /// kit).
    pub fn graded_points(&self) -> (usize, u32) {
        let n = self.graded.clone().map_or(0, |r| r.count());
        let points = u32::try_from(n)
            .unwrap_or(u32::MAX)
            .saturating_mul(self.settings.points);
        (n, points)
    }
}

/// Where a lab's graded seeds are.
pub fn graded_path(lab: &Lab) -> PathBuf {
    lab.dir.join(GRADED_FILE)
}

/// Where a student edition keeps its practice scenarios.
pub fn practice_dir(lab: &Lab) -> PathBuf {
    lab.dir.join(PRACTICE_DIR)
}

fn read_graded(lab: &Lab, path: &std::path::Path) -> Result<std::ops::Range<u64>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
    let shown = crate::lab::kit::shown_path(&lab.kit, path);
    let file: GradedFile = serde_json::from_str(&text).map_err(|e| {
        let pos = Pos {
            line: e.line(),
            col: e.column(),
        };
        Error::Invalid(vec![
            Diagnostic::at(&shown, pos, describe_json_error(&e))
                .help("write {\"format_version\": 1, \"from\": FIRST_SEED, \"count\": HOW_MANY}"),
        ])
    })?;
    let problem = if file.format_version != 1 {
        Some(format!(
            "format_version {} is not supported; this grader reads version 1",
            file.format_version
        ))
    } else if file.count == 0 {
        Some("count is 0: CI grading would add no generated scenario".to_owned())
    } else if file.from.checked_add(file.count).is_none() {
        Some(format!(
            "seeds from {} on run past the largest number",
            file.from
        ))
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(Error::Invalid(vec![Diagnostic::file(&shown, problem)]));
    }
    Ok(file.from..file.from + file.count)
}

/// What is wrong with a lab's generated scenarios, before any is drawn: a category that
/// is not the lab's, no points, a plug-in without a generator.
pub fn problems(lab: &Lab, seeds: Option<&Seeds>) -> Vec<Diagnostic> {
    let Some(seeds) = seeds else {
        return Vec::new();
    };
    let path = lab.dir.join("lab.json");
    let shown = crate::lab::kit::shown_path(&lab.kit, &path);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let at = crate::scenario::load::key_pos(&text, 0, text.len(), "generated");
    let mut problems = Vec::new();
    let g = &seeds.settings;
    if lab.category(&g.category).is_none() {
        problems.push(
            Diagnostic::at(&shown, at, format!("generated scenarios score in `{}`, which is not one of the lab's categories", g.category))
                .help("add it to \"categories\" (last, so generated scenarios are reported last), or name one that is there"),
        );
    }
    if g.points == 0 {
        problems.push(
            Diagnostic::at(
                &shown,
                at,
                "generated scenarios are worth 0 points: they would change no grade",
            )
            .help("give them 1 point or more each"),
        );
    }
    let defaults = crate::scenario::settings::resolve(lab, &std::collections::BTreeMap::new());
    if !matches!(lab.plugin.generate(1, &defaults), Ok(Some(_))) {
        problems.push(
            Diagnostic::at(
                &shown,
                at,
                format!(
                    "{} has generated scenarios, but its plug-in draws none",
                    lab.manifest.name
                ),
            )
            .help("implement Plugin::generate in the lab's plug-in, or remove \"generated\""),
        );
    }
    problems
}
