//! Which generated scenarios a grading adds, and where they come from: filled in on the
//! fly from the reference in the instructors' kit, read from their files in a student
//! edition or a Gradescope bundle (which have no reference).

use std::io::Write;

use super::{Oracle, Seeds, seeds};
use crate::error::Error;
use crate::grade::{RunOptions, Selection};
use crate::lab::Lab;
use crate::scenario::{Scenario, load};

/// The generated scenarios a grading asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    /// Practice seeds (`--generated`): the first N, or all of them with `Some(None)`.
    pub practice: Option<Option<u64>>,
    /// The seeds graded in CI (a submission's grading).
    pub graded: bool,
    /// Seeds named one by one (`--scenario gen_17`).
    pub named: Vec<u64>,
}

impl Wanted {
    /// Whether anything is asked for.
    pub fn any(&self) -> bool {
        self.practice.is_some() || self.graded || !self.named.is_empty()
    }
}

/// Splits the names of `--scenario` into those of generated scenarios (`gen_17`, in a lab
/// that generates them) and the rest.
pub fn split_names(lab: &Lab, names: &[String]) -> (Vec<String>, Vec<u64>) {
    if lab.manifest.generated.is_none() {
        return (names.to_vec(), Vec::new());
    }
    let mut rest = Vec::new();
    let mut seeds = Vec::new();
    for n in names {
        match super::seed_of(n) {
            Some(seed) => seeds.push(seed),
            None => rest.push(n.clone()),
        }
    }
    (rest, seeds)
}

/// Whether this kit fills generated scenarios in on the fly: it has the reference.
pub fn on_the_fly(lab: &Lab) -> bool {
    lab.kit.join(&lab.manifest.solution_crate).is_dir()
}

/// Adds the generated scenarios `wanted` asks for to `selection`, after its own (they
/// score in the lab's generated category, the last). Returns the oracle when the
/// reference filled them in, for shrinking what fails. Scenarios already in the
/// selection (a bundle's graded files in `hidden/`) are not added twice.
pub fn add(
    lab: &Lab,
    selection: &mut Selection,
    wanted: &Wanted,
    opts: &RunOptions,
    progress: &mut dyn Write,
) -> Result<Option<Oracle>, Error> {
    let Some(seeds) = Seeds::of(lab)? else {
        if wanted.practice.is_some() || !wanted.named.is_empty() {
            return Err(Error::Usage(format!(
                "{} has no generated scenarios (its lab.json has no \"generated\")",
                lab.manifest.name
            )));
        }
        return Ok(None);
    };
    if !wanted.any() {
        return Ok(None);
    }
    let mut list: Vec<(u64, bool)> = Vec::new();
    if let Some(first) = wanted.practice {
        let practice = seeds.practice();
        let end = first.map_or(practice.end, |n| practice.end.min(n.saturating_add(1)));
        list.extend((practice.start..end).map(|s| (s, false)));
    }
    if wanted.graded {
        list.extend(
            seeds
                .graded
                .clone()
                .into_iter()
                .flatten()
                .map(|s| (s, true)),
        );
    }
    for &seed in &wanted.named {
        let graded = seeds.graded.as_ref().is_some_and(|r| r.contains(&seed));
        list.push((seed, graded));
    }
    list.retain(|(seed, _)| {
        let name = super::name(*seed);
        !selection.scenarios.iter().any(|s| s.name == name)
    });
    let mut seen = std::collections::BTreeSet::new();
    list.retain(|(seed, _)| seen.insert(*seed));
    if list.is_empty() {
        return Ok(None);
    }
    if !on_the_fly(lab) {
        if wanted.graded && seeds.graded.is_some() {
            return Err(Error::BrokenLab {
                lab: lab.manifest.name.clone(),
                place: crate::lab::kit::shown_path(&lab.kit, &seeds::graded_path(lab)),
                why: "this kit has the seeds graded in CI but no reference solution to fill them in; a kit without the reference gets them as files in hidden/".to_owned(),
            });
        }
        selection.scenarios.extend(published(lab, &seeds, &list)?);
        return Ok(None);
    }
    let oracle = Oracle::build(lab, opts, selection.limits, progress)?;
    let _ = writeln!(
        progress,
        "filling in {} generated scenario{} from the reference ...",
        list.len(),
        if list.len() == 1 { "" } else { "s" }
    );
    let points = seeds.settings.points;
    let category = seeds.settings.category.clone();
    let filled = super::each(&list, opts.jobs, |&(seed, hidden)| {
        oracle.seed(seed, hidden, points, &category)
    });
    for f in filled {
        selection.scenarios.push(f?.scenario);
    }
    Ok(Some(oracle))
}

/// The published practice scenarios of `list` in a kit without the reference: their
/// files, which `grader release` wrote. A seed without one was not published.
fn published(lab: &Lab, seeds: &Seeds, list: &[(u64, bool)]) -> Result<Vec<Scenario>, Error> {
    let dir = seeds::practice_dir(lab);
    let mut paths = Vec::new();
    for (seed, _) in list {
        let path = dir.join(format!("{}.json", super::name(*seed)));
        if !path.is_file() {
            let practice = seeds.practice();
            return Err(Error::Usage(format!(
                "there is no generated scenario {} in this copy of the kit: the published ones are gen_{} to gen_{}, in {}",
                super::name(*seed),
                practice.start,
                practice.end.saturating_sub(1),
                crate::lab::kit::shown_path(&lab.kit, &dir).display()
            )));
        }
        paths.push(path);
    }
    load::load_files(lab, &paths).map_err(Error::Invalid)
}

/// Counts the graded seeds a grading without them leaves out with the hidden scenarios
/// not run, so the report says they will run when a submission is graded.
pub fn note_not_run(lab: &Lab, selection: &mut Selection) -> Result<(), Error> {
    let Some(seeds) = Seeds::of(lab)? else {
        return Ok(());
    };
    let (n, points) = seeds.graded_points();
    if n > 0 && selection.hidden_not_run > 0 {
        selection.hidden_not_run += n;
        selection.hidden_points_not_run += points;
    }
    Ok(())
}

/// The scenarios a grading runs, generated ones included: the lab's (with its hidden ones
/// when `with_hidden`), narrowed to `names` when given (`gen_N` names a generated one),
/// then the generated scenarios asked for: the practice seeds (`practice`, as
/// `--generated` says) and, for a submission's grading without `--scenario` (unless
/// `graded` is false), the seeds graded in CI. Returns the oracle when the reference
/// filled some in.
pub fn choose(
    lab: &Lab,
    with_hidden: bool,
    names: &[String],
    practice: Option<Option<u64>>,
    graded: bool,
    opts: &RunOptions,
    progress: &mut dyn Write,
) -> Result<(Selection, Option<Oracle>), Error> {
    let (rest, named) = split_names(lab, names);
    let mut selection = crate::grade::select(lab, with_hidden, &rest)?;
    if rest.is_empty() && !named.is_empty() {
        // Only generated scenarios were named.
        selection.scenarios.clear();
        selection.hidden_not_run = 0;
        selection.hidden_points_not_run = 0;
    }
    if !with_hidden {
        note_not_run(lab, &mut selection)?;
    }
    let wanted = Wanted {
        practice,
        graded: graded && with_hidden && names.is_empty(),
        named,
    };
    let oracle = add(lab, &mut selection, &wanted, opts, progress)?;
    Ok((selection, oracle))
}
