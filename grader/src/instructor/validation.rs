//! Checking whole labs and loose files without running any code: what `grader validate`
//! does, and what `grader audit` and `grader release` insist on before they start.
//!
//! Every file is read in full and every problem is collected, each placed at its line and
//! column, so one run lists everything to fix. A lab is checked as a whole: its manifest,
//! each scenario file in `scenarios/` and `hidden/` (see [`crate::scenario::validate`]),
//! names unique across both folders, points that add up to `total_points`, each mutant
//! in `mutants/` (it parses, names scenarios that exist, and its edits still apply to the
//! reference solution), and each correct alternative in `alternatives/` (see
//! [`crate::instructor::alternatives`]).

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

pub use super::mutant_checks::{MUTANT_FORMAT_VERSION, mutant};
use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;
use crate::lab::Lab;
use crate::scenario::load::{self, key_pos};
use crate::scenario::names::{self, Claim};
use crate::scenario::{Scenario, Visibility};
use grader_lab::quantity;

/// What was checked, for the one-line summary.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Scenario files in `scenarios/`.
    pub visible: usize,
    /// Scenario files in `hidden/`.
    pub hidden: usize,
    /// Points of every scenario that could be read, and of the generated scenarios
    /// graded in CI.
    pub points: u32,
    /// Points of the generated scenarios graded in CI (instructors' kit).
    pub generated: u32,
    /// How many generated scenarios are graded in CI (instructors' kit).
    pub generated_scenarios: usize,
    /// Mutant files.
    pub mutants: usize,
    /// Folders of correct alternatives.
    pub alternatives: usize,
    /// Whether the lab has instructor material (`hidden/` or `mutants/`); a student
    /// edition has neither.
    pub instructor_edition: bool,
}

/// Everything found about one lab.
#[derive(Clone, Debug)]
pub struct LabReport {
    /// The lab's name.
    pub name: String,
    /// What was checked.
    pub counts: Counts,
    /// Every problem with the lab's files, in file order.
    pub problems: Vec<Diagnostic>,
    /// `total_points` disagrees with the scenarios. Kept apart because it does not stop
    /// an audit: a scenario's points do not change what it catches.
    pub points: Option<Diagnostic>,
    /// Where the handout disagrees with the lab's data, and the handout fixed. Kept apart
    /// for the same reason.
    pub handout: super::handout::Findings,
}

impl LabReport {
    /// The one-line summary: `lab4: 34 scenarios (31 visible, 3 hidden), 142 points, 17
    /// mutants, 5 alternatives: all valid`, or the number of problems.
    pub fn summary(&self) -> String {
        let c = &self.counts;
        let generated = if c.generated_scenarios > 0 {
            format!(
                " and {} graded in CI",
                quantity(c.generated_scenarios as u64, "generated scenario")
            )
        } else {
            String::new()
        };
        let mut text = format!(
            "{}: {} ({} visible, {} hidden){generated}, {}, {}, {}",
            self.name,
            quantity((c.visible + c.hidden) as u64, "scenario"),
            c.visible,
            c.hidden,
            quantity(c.points, "point"),
            quantity(c.mutants as u64, "mutant"),
            quantity(c.alternatives as u64, "alternative"),
        );
        match self.all_problems().len() {
            0 => text.push_str(": all valid"),
            n => text.push_str(&format!(": {}", quantity(n as u64, "problem"))),
        }
        text
    }
}

impl LabReport {
    /// Every problem, `total_points` included.
    pub fn all_problems(&self) -> Vec<Diagnostic> {
        let mut all = self.problems.clone();
        all.extend(self.points.clone());
        all.extend(self.handout.problems.iter().cloned());
        all
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The error that stops a command because of `problems`: each problem, then how many
/// there were and that nothing was `done` ("released", "audited").
pub fn refusal(problems: &[Diagnostic], done: &str) -> crate::error::Error {
    let mut text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let n = problems.len();
    text.push(format!(
        "{n} problem{} found; nothing was {done}. Fix the file{} above and run again.",
        plural(n),
        plural(n)
    ));
    crate::error::Error::Usage(text.join("\n"))
}

pub use crate::lab::files::json_files;

/// The `*.json` files in `dir` and in every folder below it (dot-folders and `target`
/// left out), sorted, and how many of them sit in a sub-folder: `grader validate FOLDER`
/// reads them all, and its summary says how many came from below.
pub fn json_files_within(dir: &std::path::Path) -> Result<(Vec<PathBuf>, usize), Error> {
    let mut files = json_files(dir)?;
    let top = files.len();
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io("read the folder", dir, e))?;
    let mut folders = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read the folder", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry
            .file_type()
            .map_err(|e| Error::io("read", &entry.path(), e))?;
        // A link to a folder is not followed: it could lead back up.
        if kind.is_dir() && !name.starts_with('.') && name != "target" {
            folders.push(entry.path());
        }
    }
    folders.sort();
    for folder in folders {
        files.extend(json_files_within(&folder)?.0);
    }
    let below = files.len() - top;
    files.sort();
    Ok((files, below))
}

