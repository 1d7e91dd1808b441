//! Checking whole labs and loose files without running any code: what `grader validate`
//! does, and what `grader audit` and `grader release` insist on before they start.
//!
//! Every file is read in full and every problem is collected, each placed at its line and
//! column, so one run lists everything to fix. A lab is checked as a whole: its manifest,
//! each scenario file in `scenarios/` and `hidden/` (see [`crate::scenario::validate`]),
//! names unique across both folders, points that add up to `total_points`, each mutant
//! in `mutants/` (it parses, names scenarios that exist, and its edits still apply to the
//! reference solution), and each correct alternative in `alternatives/` (see
//! [`crate::alternatives`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Pos, did_you_mean};
use crate::lab::Lab;
use crate::mutants::Mutant;
use crate::scenario::load::{self, key_pos};
use crate::scenario::{Scenario, Visibility};

/// The mutant file format version this grader reads.
pub const MUTANT_FORMAT_VERSION: u32 = 1;

/// What was checked, for the one-line summary.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Scenario files in `scenarios/`.
    pub visible: usize,
    /// Scenario files in `hidden/`.
    pub hidden: usize,
    /// Points of every scenario that could be read.
    pub points: u32,
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
}

impl LabReport {
    /// The one-line summary: `lab4: 34 scenarios (31 visible, 3 hidden), 142 points, 17
    /// mutants, 5 alternatives: all valid`, or the number of problems.
    pub fn summary(&self) -> String {
        let c = &self.counts;
        let mut text = format!(
            "{}: {} scenario{} ({} visible, {} hidden), {} points, {} mutant{}, {} alternative{}",
            self.name,
            c.visible + c.hidden,
            plural(c.visible + c.hidden),
            c.visible,
            c.hidden,
            c.points,
            c.mutants,
            plural(c.mutants),
            c.alternatives,
            plural(c.alternatives),
        );
        match self.problems.len() + usize::from(self.points.is_some()) {
            0 => text.push_str(": all valid"),
            n => text.push_str(&format!(": {n} problem{}", plural(n))),
        }
        text
    }
}

impl LabReport {
    /// Every problem, `total_points` included.
    pub fn all_problems(&self) -> Vec<Diagnostic> {
        let mut all = self.problems.clone();
        all.extend(self.points.clone());
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

/// The scenario files (`*.json`) directly in `dir`, sorted; none if it does not exist.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
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
    /// Problems with single files.
    pub problems: Vec<Diagnostic>,
}

/// Reads and checks each scenario file on its own (not against each other).
pub fn load_scenarios(lab: &Lab, paths: &[PathBuf]) -> Loaded {
    let mut loaded = Loaded::default();
    for path in paths {
        let shown = crate::kit::shown_path(&lab.kit, path);
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                loaded
                    .problems
                    .push(Diagnostic::file(&shown, format!("cannot read it: {e}")));
                continue;
            }
        };
        match load::parse(lab, &text, &shown) {
            Ok(s) => {
                loaded.names.insert(s.name.clone());
                loaded.scenarios.push(s);
            }
            Err(mut problems) => {
                let name = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v["name"].as_str().map(str::to_owned))
                    .or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()));
                loaded.names.extend(name);
                loaded.problems.append(&mut problems);
            }
        }
    }
    loaded
}

