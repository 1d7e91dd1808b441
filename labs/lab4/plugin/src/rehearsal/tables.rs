//! The page's tables and the summary's lines: the script in words, the figures per phase
//! of the sick dependency, and how requests ended.

use grader_lab::rehearsal::Table;
use lab4_rehearsal_protocol::{Outcome, Script};

use super::expect::ms;
use super::figures::Figures;

/// The script, target by target.
pub fn script(s: &Script) -> Table {
    let rows = s
        .targets
        .iter()
        .map(|t| {
            let phases: Vec<String> = t
                .spans(s.duration_s)
                .iter()
                .map(|(from, to, p)| {
                    let latency = p
                        .latency_ms
                        .map(|l| format!(", answers after {}", ms(l)))
                        .unwrap_or_default();
                    format!("{from:.1}–{to:.1} s {}{latency}", p.behaviour.as_str())
                })
                .collect();
            vec![
                t.name.clone(),
                t.share_of_load.to_string(),
                format!(
                    "opens after {} failures in a row; retry after {}",
                    t.failure_threshold,
                    ms(t.retry_after_ms)
                ),
                format!("{} at once", t.max_concurrent),
                phases.join("; "),
            ]
        })
        .collect();
    Table {
        title: "The script".into(),
        columns: columns(&[
            "target",
            "share of the load",
            "breaker",
            "bulkhead",
            "its dependency",
        ]),
        rows,
        legend: String::new(),
    }
}

/// The figures of every target behind both relays, per phase of the sick dependency; none
/// if no dependency is ever sick.
pub fn phases(s: &Script, f: &Figures) -> Option<Table> {
    let story = f.story.as_ref()?;
    let mut rows = Vec::new();
    for (i, p) in story.phases.iter().enumerate() {
        for t in &s.targets {
            for relay in &f.relays {
                let Some(x) = relay.targets.get(&t.name).and_then(|f| f.phases.get(i)) else {
                    continue;
                };
                let cell = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), ms);
                rows.push(vec![
                    format!(
                        "{:.1}–{:.1} s {}",
                        p.from_ms / 1000.0,
                        p.to_ms / 1000.0,
                        p.what
                    ),
                    t.name.clone(),
                    relay_name(&relay.name).to_owned(),
                    x.sent.to_string(),
                    cell(x.p50_ms),
                    cell(x.p99_ms),
                    format!("{:.1}", x.answers_per_s),
                    format!("{:.1}", x.calls_per_s),
                ]);
            }
        }
    }
    Some(Table {
        title: format!("Per phase of {}", story.sick),
        columns: columns(&[
            "phase",
            "target",
            "relay",
            "sent",
            "p50",
            "p99",
            "answers/s",
            "calls/s to its dependency",
        ]),
        rows,
        legend: String::new(),
    })
}

/// How requests ended, by relay and target.
pub fn outcomes(f: &Figures) -> Table {
    let mut columns = columns(&["relay", "target"]);
    columns.extend(
        Outcome::ALL
            .iter()
            .map(|o| (o.as_str().to_owned(), Some(o.cause().to_owned()))),
    );
    let mut rows = Vec::new();
    for relay in &f.relays {
        for (name, t) in &relay.targets {
            let mut row = vec![relay_name(&relay.name).to_owned(), name.clone()];
            row.extend(
                Outcome::ALL
                    .iter()
                    .map(|o| t.outcomes.get(o).copied().unwrap_or(0).to_string()),
            );
            rows.push(row);
        }
    }
    let causes: Vec<String> = Outcome::ALL
        .iter()
        .map(|o| format!("{}: {}", o.as_str(), o.cause()))
        .collect();
    Table {
        title: "How requests ended".into(),
        columns,
        rows,
        legend: causes.join("; "),
    }
}

/// The summary's table: p99 of every target behind both relays, per phase of the sick
/// dependency.
pub fn summary(s: &Script, f: &Figures) -> Vec<String> {
    let Some(story) = &f.story else {
        return Vec::new();
    };
    let mut lines = vec![format!("p99 latency by phase of {}:", story.sick)];
    for (i, p) in story.phases.iter().enumerate() {
        let mut cells = Vec::new();
        for t in &s.targets {
            for relay in &f.relays {
                let p99 = relay
                    .targets
                    .get(&t.name)
                    .and_then(|f| f.phases.get(i))
                    .and_then(|f| f.p99_ms)
                    .map_or_else(|| "–".to_owned(), ms);
                let who = if relay.name == "protected" {
                    "yours"
                } else {
                    "unprotected"
                };
                cells.push(format!("{} {who} {p99}", t.name));
            }
        }
        lines.push(format!("  {:<9} {}", p.what, cells.join(" | ")));
    }
    lines
}

fn columns(names: &[&str]) -> Vec<(String, Option<String>)> {
    names.iter().map(|n| ((*n).to_owned(), None)).collect()
}

fn relay_name(name: &str) -> &'static str {
    if name == "protected" {
        "your relay"
    } else {
        "unprotected"
    }
}