/// Scenario files read from disk: the ones that parsed and passed their own checks, the
/// names of every file (from the name inside, or the file name when it did not parse),
/// and the problems.
#[derive(Default)]
pub struct Loaded {
    /// Valid scenarios.
    pub scenarios: Vec<Scenario>,
    /// Every name a scenario file claims, so that a reference to a file with a problem
    /// is not reported a second time as unknown.
    pub names: BTreeSet<String>,
    /// The name each file claims where it could be read, with where: names are checked
    /// against each other whether or not the rest of the file is valid.
    pub claims: Vec<Claim>,
    /// Problems with single files.
    pub problems: Vec<Diagnostic>,
}

/// Reads and checks each scenario file on its own (not against each other).
pub fn load_scenarios(lab: &Lab, paths: &[PathBuf]) -> Loaded {
    let mut loaded = Loaded::default();
    for path in paths {
        let shown = crate::lab::kit::shown_path(&lab.kit, path);
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                loaded
                    .problems
                    .push(Diagnostic::file(&shown, format!("cannot read it: {e}")));
                continue;
            }
        };
        let claimed = names::claim(&text, &shown);
        loaded.claims.extend(claimed.clone());
        match load::parse(lab, &text, &shown) {
            Ok(s) => {
                loaded.names.insert(s.name.clone());
                loaded.scenarios.push(s);
            }
            Err(mut problems) => {
                let name = claimed
                    .map(|c| c.name)
                    .or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()));
                loaded.names.extend(name);
                loaded.problems.append(&mut problems);
            }
        }
    }
    loaded
}

/// Checks a whole lab: manifest, scenarios, hidden scenarios, points, mutants and
/// alternatives. `Err` when its folders cannot be read or it has no scenarios: a broken
/// lab.
pub fn lab(lab: &Lab) -> Result<LabReport, Error> {
    let mut problems = manifest_problems(lab);
    let files = lab.scenario_files()?;
    let (visible_files, hidden_files) = (&files.visible, &files.hidden);
    let all_files = files.all();
    let mut loaded = load_scenarios(lab, &all_files);
    let files_ok = loaded.problems.is_empty();
    problems.append(&mut loaded.problems);
    problems.extend(names::duplicates(&loaded.claims, &[]));
    let mutants_dir = crate::instructor::mutants::dir(lab);
    let mutant_files = lab.mutant_files()?;
    let alternatives = lab.alternative_folders()?;
    let seeds = match crate::generate::Seeds::of(lab) {
        Ok(seeds) => seeds,
        Err(Error::Invalid(mut found)) => {
            problems.append(&mut found);
            None
        }
        Err(e) => return Err(e),
    };
    problems.extend(crate::generate::seeds::problems(lab, seeds.as_ref()));
    let (generated_n, generated) = seeds.as_ref().map_or((0, 0), |s| s.graded_points());
    let counts = Counts {
        visible: visible_files.len(),
        hidden: hidden_files.len(),
        points: loaded.scenarios.iter().map(|s| s.points).sum::<u32>() + generated,
        generated,
        generated_scenarios: generated_n,
        mutants: mutant_files.len(),
        alternatives: alternatives.len(),
        instructor_edition: files.has_hidden || mutants_dir.is_dir(),
    };
    let points = if files_ok {
        points_problem(lab, &loaded.scenarios, &counts)
    } else {
        None
    };
    // A handout is checked against the lab's data only when all of it could be read.
    let handout = if files_ok {
        let facts = super::handout::Facts::of(lab, &loaded.scenarios, counts.instructor_edition)
            .with_generated(generated_n as u64, u64::from(generated));
        super::handout::check(lab, &facts)
    } else {
        super::handout::Findings::default()
    };
    let mut mutant_names: HashMap<String, PathBuf> = HashMap::new();
    for path in &mutant_files {
        let (name, mut found) = mutant(lab, path, &loaded.scenarios, &loaded.names);
        problems.append(&mut found);
        if let Some(name) = name {
            let shown = crate::lab::kit::shown_path(&lab.kit, path);
            if let Some(first) = mutant_names.get(&name) {
                problems.push(
                    Diagnostic::file(
                        &shown,
                        format!(
                            "the mutant name `{name}` is already used by {}",
                            first.display()
                        ),
                    )
                    .help("give every mutant its own name"),
                );
            } else {
                mutant_names.insert(name, shown);
            }
        }
    }
    for folder in &alternatives {
        if let Err(mut found) = crate::instructor::alternatives::read(lab, folder) {
            problems.append(&mut found);
        }
    }
    Ok(LabReport {
        name: lab.manifest.name.clone(),
        counts,
        problems,
        points,
        handout,
    })
}

