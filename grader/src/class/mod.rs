//! The class page (`class.html`, beside the gradebook): how a class did, on one
//! self-contained HTML page that opens from disk with no network. It is made from the
//! gradebook alone, so it always shows every row the gradebook keeps, regraded ones
//! included:
//!
//! - the score distribution, and the pass rate of every category and scenario (hidden
//!   scenarios marked);
//! - the mistakes most students made: the "Start here" each failing submission's report
//!   got, counted, most common first;
//! - a submissions × scenarios grid, best scores on top;
//! - submissions that look alike (`alike.rs`), with what that cannot see.
//!
//! The numbers are worked out here (`Class`), the charts drawn by plotters in
//! `charts.rs` with the rehearsal's drawing code, the HTML written in `page.rs`.

mod alike;
pub mod charts;
mod page;

use crate::grade::gradebook::{GRADED, Gradebook, Row, StartHere};

pub use alike::{Alike, Likeness};

/// The class page of `book`, or why a chart could not be drawn.
pub fn page(book: &Gradebook) -> Result<String, String> {
    let class = Class::of(book);
    let drawn = charts::draw(book, &class)?;
    Ok(page::render(book, &class, &drawn))
}

/// What the page shows, worked out from the gradebook.
#[derive(Debug)]
pub struct Class<'a> {
    /// The graded rows (compiled or not), best score first, then by name.
    pub graded: Vec<&'a Row>,
    /// Per category id: the share of its scenario runs that passed, from 0 to 1; `None`
    /// when nothing ran.
    pub category_rates: Vec<(String, Option<f64>)>,
    /// Per scenario name, in report order: the share of the graded submissions that ran
    /// it and passed.
    pub scenario_rates: Vec<(String, Option<f64>)>,
    /// The Start here of failing submissions, most common first: what, and whose.
    pub mistakes: Vec<(StartHere, Vec<&'a str>)>,
    /// Where scenarios stopped (a `todo!()` or a panic) in submissions whose report has
    /// no Start here, most common first; unchanged skeletons are counted apart.
    pub stops: Vec<(String, Vec<&'a str>)>,
    /// The names of the unchanged skeletons.
    pub skeletons: Vec<&'a str>,
    /// The names of the submissions that do not compile.
    pub not_compiling: Vec<&'a str>,
    /// The names of the submissions that were not graded, with why.
    pub not_graded: Vec<&'a Row>,
    /// Groups of submissions that look alike.
    pub alike: Vec<Alike<'a>>,
}

impl<'a> Class<'a> {
    /// The numbers of `book`.
    pub fn of(book: &'a Gradebook) -> Class<'a> {
        let mut graded: Vec<&Row> = book
            .submissions
            .iter()
            .filter(|r| r.status == GRADED)
            .collect();
        graded.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
        let not_graded = book
            .submissions
            .iter()
            .filter(|r| r.status != GRADED)
            .collect();
        let rate = |name: &str| -> (usize, usize) {
            let ran: Vec<&str> = graded
                .iter()
                .filter_map(|r| r.statuses.get(name).map(String::as_str))
                .collect();
            (ran.iter().filter(|s| **s == "passed").count(), ran.len())
        };
        let share = |(passed, ran): (usize, usize)| (ran > 0).then(|| passed as f64 / ran as f64);
        let scenario_rates = book
            .scenario_columns
            .iter()
            .map(|s| (s.name.clone(), share(rate(&s.name))))
            .collect();
        let category_rates = book
            .categories
            .iter()
            .map(|c| {
                let (passed, ran) = book
                    .scenario_columns
                    .iter()
                    .filter(|s| s.category == c.id)
                    .map(|s| rate(&s.name))
                    .fold((0, 0), |(p, r), (p2, r2)| (p + p2, r + r2));
                (c.id.clone(), share((passed, ran)))
            })
            .collect();
        let skeletons: Vec<&str> = graded
            .iter()
            .filter(|r| r.unchanged_skeleton)
            .map(|r| r.name.as_str())
            .collect();
        let not_compiling: Vec<&str> = graded
            .iter()
            .filter(|r| r.compiled == Some(false))
            .map(|r| r.name.as_str())
            .collect();
        let counted = graded
            .iter()
            .filter(|r| !r.unchanged_skeleton && r.compiled != Some(false));
        let mut mistakes: Vec<(StartHere, Vec<&str>)> = Vec::new();
        let mut stops: Vec<(String, Vec<&str>)> = Vec::new();
        for r in counted {
            if let Some(lead) = &r.start_here {
                // The same mistake shows at the same step of the same scenario.
                let same = |m: &&mut (StartHere, Vec<&str>)| {
                    m.0.scenario == lead.scenario && m.0.step == lead.step
                };
                match mistakes.iter_mut().find(same) {
                    Some(m) => m.1.push(&r.name),
                    None => mistakes.push((lead.clone(), vec![&r.name])),
                }
            } else if let Some(place) = &r.stopped_at {
                match stops.iter_mut().find(|s| s.0 == *place) {
                    Some(s) => s.1.push(&r.name),
                    None => stops.push((place.clone(), vec![&r.name])),
                }
            }
        }
        // Most common first; the sort is stable, so equals keep the best scores' order.
        mistakes.sort_by_key(|m| std::cmp::Reverse(m.1.len()));
        stops.sort_by_key(|s| std::cmp::Reverse(s.1.len()));
        let alike = alike::groups(&graded);
        Class {
            graded,
            category_rates,
            scenario_rates,
            mistakes,
            stops,
            skeletons,
            not_compiling,
            not_graded,
            alike,
        }
    }
}
