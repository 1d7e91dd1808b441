//! Scenarios the whole audit shows to add nothing it can see: every mutant such a
//! scenario catches, one other scenario catches too. It may still check a rule no mutant
//! breaks yet; then the mutant that only it catches is missing. Told as notes: they do not
//! fail the audit.

use super::model::{Column, Role, caught};

/// One note per scenario that catches nothing another scenario does not also catch
/// (smoke scenarios, which are not meant to catch anything, left out): first those that
/// catch exactly what another one catches (of two, the later is named), then those that
/// catch less than another one, each in the audit's order.
pub fn notes(scenarios: &[(String, bool)], columns: &[Column]) -> Vec<String> {
    let mutants: Vec<&Column> = columns
        .iter()
        .filter(|c| c.role == Role::Mutant && c.compile_errors.is_none())
        .collect();
    let catches: Vec<Vec<&str>> = scenarios
        .iter()
        .map(|(name, _)| {
            mutants
                .iter()
                .filter(|c| caught(c, name))
                .map(|c| c.name.as_str())
                .collect()
        })
        .collect();
    let mut twins = Vec::new();
    let mut narrower = Vec::new();
    for (i, (name, smoke)) in scenarios.iter().enumerate() {
        let mine = &catches[i];
        if *smoke || mine.is_empty() {
            continue;
        }
        // The other scenario that catches the most, among those that catch all it does.
        let wider = (0..scenarios.len())
            .filter(|&j| j != i && mine.iter().all(|m| catches[j].contains(m)))
            .filter(|&j| catches[j].len() > mine.len() || j < i)
            .max_by_key(|&j| (catches[j].len(), std::cmp::Reverse(j)));
        let Some(j) = wider else {
            continue;
        };
        let other = &scenarios[j].0;
        let mutants = grader_lab::quantity(mine.len() as u64, "mutant");
        if catches[j].len() == mine.len() {
            twins.push(format!(
                "{name} catches exactly what {other} catches ({mutants}: {})",
                mine.join(", ")
            ));
        } else {
            narrower.push(format!(
                "{name}: {other} catches all it catches ({mutants}) and {} more",
                catches[j].len() - mine.len()
            ));
        }
    }
    // Twins first: the audit cannot tell them apart at all.
    twins.extend(narrower);
    twins
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;
    use std::collections::BTreeMap;

    /// A crate of `role` that fails exactly the scenarios `failing` of `all`, once each.
    fn column(name: &str, role: Role, failing: &[&str], all: &[&str]) -> Column {
        let verdict = |s: &&str| match failing.contains(s) {
            true => Status::Failed,
            false => Status::Passed,
        };
        let runs: BTreeMap<String, Vec<Status>> = all
            .iter()
            .map(|s| (s.to_string(), vec![verdict(s)]))
            .collect();
        Column {
            name: name.into(),
            title: String::new(),
            role,
            runs,
            compile_errors: None,
            caught_once_because: None,
            start_here: None,
            start_here_elsewhere_because: None,
            rule: None,
        }
    }

    #[test]
    fn a_scenario_another_one_covers_is_named_once() {
        let names = ["wide", "narrow", "twin", "own", "smoke"];
        let scenarios: Vec<(String, bool)> = names
            .iter()
            .map(|n| ((*n).to_owned(), *n == "smoke"))
            .collect();
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column(
                "m1",
                Role::Mutant,
                &["wide", "narrow", "twin", "smoke"],
                &names,
            ),
            column("m2", Role::Mutant, &["wide", "twin"], &names),
            column("m3", Role::Mutant, &["own"], &names),
        ];
        assert_eq!(
            notes(&scenarios, &columns),
            [
                "twin catches exactly what wide catches (2 mutants: m1, m2)",
                "narrow: wide catches all it catches (1 mutant) and 1 more",
            ]
        );
    }

    #[test]
    fn a_scenario_with_a_mutant_of_its_own_is_not_named() {
        let names = ["a", "b"];
        let scenarios: Vec<(String, bool)> =
            names.iter().map(|n| ((*n).to_owned(), false)).collect();
        let columns = [
            column("m1", Role::Mutant, &["a", "b"], &names),
            column("m2", Role::Mutant, &["a"], &names),
            column("m3", Role::Mutant, &["b"], &names),
        ];
        assert!(notes(&scenarios, &columns).is_empty());
    }
}