/// The manifest's own consistency: unique category ids and target names, sane defaults.
fn manifest_problems(lab: &Lab) -> Vec<Diagnostic> {
    let path = lab.dir.join("lab.json");
    let shown = crate::lab::kit::shown_path(&lab.kit, &path);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut problems = Vec::new();
    let m = &lab.manifest;
    let at = |needle: &str, nth: usize| -> Pos {
        let mut from = 0;
        for _ in 0..nth {
            match text[from..].find(needle) {
                Some(i) => from += i + needle.len(),
                None => break,
            }
        }
        match text[from..].find(needle) {
            Some(i) => Pos::of_offset(&text, from + i),
            None => key_pos(&text, 0, text.len(), "format_version"),
        }
    };
    let folder = lab
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if m.name != folder {
        problems.push(
            Diagnostic::at(
                &shown,
                key_pos(&text, 0, text.len(), "name"),
                format!(
                    "the lab is named `{}`, but its folder is labs/{folder}",
                    m.name
                ),
            )
            .help(format!(
                "`grader check` finds a lab by its folder, and reports name it by this: set \"name\": \"{folder}\", or rename the folder"
            )),
        );
    }
    let mut seen = BTreeSet::new();
    for c in &m.categories {
        if !seen.insert(c.id.as_str()) {
            problems.push(
                Diagnostic::at(
                    &shown,
                    at(&format!("\"{}\"", c.id), 1),
                    format!("the category id `{}` is used twice", c.id),
                )
                .help("give every category its own id"),
            );
        }
    }
    let noun = lab.plugin.target_noun();
    let mut seen = BTreeSet::new();
    for t in &m.targets {
        if !seen.insert(t.name.as_str()) {
            problems.push(
                Diagnostic::at(
                    &shown,
                    at(&format!("\"{}\"", t.name), 1),
                    format!("the {noun} `{}` is listed twice", t.name),
                )
                .help(format!("give every {noun} its own name")),
            );
        }
        let place = at(&format!("\"{}\"", t.name), 0);
        let settings = serde_json::Value::Object(t.settings.clone());
        match lab.plugin.read_settings(&settings) {
            Ok(found) => {
                for (_, message) in found {
                    problems.push(Diagnostic::at(
                        &shown,
                        place,
                        format!("the {noun} `{}`: {message}", t.name),
                    ));
                }
            }
            Err(e) => {
                // The one field whose value does not fit, worded as its rule.
                let culprit = t.settings.iter().find(|(key, _)| {
                    let mut zero = t.settings.clone();
                    zero.insert((*key).clone(), serde_json::Value::from(0u64));
                    lab.plugin
                        .read_settings(&serde_json::Value::Object(zero))
                        .is_ok()
                });
                let why = match culprit {
                    Some((key, value)) => {
                        crate::scenario::settings::value_problem(lab, &t.settings, key, value, &e)
                    }
                    None => crate::diagnostic::describe_json_error(&e),
                };
                problems.push(Diagnostic::at(
                    &shown,
                    place,
                    format!(
                        "the settings of the {noun} `{}` are not {}'s: {why}",
                        t.name, m.name
                    ),
                ));
            }
        }
    }
    let l = &m.limits;
    let min_memory = crate::run::runner::MIN_MEMORY_MB;
    for (key, wrong, rule) in [
        ("timeout_ms", l.timeout_ms == 0, "at least 1".to_owned()),
        (
            "stuck_after_ms",
            l.stuck_after_ms == 0,
            "at least 1".to_owned(),
        ),
        (
            "cpu_seconds",
            l.cpu_seconds == Some(0),
            "at least 1 (or leave it out)".to_owned(),
        ),
        (
            "memory_mb",
            l.memory_mb.is_some_and(|mb| mb < min_memory),
            format!(
                "at least {min_memory}, below which no scenario's process can start its threads (or leave it out)"
            ),
        ),
    ] {
        if wrong {
            problems.push(Diagnostic::at(
                &shown,
                key_pos(&text, 0, text.len(), key),
                format!("the limit {key} must be {rule}"),
            ));
        }
    }
    let program = lab.kit.join(&m.harness).join(lab.plugin.harness().program);
    if !program.is_file() {
        problems.push(
            Diagnostic::at(
                &shown,
                key_pos(&text, 0, text.len(), "harness"),
                format!(
                    "there is no harness program {}",
                    crate::lab::kit::shown_path(&lab.kit, &program).display()
                ),
            )
            .help("`harness` names the lab's harness crate, relative to the kit"),
        );
    }
    for (key, empty) in [
        ("categories", m.categories.is_empty()),
        ("targets", m.targets.is_empty()),
    ] {
        if empty {
            problems.push(Diagnostic::at(
                &shown,
                key_pos(&text, 0, text.len(), key),
                format!("the lab has no {key}"),
            ));
        }
    }
    problems
}