/// Checks a whole lab: manifest, scenarios, hidden scenarios, points and mutants.
pub fn lab(lab: &Lab) -> LabReport {
    let mut problems = manifest_problems(lab);
    let visible_files = json_files(&lab.scenarios_dir());
    let hidden_files = json_files(&lab.hidden_dir());
    let all_files: Vec<PathBuf> = visible_files.iter().chain(&hidden_files).cloned().collect();
    let mut loaded = load_scenarios(lab, &all_files);
    let files_ok = loaded.problems.is_empty();
    problems.append(&mut loaded.problems);
    problems.extend(duplicates(lab, &loaded.scenarios, &[]));
    let mutants_dir = crate::mutants::dir(lab);
    let mutant_files = json_files(&mutants_dir);
    let alternatives = crate::alternatives::folders(lab);
    let counts = Counts {
        visible: visible_files.len(),
        hidden: hidden_files.len(),
        points: loaded.scenarios.iter().map(|s| s.points).sum(),
        mutants: mutant_files.len(),
        alternatives: alternatives.len(),
        instructor_edition: lab.hidden_dir().is_dir() || mutants_dir.is_dir(),
    };
    if visible_files.is_empty() {
        let shown = crate::kit::shown_path(&lab.kit, &lab.scenarios_dir());
        problems.push(
            Diagnostic::file(&shown, "there are no scenario files (*.json) here")
                .help("a lab needs at least one visible scenario"),
        );
    }
    let points = if files_ok {
        points_problem(lab, &loaded.scenarios, &counts)
    } else {
        None
    };
    let mut mutant_names: HashMap<String, PathBuf> = HashMap::new();
    for path in &mutant_files {
        let (name, mut found) = mutant(lab, path, &loaded.scenarios, &loaded.names);
        problems.append(&mut found);
        if let Some(name) = name {
            let shown = crate::kit::shown_path(&lab.kit, path);
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
        if let Err(mut found) = crate::alternatives::read(lab, folder) {
            problems.append(&mut found);
        }
    }
    LabReport {
        name: lab.manifest.name.clone(),
        counts,
        problems,
        points,
    }
}

/// The manifest's own consistency: unique category ids and target names, sane defaults.
fn manifest_problems(lab: &Lab) -> Vec<Diagnostic> {
    let path = lab.dir.join("lab.json");
    let shown = crate::kit::shown_path(&lab.kit, &path);
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
    let mut seen = BTreeSet::new();
    for t in &m.targets {
        if !seen.insert(t.name.as_str()) {
            problems.push(
                Diagnostic::at(
                    &shown,
                    at(&format!("\"{}\"", t.name), 1),
                    format!("the target `{}` is listed twice", t.name),
                )
                .help("give every target its own name"),
            );
        }
        if t.failure_threshold == 0 || t.max_concurrent == 0 {
            problems.push(Diagnostic::at(
                &shown,
                at(&format!("\"{}\"", t.name), 0),
                format!(
                    "the target `{}` needs a failure_threshold and a max_concurrent of at least 1",
                    t.name
                ),
            ));
        }
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
    let shown = crate::kit::shown_path(&lab.kit, &path);
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
                "total_points is {total}, but the scenarios add up to {sum} ({} visible, {hidden} hidden)",
                sum - hidden
            ),
        )
        .help(format!(
            "set \"total_points\": {sum}, or change the points of the scenarios"
        )),
    )
}

