//! What publishing a draft would change. A draft audited on its own passes when the
//! reference and the alternatives pass it and it catches something; but once published,
//! it joins every report, and may become a mutant's "Start here" (the lead the lab's
//! whole audit holds each mutant to). So the draft audit also runs the lab's visible
//! scenarios once on each mutant and works out each mutant's Start here without the
//! drafts and with them, placed where publishing them would put them: a Start here that
//! moves is told, and so is what to do when the whole audit would then refuse it, most
//! often what to write in the mutant's `caught_by` as the draft is published (not
//! before: a `caught_by` may name only scenarios of the lab). Neither fails the draft's
//! audit, which is about the draft.

use super::model::{Column, Role};
use crate::instructor::mutants::Mutant;
use crate::judge::lead::lead;
use crate::lab::Lab;
use crate::report::{Lead, ScenarioResult};
use crate::scenario::Scenario;

/// What publishing the drafts would change for the mutants.
#[derive(Debug, Default)]
pub struct Publishing {
    /// Each mutant whose Start here would move, in words.
    pub notes: Vec<String>,
    /// What to do as they are published, for each move the whole audit would refuse.
    pub to_do: Vec<String>,
}

/// The results of one mutant on the lab's visible scenarios and on the visible drafts.
pub struct Runs<'a> {
    /// The mutant's column.
    pub column: &'a Column,
    /// One result per visible scenario of the lab, in any order.
    pub published: Vec<ScenarioResult>,
    /// One result per visible draft.
    pub drafts: Vec<ScenarioResult>,
}

/// Compares each mutant's Start here without and with the drafts. `published` are the
/// lab's visible scenarios, `drafts` the visible drafts, both in any order.
pub fn publishing(
    lab: &Lab,
    published: &[Scenario],
    drafts: &[Scenario],
    runs: &[Runs<'_>],
    mutants: &[Mutant],
) -> Publishing {
    let mut out = Publishing::default();
    let before = ordered(lab, published.to_vec());
    let after = ordered(
        lab,
        published
            .iter()
            .cloned()
            .chain(drafts.iter().map(|d| as_published(lab, d)))
            .collect(),
    );
    let names: Vec<String> = drafts.iter().map(|d| d.name.clone()).collect();
    for run in runs.iter().filter(|r| r.column.role == Role::Mutant) {
        let Some(mutant) = mutants.iter().find(|m| m.name == run.column.name) else {
            continue;
        };
        let all: Vec<&ScenarioResult> = run.published.iter().chain(&run.drafts).collect();
        let results = |order: &[Scenario]| -> Vec<ScenarioResult> {
            order
                .iter()
                .filter_map(|s| all.iter().find(|r| r.name == s.name).map(|r| (*r).clone()))
                .collect()
        };
        let was = lead(&results(&before), &before);
        let will = lead(&results(&after), &after);
        let moved = match (&was, &will) {
            (Some(a), Some(b)) => a.scenario != b.scenario || a.step != b.step,
            (None, None) => false,
            _ => true,
        };
        if !moved {
            continue;
        }
        let file = crate::lab::kit::shown_path(
            &lab.kit,
            &crate::instructor::mutants::dir(lab).join(format!("{}.json", mutant.name)),
        );
        let draft_words = names.join(", ");
        out.notes.push(format!(
            "publishing {draft_words} would move mutant {}'s Start here from {} to {}",
            mutant.name,
            place(was.as_ref()),
            place(will.as_ref())
        ));
        // The whole audit holds each mutant to a Start here its caught_by names, with the
        // hint; a mutant that says why it cannot is not held to it.
        if !lab.manifest.start_here_audited || mutant.start_here_elsewhere_because.is_some() {
            continue;
        }
        // As the whole audit holds it: a mutant whose rule is known to a Start here that
        // names the rule; any other to a scenario its caught_by names, with its hint.
        let rule = run.column.rule.as_ref();
        let fine = |l: Option<&Lead>| {
            l.is_some_and(|l| match rule {
                Some(rule) => l.rule.as_ref().is_some_and(|r| &r.id == rule),
                None => l.hint.is_some() && mutant.caught_by.contains(&l.scenario),
            })
        };
        if fine(will.as_ref()) || !fine(was.as_ref()) {
            continue;
        }
        if let (Some(rule), Some(l)) = (rule, &will) {
            out.to_do.push(format!(
                "mutant {} breaks rule {rule}, but its report would start at {} naming {}, and the whole audit fails a mutant whose Start here does not name its rule: name the rule for that step in the draft's checks, or sharpen the lab's signs",
                mutant.name,
                place(will.as_ref()),
                l.rule.as_ref().map_or("no rule".to_owned(), |r| format!("rule {}", r.id)),
            ));
            continue;
        }
        let why = "the whole audit fails a mutant whose report does not start at a scenario its caught_by names, with that scenario's hint";
        let to_do = match &will {
            Some(l) if l.hint.is_none() => format!(
                "mutant {}'s report would start at {}, without that scenario's hint (its step {} is outside the steps the hint is about), and {why}: set that scenario's hint_from_step and hint_until_step to take in step {}, or say in {} why it cannot (start_here_elsewhere_because)",
                mutant.name,
                place(will.as_ref()),
                l.step,
                l.step,
                file.display()
            ),
            Some(l) => format!(
                "add \"{}\" to caught_by in {} as you publish {draft_words}: mutant {}'s report would start there, and {why}",
                l.scenario,
                file.display(),
                mutant.name,
            ),
            None => format!(
                "mutant {}'s report would have no Start here, and {why}: say in {} why (start_here_elsewhere_because), or sharpen the scenarios",
                mutant.name,
                file.display()
            ),
        };
        out.to_do.push(to_do);
    }
    out
}

/// `scenario step N (hint)`, or `nowhere`.
fn place(l: Option<&Lead>) -> String {
    match l {
        Some(l) => format!(
            "{} step {} ({})",
            l.scenario,
            l.step,
            if l.hint.is_some() {
                "with its hint"
            } else {
                "without a hint"
            }
        ),
        None => "nowhere".to_owned(),
    }
}

/// A draft as publishing would place it: in the lab's published folder.
fn as_published(lab: &Lab, draft: &Scenario) -> Scenario {
    let file = draft
        .path
        .file_name()
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let mut s = draft.clone();
    s.path = crate::lab::kit::shown_path(&lab.kit, &lab.scenarios_dir()).join(file);
    s
}

/// Scenarios in report order, as the lab's grading orders them: by category, then by
/// file.
fn ordered(lab: &Lab, mut scenarios: Vec<Scenario>) -> Vec<Scenario> {
    let category = |s: &Scenario| {
        lab.manifest
            .categories
            .iter()
            .position(|c| c.id == s.category)
            .unwrap_or(usize::MAX)
    };
    let file = |s: &Scenario| s.path.file_name().map(|f| f.to_os_string());
    scenarios.sort_by(|a, b| {
        category(a)
            .cmp(&category(b))
            .then_with(|| file(a).cmp(&file(b)))
    });
    scenarios
}