/// `total_points` against the scenarios' points. A student edition has no hidden
/// scenarios, so there the visible ones only must not add up to more.
fn points_problem(lab: &Lab, scenarios: &[Scenario], counts: &Counts) -> Option<Diagnostic> {
    let total = lab.manifest.total_points;
    let sum = counts.points;
    let fine = if counts.instructor_edition {
        sum == total
    } else {
        sum <= total
    };
    if fine {
        return None;
    }
    let path = lab.dir.join("lab.json");
    let shown = crate::lab::kit::shown_path(&lab.kit, &path);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let hidden: u32 = scenarios
        .iter()
        .filter(|s| s.visibility == Visibility::Hidden)
        .map(|s| s.points)
        .sum();
    Some(
        Diagnostic::at(
            &shown,
            key_pos(&text, 0, text.len(), "total_points"),
            format!(
                "total_points is {total}, but the scenarios add up to {sum} ({} visible, {hidden} hidden{})",
                sum - hidden - counts.generated,
                if counts.generated > 0 {
                    format!(", {} generated", counts.generated)
                } else {
                    String::new()
                }
            ),
        )
        .help(format!(
            "set \"total_points\": {sum}, or change the points of the scenarios"
        )),
    )
}

/// Checks loose scenario files of `lab` (a draft, or a few files of its folders): each
/// on its own, then their names against each other and against the lab's other scenarios.
pub fn scenario_files(
    lab: &Lab,
    paths: &[PathBuf],
) -> Result<(Vec<Scenario>, Vec<Diagnostic>), Error> {
    let mut loaded = load_scenarios(lab, paths);
    let mut problems = std::mem::take(&mut loaded.problems);
    problems.extend(names::clashes(lab, paths, &loaded.claims)?);
    Ok((loaded.scenarios, problems))
}

/// Checks loose mutant files of `lab` against its scenarios and reference solution.
pub fn mutant_files(lab: &Lab, paths: &[PathBuf]) -> Result<Vec<Diagnostic>, Error> {
    let lab_files = lab.scenario_files()?.all();
    let loaded = load_scenarios(lab, &lab_files);
    let mut problems = Vec::new();
    for path in paths {
        let (_, mut found) = mutant(lab, path, &loaded.scenarios, &loaded.names);
        problems.append(&mut found);
    }
    Ok(problems)
}
