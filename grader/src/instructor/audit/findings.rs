//! What is wrong with an audit's columns: the rules every role must keep.

use super::model::{Column, Role, caught};
use crate::instructor::mutants::Mutant;

/// What an audit ran: all of the lab's scenarios and mutants, or some.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// Every scenario ran. Otherwise how many of them catch a mutant, and `caught_by`
    /// names that did not run, prove nothing.
    pub all_scenarios: bool,
    /// Every mutant ran. Otherwise a scenario that catches none of them may catch another.
    pub all_mutants: bool,
    /// The lab asks that each mutant's "Start here" names its mistake.
    pub start_here: bool,
}

#[cfg(test)]
impl Scope {
    /// The whole audit.
    pub const WHOLE: Scope = Scope {
        all_scenarios: true,
        all_mutants: true,
        start_here: true,
    };
}

/// Everything wrong, as far as `scope` can tell.
pub fn findings(
    scenarios: &[(String, bool)],
    columns: &[Column],
    mutants: &[Mutant],
    scope: Scope,
) -> Vec<String> {
    let whole = scope.all_scenarios;
    let mut problems = Vec::new();
    for column in columns {
        if let Some(errors) = &column.compile_errors {
            let first = errors.lines().next().unwrap_or("");
            problems.push(format!("{} does not compile: {first}", column.name));
            continue;
        }
        for (name, statuses) in &column.runs {
            if statuses.windows(2).any(|w| w[0] != w[1]) {
                let list: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
                problems.push(format!(
                    "{name} is flaky on {}: its runs gave {}",
                    column.name,
                    list.join(", ")
                ));
            }
        }
    }
    for column in columns.iter().filter(|c| c.role.must_pass()) {
        for (name, _) in scenarios {
            if !caught(column, name) {
                continue;
            }
            problems.push(match column.role {
                Role::Alternative => format!(
                    "the correct alternative {} ({}) fails {name}: the scenario asks for more than the rules, or the alternative has a bug",
                    column.name, column.title
                ),
                _ => format!(
                    "the reference solution fails {name}: fix the scenario or the reference"
                ),
            });
        }
    }
    for column in columns.iter().filter(|c| c.role == Role::Mutant) {
        let Some(mutant) = mutants.iter().find(|m| m.name == column.name) else {
            continue;
        };
        if column.compile_errors.is_some() {
            continue;
        }
        let catching: Vec<&str> = scenarios
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| caught(column, name))
            .collect();
        match (catching.as_slice(), &mutant.caught_once_because) {
            _ if !whole => {}
            ([], _) => problems.push(format!(
                "mutant {} ({}) passes every scenario: nothing catches it",
                column.name, column.title
            )),
            ([only], None) => problems.push(format!(
                "mutant {} ({}) is caught by {only} alone: add a second scenario that catches it, or say in its file why one is enough (caught_once_because)",
                column.name, column.title
            )),
            ([_, _, ..], Some(_)) => problems.push(format!(
                "mutant {} is caught by {} scenarios, but its file says why one is enough: remove caught_once_because",
                column.name,
                catching.len()
            )),
            _ => {}
        }
        if whole && scope.start_here {
            problems.extend(start_here_problem(column, mutant));
        }
        for name in &mutant.caught_by {
            if !scenarios.iter().any(|(s, _)| s == name) {
                if !whole {
                    continue;
                }
                problems.push(format!(
                    "mutant {} names {name} in caught_by, but there is no such scenario",
                    column.name
                ));
            } else if !caught(column, name) {
                problems.push(format!(
                    "mutant {} should be caught by {name}, but passes it",
                    column.name
                ));
            }
        }
    }
    for (name, smoke) in scenarios {
        let catches = columns
            .iter()
            .filter(|c| c.role == Role::Mutant)
            .any(|c| caught(c, name));
        if !catches && !smoke && scope.all_mutants {
            problems.push(format!(
                "{name} catches no mutant: make it sharper, or mark it \"smoke\": true if it only checks that things work"
            ));
        }
    }
    problems
}