/// Checks one mutant file; returns its name when it could be read.
pub fn mutant(
    lab: &Lab,
    path: &Path,
    scenarios: &[Scenario],
    names: &BTreeSet<String>,
) -> (Option<String>, Vec<Diagnostic>) {
    let shown = crate::kit::shown_path(&lab.kit, path);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            return (
                None,
                vec![Diagnostic::file(&shown, format!("cannot read it: {e}"))],
            );
        }
    };
    let m: Mutant = match serde_json::from_str(&text) {
        Ok(m) => m,
        Err(e) => return (None, vec![load::json_error(&shown, &text, &e)]),
    };
    let mut problems = Vec::new();
    let top = |key: &str| key_pos(&text, 0, text.len(), key);
    if m.format_version != MUTANT_FORMAT_VERSION {
        problems.push(
            Diagnostic::at(
                &shown,
                top("format_version"),
                format!(
                    "format_version {} is not supported; this grader reads version {MUTANT_FORMAT_VERSION}",
                    m.format_version
                ),
            )
            .help(format!("set \"format_version\": {MUTANT_FORMAT_VERSION}")),
        );
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if m.name != stem {
        problems.push(
            Diagnostic::at(
                &shown,
                top("name"),
                format!(
                    "the mutant is named `{}`, but its file is {stem}.json",
                    m.name
                ),
            )
            .help(format!(
                "rename the file to {}.json, or set \"name\": \"{stem}\"",
                m.name
            )),
        );
    }
    for (key, value) in [("title", &m.title), ("mistake", &m.mistake)] {
        if value.trim().is_empty() {
            problems.push(Diagnostic::at(
                &shown,
                top(key),
                format!("the {key} is empty"),
            ));
        }
    }
    let caught_by_at = text.find("\"caught_by\"").unwrap_or(0);
    if m.caught_by.is_empty() {
        problems.push(
            Diagnostic::at(&shown, top("caught_by"), "caught_by is empty")
                .help("name the scenarios that must fail on this mutant"),
        );
    }
    for name in &m.caught_by {
        let pos = key_pos(&text, caught_by_at, text.len(), name);
        if !names.contains(name) {
            let help = match did_you_mean(name, names.iter().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("`grader list {}` shows every scenario", lab.manifest.name),
            };
            problems.push(
                Diagnostic::at(
                    &shown,
                    pos,
                    format!("caught_by names `{name}`, but there is no such scenario"),
                )
                .help(help),
            );
        } else if scenarios.iter().any(|s| &s.name == name && s.smoke) {
            problems.push(
                Diagnostic::at(
                    &shown,
                    pos,
                    format!(
                        "caught_by names `{name}`, which is marked \"smoke\": no known bug is expected to fail it"
                    ),
                )
                .help("remove \"smoke\": true from the scenario, or the name from caught_by"),
            );
        }
    }
    if let Some(why) = &m.caught_once_because {
        let at = top("caught_once_because");
        if why.trim().is_empty() {
            problems.push(
                Diagnostic::at(&shown, at, "caught_once_because is empty")
                    .help("say why one scenario catching this mutant is enough, or remove the key"),
            );
        } else if m.caught_by.len() > 1 {
            problems.push(
                Diagnostic::at(
                    &shown,
                    at,
                    format!(
                        "caught_by names {} scenarios, so caught_once_because does not apply",
                        m.caught_by.len()
                    ),
                )
                .help(
                    "remove caught_once_because: it is for mutants that only one scenario catches",
                ),
            );
        }
    }
    problems.extend(edit_problems(lab, &m, &text, &shown));
    (Some(m.name), problems)
}

