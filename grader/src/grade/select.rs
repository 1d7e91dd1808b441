//! Which scenarios a grading runs: the lab's visible ones, hidden ones when submissions
//! are graded, or the few asked for by name or path; in report order.

use std::path::Path;

use crate::diagnostic::did_you_mean;
use crate::error::Error;
use crate::lab::Lab;
use crate::run::runner::Limits;
use crate::scenario::{Scenario, load, names};

/// The scenarios to run, how many hidden ones were left out, and the lab's limits on
/// each scenario's process.
pub struct Selection {
    /// The scenarios, in report order.
    pub scenarios: Vec<Scenario>,
    /// Hidden scenarios present but not selected.
    pub hidden_not_run: usize,
    /// Points of the hidden scenarios not selected. In the student edition the hidden
    /// files are absent, so this is what the lab's total has beyond the visible ones.
    pub hidden_points_not_run: u32,
    /// CPU time and memory limits for each scenario's process, from the lab.
    pub limits: Limits,
}

/// The lab's CPU time and memory limits per scenario.
pub fn limits(lab: &Lab) -> Limits {
    let l = &lab.manifest.limits;
    Limits {
        cpu_seconds: l.cpu_seconds,
        memory_bytes: l.memory_mb.map(|mb| mb.saturating_mul(1024 * 1024)),
    }
}

/// A scenario file named by its path: checked as any of the lab's files is, and its name
/// must not be another scenario's, or reports and mutants would mix the two up.
fn draft(lab: &Lab, path: &Path) -> Result<Scenario, Error> {
    let mut loaded = load::load_files(lab, &[path.to_path_buf()]).map_err(Error::Invalid)?;
    let shown = crate::lab::kit::shown_path(&lab.kit, path);
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
    let claims: Vec<_> = names::claim(&text, &shown).into_iter().collect();
    let clashes = names::clashes(lab, &[path.to_path_buf()], &claims)?;
    if !clashes.is_empty() {
        return Err(Error::Invalid(clashes));
    }
    loaded.pop().ok_or_else(|| Error::Invalid(Vec::new()))
}

/// Loads the lab's scenarios: visible ones, plus hidden ones when `with_hidden`, narrowed
/// to `only` (names or paths of scenario files) when it is not empty.
pub fn select(lab: &Lab, with_hidden: bool, only: &[String]) -> Result<Selection, Error> {
    let files = lab.scenario_files()?;
    let mut scenarios = load::load_files(lab, &files.visible).map_err(Error::Invalid)?;
    let mut hidden_not_run = 0;
    let mut hidden_points_not_run = 0;
    // Hidden scenarios not graded here, which can still be asked for by name.
    let mut by_name_only = Vec::new();
    if files.has_hidden {
        let hidden = load::load_files(lab, &files.hidden).map_err(Error::Invalid)?;
        if with_hidden {
            scenarios.extend(hidden);
        } else {
            by_name_only = hidden.clone();
            hidden_not_run = hidden.len();
            hidden_points_not_run = hidden.iter().map(|s| s.points).sum();
        }
    } else {
        let visible: u32 = scenarios.iter().map(|s| s.points).sum();
        hidden_points_not_run = lab.manifest.total_points.saturating_sub(visible);
        // A student edition counts the hidden scenarios it does not ship.
        if let Some(known) = crate::lab::edition::Edition::load(&lab.kit)?
            .and_then(|e| e.lab(&lab.manifest.name).cloned())
        {
            hidden_not_run = known.hidden_scenarios;
        }
    }
    let problems = crate::scenario::validate::check_set(&scenarios);
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    if !only.is_empty() {
        let mut chosen = Vec::new();
        for wanted in only {
            let path = Path::new(wanted);
            if wanted.ends_with(".json") && path.is_file() {
                let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                chosen.push(draft(lab, &abs)?);
                continue;
            }
            match scenarios
                .iter()
                .chain(&by_name_only)
                .find(|s| &s.name == wanted)
            {
                Some(s) => chosen.push(s.clone()),
                None => {
                    let mut msg =
                        format!("there is no scenario `{wanted}` in {}", lab.manifest.name);
                    let known = scenarios.iter().chain(&by_name_only);
                    match did_you_mean(wanted, known.map(|s| s.name.as_str())) {
                        Some(close) => msg.push_str(&format!("\n  help: did you mean `{close}`?")),
                        None => msg.push_str(&format!(
                            "\n  help: `grader list {}` shows every scenario; a path to a .json file runs that file",
                            lab.manifest.name
                        )),
                    }
                    return Err(Error::Usage(msg));
                }
            }
        }
        scenarios = chosen;
        hidden_not_run = 0;
        hidden_points_not_run = 0;
    }
    let order = |s: &Scenario| {
        lab.manifest
            .categories
            .iter()
            .position(|c| c.id == s.category)
            .unwrap_or(usize::MAX)
    };
    // By category, visible before hidden, then by file.
    let hidden = |s: &Scenario| s.visibility == crate::scenario::Visibility::Hidden;
    scenarios.sort_by(|a, b| {
        (order(a), hidden(a))
            .cmp(&(order(b), hidden(b)))
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(Selection {
        scenarios,
        hidden_not_run,
        hidden_points_not_run,
        limits: limits(lab),
    })
}