/// Whether the report of `column` names its mistake first: its "Start here" names the
/// rule the mutant breaks. A mutant whose rule is not known (its file names none, nor
/// does the first scenario of its `caught_by`) must start at a scenario its `caught_by`
/// names, with that scenario's hint. A mutant that cannot be led there honestly says why
/// (`start_here_elsewhere_because`).
fn start_here_problem(column: &Column, mutant: &Mutant) -> Option<String> {
    let names_it = column
        .start_here
        .as_ref()
        .is_some_and(|l| match &column.rule {
            Some(rule) => l.rule.as_ref().is_some_and(|r| &r.id == rule),
            None => l.hint.is_some() && mutant.caught_by.contains(&l.scenario),
        });
    match (
        &column.start_here,
        names_it,
        &mutant.start_here_elsewhere_because,
    ) {
        (_, true, Some(_)) => Some(format!(
            "mutant {}'s report starts {}, but its file says why it cannot: remove start_here_elsewhere_because",
            column.name,
            match &column.rule {
                Some(rule) => format!("with its rule {rule}"),
                None => "at a scenario its caught_by names, with its hint".to_owned(),
            }
        )),
        (_, true, None) | (_, false, Some(_)) => None,
        (None, false, None) => Some(format!(
            "mutant {}'s report has no \"Start here\": no scenario fails at a step",
            column.name
        )),
        (Some(lead), false, None) => Some(match &column.rule {
            Some(rule) => format!(
                "mutant {} breaks rule {rule}, but its report's Start here names {} at {} step {} ({}): name the rule for that step in the scenario's checks, sharpen the lab's signs, or say in the mutant's file why (start_here_elsewhere_because)",
                column.name,
                match &lead.rule {
                    Some(r) => format!("rule {}", r.id),
                    None => "no rule".to_owned(),
                },
                lead.scenario,
                lead.step,
                lead.action,
            ),
            None if mutant.caught_by.contains(&lead.scenario) => format!(
                "mutant {}'s report starts at {} step {} ({}), a scenario its caught_by names, but without its hint: the step is outside the steps the hint is about (hint_from_step, hint_until_step)",
                column.name, lead.scenario, lead.step, lead.action,
            ),
            None => format!(
                "mutant {}'s report starts at {} step {} ({}) {}, not at a scenario its caught_by names: sharpen the scenarios, or say in its file why (start_here_elsewhere_because)",
                column.name,
                lead.scenario,
                lead.step,
                lead.action,
                if lead.hint.is_some() {
                    "with that scenario's hint"
                } else {
                    "without a hint"
                },
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Lead, Status};

    fn column(name: &str, role: Role, failed: &[&str], scenarios: &[&str]) -> Column {
        Column {
            name: name.into(),
            title: format!("{name} title"),
            role,
            runs: scenarios
                .iter()
                .map(|s| {
                    let status = if failed.contains(s) {
                        Status::Failed
                    } else {
                        Status::Passed
                    };
                    ((*s).to_owned(), vec![status, status])
                })
                .collect(),
            compile_errors: None,
            caught_once_because: None,
            start_here: (role == Role::Mutant)
                .then(|| failed.first().map(|s| lead(s, true)))
                .flatten(),
            rule: None,
            start_here_elsewhere_because: None,
        }
    }

    /// A "Start here" at `scenario`, with its hint or without.
    fn lead(scenario: &str, hint: bool) -> Lead {
        Lead {
            scenario: scenario.into(),
            step: 3,
            at: "00:00:10.000".into(),
            settings: Vec::new(),
            action: "check core_banking".into(),
            expected: "core_banking breaker OPEN".into(),
            observed: "core_banking breaker CLOSED".into(),
            shared_by: 2,
            hint: hint.then(|| "the scenario's hint".into()),
            rule: None,
        }
    }

    fn mutant(name: &str, caught_by: &[&str], once: Option<&str>) -> Mutant {
        Mutant {
            format_version: 1,
            name: name.into(),
            title: format!("{name} title"),
            mistake: String::new(),
            rule: None,
            caught_by: caught_by.iter().map(|s| (*s).to_owned()).collect(),
            caught_once_because: once.map(str::to_owned),
            start_here_elsewhere_because: None,
            generated_misses_because: None,
            edits: Vec::new(),
        }
    }

    fn scenarios(names: &[&str]) -> Vec<(String, bool)> {
        names.iter().map(|n| ((*n).to_owned(), false)).collect()
    }

    #[test]
    fn a_scenario_that_stopped_catching_its_mutant_is_named() {
        let names = ["sharp", "weakened", "other"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("m1", Role::Mutant, &["sharp", "other"], &names),
        ];
        let problems = findings(
            &scenarios(&names),
            &columns,
            &[mutant("m1", &["sharp", "weakened"], None)],
            Scope::WHOLE,
        );
        assert_eq!(
            problems,
            [
                "mutant m1 should be caught by weakened, but passes it",
                "weakened catches no mutant: make it sharper, or mark it \"smoke\": true if it only checks that things work",
            ]
        );
    }

    #[test]
    fn a_verdict_that_changes_between_runs_is_flaky() {
        let names = ["racy", "steady"];
        let mut m1 = column("m1", Role::Mutant, &["racy", "steady"], &names);
        m1.runs
            .insert("racy".into(), vec![Status::Failed, Status::Passed]);
        let columns = [column("reference", Role::Reference, &[], &names), m1];
        let problems = findings(
            &scenarios(&names),
            &columns,
            &[mutant("m1", &["racy"], None)],
            Scope::WHOLE,
        );
        assert_eq!(
            problems,
            ["racy is flaky on m1: its runs gave failed, passed"]
        );
    }

    #[test]
    fn a_correct_alternative_that_loses_a_point_fails_the_audit() {
        let names = ["strict", "fair"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("rwlock", Role::Alternative, &["strict"], &names),
            column("m1", Role::Mutant, &["strict", "fair"], &names),
        ];
        let problems = findings(
            &scenarios(&names),
            &columns,
            &[mutant("m1", &["strict", "fair"], None)],
            Scope::WHOLE,
        );
        assert_eq!(
            problems,
            [
                "the correct alternative rwlock (rwlock title) fails strict: the scenario asks for more than the rules, or the alternative has a bug"
            ]
        );
    }

    #[test]
    fn a_mutant_caught_once_must_say_why_that_is_enough() {
        let names = ["only", "other"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("once", Role::Mutant, &["only"], &names),
            column("explained", Role::Mutant, &["only"], &names),
            column("twice", Role::Mutant, &["only", "other"], &names),
        ];
        let mutants = [
            mutant("once", &["only"], None),
            mutant("explained", &["only"], Some("it needs one exact setting")),
            mutant("twice", &["only"], Some("stale")),
        ];
        let problems = findings(&scenarios(&names), &columns, &mutants, Scope::WHOLE);
        assert_eq!(
            problems,
            [
                "mutant once (once title) is caught by only alone: add a second scenario that catches it, or say in its file why one is enough (caught_once_because)",
                "mutant twice is caught by 2 scenarios, but its file says why one is enough: remove caught_once_because",
            ]
        );
    }

    #[test]
    fn an_audit_of_some_scenarios_does_not_count_catches() {
        let names = ["new"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("caught", Role::Mutant, &["new"], &names),
            column("elsewhere", Role::Mutant, &[], &names),
        ];
        let mutants = [
            mutant("caught", &["new", "old"], None),
            mutant("elsewhere", &["old"], None),
        ];
        assert_eq!(
            findings(
                &scenarios(&names),
                &columns,
                &mutants,
                Scope {
                    all_scenarios: false,
                    all_mutants: true,
                    start_here: true
                }
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            findings(&scenarios(&names), &columns, &mutants, Scope::WHOLE).len(),
            5
        );
    }

    #[test]
    fn an_audit_of_some_mutants_does_not_ask_every_scenario_to_catch_one() {
        let names = ["races", "states"];
        let columns = [
            column("reference", Role::Reference, &[], &names),
            column("racy", Role::Mutant, &["races"], &names),
        ];
        let mutants = [mutant("racy", &["races"], Some("only a race shows it"))];
        let some_mutants = Scope {
            all_scenarios: true,
            all_mutants: false,
            start_here: true,
        };
        assert_eq!(
            findings(&scenarios(&names), &columns, &mutants, some_mutants),
            Vec::<String>::new()
        );
        assert_eq!(
            findings(&scenarios(&names), &columns, &mutants, Scope::WHOLE),
            [
                "states catches no mutant: make it sharper, or mark it \"smoke\": true if it only checks that things work"
            ]
        );
    }

    /// What the whole audit finds about where reports start.
    fn start_here_problems(names: &[&str], columns: &[Column], mutants: &[Mutant]) -> Vec<String> {
        findings(&scenarios(names), columns, mutants, Scope::WHOLE)
            .into_iter()
            .filter(|p| p.contains("Start here") || p.contains("report"))
            .collect()
    }

    #[test]
    fn a_start_here_must_name_the_rule_the_mutant_breaks() {
        let names = ["about_it", "elsewhere"];
        let at = |name: &str, scenario: &str, rule: Option<&str>| {
            let mut c = column(name, Role::Mutant, &names, &names);
            let mut l = lead(scenario, true);
            l.rule = rule.map(|id| crate::report::RuleRef {
                id: id.into(),
                rule: format!("the rule {id}"),
            });
            c.start_here = Some(l);
            c.rule = Some("its_rule".into());
            c
        };
        let columns = [
            column("reference", Role::Reference, &[], &names),
            // Its rule, even at a scenario its caught_by does not name: a side effect.
            at("named", "elsewhere", Some("its_rule")),
            // A scenario its caught_by names, but another rule.
            at("other_rule", "about_it", Some("other")),
            at("no_rule", "about_it", None),
            at("stale", "elsewhere", Some("its_rule")),
        ];
        let mut stale = mutant("stale", &["about_it"], None);
        stale.start_here_elsewhere_because = Some("only a hidden scenario shows it".into());
        let mutants = [
            mutant("named", &["about_it"], None),
            mutant("other_rule", &["about_it"], None),
            mutant("no_rule", &["about_it"], None),
            stale,
        ];
        let problems = start_here_problems(&names, &columns, &mutants);
        assert_eq!(
            problems,
            [
                "mutant other_rule breaks rule its_rule, but its report's Start here names rule other at about_it step 3 (check core_banking): name the rule for that step in the scenario's checks, sharpen the lab's signs, or say in the mutant's file why (start_here_elsewhere_because)",
                "mutant no_rule breaks rule its_rule, but its report's Start here names no rule at about_it step 3 (check core_banking): name the rule for that step in the scenario's checks, sharpen the lab's signs, or say in the mutant's file why (start_here_elsewhere_because)",
                "mutant stale's report starts with its rule its_rule, but its file says why it cannot: remove start_here_elsewhere_because",
            ]
        );
    }

    #[test]
    fn a_start_here_that_does_not_name_the_mistake_is_named() {
        let names = ["about_it", "elsewhere"];
        let at = |name: &str, scenario: &str, hint: bool| {
            let mut c = column(name, Role::Mutant, &names, &names);
            c.start_here = Some(lead(scenario, hint));
            c
        };
        let mut nowhere = column("nowhere", Role::Mutant, &names, &names);
        nowhere.start_here = None;
        let columns = [
            column("reference", Role::Reference, &[], &names),
            at("named", "about_it", true),
            at("wrong_place", "elsewhere", true),
            at("no_hint", "about_it", false),
            at("explained", "elsewhere", true),
            at("stale", "about_it", true),
            nowhere,
        ];
        let with_reason = |name: &str| {
            let mut m = mutant(name, &["about_it"], None);
            m.start_here_elsewhere_because = Some("only a hidden scenario shows it".into());
            m
        };
        let mutants = [
            mutant("named", &["about_it"], None),
            mutant("wrong_place", &["about_it"], None),
            mutant("no_hint", &["about_it"], None),
            with_reason("explained"),
            with_reason("stale"),
            mutant("nowhere", &["about_it"], None),
        ];
        let problems = start_here_problems(&names, &columns, &mutants);
        assert_eq!(
            problems,
            [
                "mutant wrong_place's report starts at elsewhere step 3 (check core_banking) with that scenario's hint, not at a scenario its caught_by names: sharpen the scenarios, or say in its file why (start_here_elsewhere_because)",
                "mutant no_hint's report starts at about_it step 3 (check core_banking), a scenario its caught_by names, but without its hint: the step is outside the steps the hint is about (hint_from_step, hint_until_step)",
                "mutant stale's report starts at a scenario its caught_by names, with its hint, but its file says why it cannot: remove start_here_elsewhere_because",
                "mutant nowhere's report has no \"Start here\": no scenario fails at a step",
            ]
        );
    }
}