/// Applies the mutant's edits, in order, to a copy of the reference solution's files, and
/// reports each edit that would not apply.
fn edit_problems(lab: &Lab, m: &Mutant, text: &str, shown: &Path) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let edits_at = text.find("\"edits\"").unwrap_or(0);
    if m.edits.is_empty() {
        problems.push(
            Diagnostic::at(
                shown,
                key_pos(text, 0, text.len(), "edits"),
                "there are no edits",
            )
            .help("a mutant is the reference solution with at least one edit"),
        );
        return problems;
    }
    let solution = lab.kit.join(&lab.manifest.solution_crate);
    if !solution.is_dir() {
        problems.push(
            Diagnostic::file(
                shown,
                format!(
                    "the reference solution {} is missing, so the edits cannot be checked",
                    lab.manifest.solution_crate
                ),
            )
            .help("mutants belong in the instructors' kit, next to the reference solution"),
        );
        return problems;
    }
    // Where the n-th occurrence of `"key"` is, from the start of the edits.
    let nth_key = |key: &str, n: usize| -> Pos {
        let needle = format!("\"{key}\"");
        let mut from = edits_at;
        let mut found = edits_at;
        for _ in 0..=n {
            match text[from..].find(&needle) {
                Some(i) => {
                    found = from + i;
                    from = found + needle.len();
                }
                None => break,
            }
        }
        Pos::of_offset(text, found)
    };
    let mut files: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (i, edit) in m.edits.iter().enumerate() {
        let rel = Path::new(&edit.file);
        let under_src = rel.strip_prefix("src").unwrap_or(rel);
        let file = solution.join("src").join(under_src);
        let content = files
            .entry(edit.file.clone())
            .or_insert_with(|| std::fs::read_to_string(&file).ok());
        let Some(content) = content else {
            problems.push(
                Diagnostic::at(
                    shown,
                    nth_key("file", i),
                    format!(
                        "edit {}: the reference solution has no file {}",
                        i + 1,
                        edit.file
                    ),
                )
                .help(format!(
                    "name a file of {} relative to it, such as src/lib.rs",
                    lab.manifest.solution_crate
                )),
            );
            continue;
        };
        if edit.find.is_empty() {
            problems.push(Diagnostic::at(
                shown,
                nth_key("find", i),
                format!("edit {}: the `find` text is empty", i + 1),
            ));
            continue;
        }
        let found = content.matches(&edit.find).count();
        if found != 1 {
            let how = if found == 0 {
                "does not occur".to_owned()
            } else {
                format!("occurs {found} times")
            };
            let place = if i == 0 {
                String::new()
            } else {
                " after the edits before it".to_owned()
            };
            problems.push(
                Diagnostic::at(
                    shown,
                    nth_key("find", i),
                    format!(
                        "edit {}: its `find` text {how} in {}/{}{place}",
                        i + 1,
                        lab.manifest.solution_crate,
                        edit.file
                    ),
                )
                .help(if found == 0 {
                    "copy the text exactly from the reference solution, indentation and line breaks included"
                } else {
                    "make the `find` text longer, so that it names one exact place"
                }),
            );
            continue;
        }
        *content = content.replacen(&edit.find, &edit.replace, 1);
    }
    problems
}

/// Checks loose scenario files of `lab` (a draft, or a few files of its folders): each
/// on its own, then their names against each other and against the lab's other scenarios.
pub fn scenario_files(lab: &Lab, paths: &[PathBuf]) -> (Vec<Scenario>, Vec<Diagnostic>) {
    let mut loaded = load_scenarios(lab, paths);
    let mut problems = std::mem::take(&mut loaded.problems);
    let lab_files: Vec<PathBuf> = json_files(&lab.scenarios_dir())
        .into_iter()
        .chain(json_files(&lab.hidden_dir()))
        .collect();
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let others: Vec<PathBuf> = lab_files
        .into_iter()
        .filter(|f| !paths.iter().any(|p| same(p, f)))
        .collect();
    let existing = load_scenarios(lab, &others);
    problems.extend(duplicates(lab, &loaded.scenarios, &existing.scenarios));
    (loaded.scenarios, problems)
}

/// Scenarios of `these` whose name is already used by an earlier one, or by one of
/// `others`; each reported at its `name`.
fn duplicates(lab: &Lab, these: &[Scenario], others: &[Scenario]) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (i, s) in these.iter().enumerate() {
        let first = others.iter().chain(&these[..i]).find(|e| e.name == s.name);
        let Some(first) = first else {
            continue;
        };
        let text = std::fs::read_to_string(lab.kit.join(&s.path)).unwrap_or_default();
        problems.push(
            Diagnostic::at(
                &s.path,
                key_pos(&text, 0, text.len(), "name"),
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

/// Checks loose mutant files of `lab` against its scenarios and reference solution.
pub fn mutant_files(lab: &Lab, paths: &[PathBuf]) -> Vec<Diagnostic> {
    let lab_files: Vec<PathBuf> = json_files(&lab.scenarios_dir())
        .into_iter()
        .chain(json_files(&lab.hidden_dir()))
        .collect();
    let loaded = load_scenarios(lab, &lab_files);
    let mut problems = Vec::new();
    for path in paths {
        let (_, mut found) = mutant(lab, path, &loaded.scenarios, &loaded.names);
        problems.append(&mut found);
    }
    problems
}
