//! The class page's charts, drawn as SVG by plotters on the rehearsal's canvas, frame and
//! legend (`crate::rehearse::plots`): the score distribution, pass rates as bars, and the
//! submissions × scenarios grid.

use plotters::prelude::*;

use super::Class;
use crate::grade::gradebook::Gradebook;
use crate::rehearse::plots::{Drawn, Result, SIZE, canvas, err, finish, frame, swatch};

/// Bars of submissions and passes.
const BAR: RGBColor = RGBColor(31, 119, 180);
/// Bars of hidden scenarios.
const HIDDEN: RGBColor = RGBColor(148, 103, 189);
/// The grid's colours, by status.
const STATUS_COLOURS: [(&str, &str, RGBColor); 4] = [
    ("passed", "passed", RGBColor(44, 160, 44)),
    ("failed", "failed", RGBColor(214, 39, 40)),
    (
        "error",
        "error (a panic, a todo!() or no build)",
        RGBColor(255, 127, 14),
    ),
    ("timeout", "timeout", RGBColor(90, 90, 90)),
];
/// Faint grid lines.
const LIGHT: RGBColor = RGBColor(235, 235, 235);

/// Every chart of the page.
pub fn draw(book: &Gradebook, class: &Class<'_>) -> Result<Vec<Drawn>> {
    let categories: Vec<Bar> = book
        .categories
        .iter()
        .zip(&class.category_rates)
        .map(|(c, (_, rate))| Bar {
            label: c.title.clone(),
            rate: *rate,
            hidden: false,
        })
        .collect();
    let scenarios: Vec<Bar> = book
        .scenario_columns
        .iter()
        .zip(&class.scenario_rates)
        .map(|(s, (_, rate))| Bar {
            label: if s.hidden {
                format!("{} (hidden)", s.name)
            } else {
                s.name.clone()
            },
            rate: *rate,
            hidden: s.hidden,
        })
        .collect();
    Ok(vec![
        Drawn {
            id: "scores".into(),
            look_for: "How the graded submissions' scores spread out of the points available. A peak at zero is often unchanged skeletons and code that does not compile; the page counts those below.".into(),
            svg: scores(book, class)?,
        },
        Drawn {
            id: "categories".into(),
            look_for: "The share of each category's scenario runs that passed, over every graded submission: the rules the class found hardest are the shortest bars.".into(),
            svg: rates("Pass rate per category", &categories)?,
        },
        Drawn {
            id: "scenarios".into(),
            look_for: "The share of graded submissions that passed each scenario, in the rubric's order; hidden scenarios (run only when submissions are graded) have bars of their own colour.".into(),
            svg: rates("Pass rate per scenario", &scenarios)?,
        },
        Drawn {
            id: "grid".into(),
            look_for: "One row per graded submission, best score on top; one column per scenario, numbered as in the list below. A column of red is a scenario most of the class fails; a row of the same colours as another is worth a second look.".into(),
            svg: grid(book, class)?,
        },
    ])
}

/// One bar of a pass-rate chart.
struct Bar {
    label: String,
    /// From 0 to 1; `None` when nothing ran.
    rate: Option<f64>,
    hidden: bool,
}

/// Whole numbers only, for axes that count.
fn whole(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// The `names` of rows at their centres (row `i` from the top spans `n-1-i .. n-i`), and
/// nothing elsewhere.
fn row_names(names: Vec<String>) -> impl Fn(&f64) -> String {
    let n = names.len();
    move |v: &f64| {
        let centre = (v - v.floor() - 0.5).abs() < 0.01;
        let from_bottom = v.floor() as usize;
        match n.checked_sub(from_bottom + 1).and_then(|i| names.get(i)) {
            Some(name) if centre && *v >= 0.0 => name.clone(),
            _ => String::new(),
        }
    }
}

/// Pixels for the longest of `labels` at the axes' font size.
fn label_room(labels: impl Iterator<Item = usize>) -> u32 {
    let longest = labels.max().unwrap_or(8) as u32;
    (longest * 7 + 16).clamp(90, 420)
}

/// The score distribution: graded submissions per band of points.
fn scores(book: &Gradebook, class: &Class<'_>) -> Result<String> {
    let max = book.max_score.max(1);
    let bands = max.min(20);
    let width = f64::from(max) / f64::from(bands);
    let mut counts = vec![0u32; bands as usize];
    for r in &class.graded {
        let band = ((f64::from(r.score) / width) as usize).min(counts.len() - 1);
        counts[band] += 1;
    }
    let top = f64::from(counts.iter().copied().max().unwrap_or(0).max(1)) * 1.3;
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, SIZE)?;
        let title = format!(
            "Scores of {} graded submission{}",
            class.graded.len(),
            if class.graded.len() == 1 { "" } else { "s" }
        );
        let mut ctx = frame(&root, &title, 0.0..top, f64::from(max), 50)?;
        ctx.configure_mesh()
            .x_desc(format!("points, out of {max}"))
            .y_desc("submissions")
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .light_line_style(LIGHT)
            .draw()
            .map_err(err)?;
        let bars = counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| {
                let from = i as f64 * width;
                Rectangle::new(
                    [
                        (from + width * 0.05, 0.0),
                        (from + width * 0.95, f64::from(*n)),
                    ],
                    BAR.filled(),
                )
            });
        ctx.draw_series(bars)
            .map_err(err)?
            .label(format!("submissions per {} points", trim(width)))
            .legend(swatch(BAR));
        finish(&mut ctx, &root)?;
    }
    Ok(svg)
}

/// `width` without a trailing `.0`.
fn trim(width: f64) -> String {
    if width.fract() == 0.0 {
        format!("{width:.0}")
    } else {
        format!("{width:.1}")
    }
}

/// Horizontal bars from 0 to 100 %, one per label, top to bottom.
fn rates(title: &str, bars: &[Bar]) -> Result<String> {
    let n = bars.len().max(1);
    let mut svg = String::new();
    {
        let height = 130 + 22 * n as u32;
        let root = canvas(&mut svg, (SIZE.0, height))?;
        let room = label_room(bars.iter().map(|b| b.label.len() + 8));
        // Room on the right for the legend.
        let mut ctx = frame(&root, title, 0.0..n as f64, 125.0, room)?;
        let labels: Vec<String> = bars
            .iter()
            .map(|b| match b.rate {
                Some(r) => format!("{} {:>3.0} %", b.label, r * 100.0),
                None => format!("{} (not run)", b.label),
            })
            .collect();
        ctx.configure_mesh()
            .x_desc("% passed")
            .x_label_formatter(&|v| if *v <= 100.0 { whole(v) } else { String::new() })
            .disable_y_mesh()
            .y_labels(2 * n + 1)
            .y_label_formatter(&row_names(labels))
            .light_line_style(LIGHT)
            .draw()
            .map_err(err)?;
        let any_hidden = bars.iter().any(|b| b.hidden);
        let shown = if any_hidden {
            "visible scenarios"
        } else {
            "share passed"
        };
        for (hidden, colour, label) in [(false, BAR, shown), (true, HIDDEN, "hidden scenarios")] {
            let drawn: Vec<Rectangle<(f64, f64)>> = bars
                .iter()
                .enumerate()
                .filter(|(_, b)| b.hidden == hidden)
                .filter_map(|(i, b)| {
                    let rate = b.rate?;
                    let lo = (n - 1 - i) as f64 + 0.18;
                    Some(Rectangle::new(
                        [(0.0, lo), ((rate * 100.0).max(0.4), lo + 0.64)],
                        colour.filled(),
                    ))
                })
                .collect();
            if drawn.is_empty() {
                continue;
            }
            ctx.draw_series(drawn)
                .map_err(err)?
                .label(label)
                .legend(swatch(colour));
        }
        finish(&mut ctx, &root)?;
    }
    Ok(svg)
}

/// One row per graded submission, one column per scenario, a cell coloured by status.
fn grid(book: &Gradebook, class: &Class<'_>) -> Result<String> {
    let columns = &book.scenario_columns;
    let (n, m) = (columns.len().max(1), class.graded.len().max(1));
    let names: Vec<String> = class.graded.iter().map(|r| r.name.clone()).collect();
    let room = label_room(names.iter().map(String::len));
    let mut svg = String::new();
    {
        let width = SIZE.0.max(room + 60 + 16 * n as u32);
        let height = 170 + 20 * m as u32;
        let root = canvas(&mut svg, (width, height))?;
        // Room above the rows for the legend.
        let mut ctx = frame(
            &root,
            "Each submission on each scenario",
            0.0..m as f64 + 1.6,
            n as f64,
            room,
        )?;
        let step = if n > 30 { 5 } else { 1 };
        let column_number = move |v: &f64| {
            let centre = (v - v.floor() - 0.5).abs() < 0.01;
            let number = v.floor() as usize + 1;
            if centre && *v >= 0.0 && number <= n && (number % step == 0 || number == 1) {
                number.to_string()
            } else {
                String::new()
            }
        };
        let mut rows = names.clone();
        // The legend's band has no row of its own.
        rows.insert(0, String::new());
        rows.insert(0, String::new());
        ctx.configure_mesh()
            .x_desc("scenario (numbered as listed below)")
            .disable_mesh()
            .x_labels(2 * n + 1)
            .x_label_formatter(&column_number)
            .y_labels(2 * (m + 2) + 1)
            .y_label_formatter(&row_names(rows))
            .draw()
            .map_err(err)?;
        for (status, label, colour) in STATUS_COLOURS {
            let mut cells = Vec::new();
            for (i, r) in class.graded.iter().enumerate() {
                let lo = (m - 1 - i) as f64 + 0.08;
                for (j, s) in columns.iter().enumerate() {
                    if r.statuses.get(&s.name).map(String::as_str) == Some(status) {
                        let x = j as f64;
                        cells.push(Rectangle::new(
                            [(x + 0.06, lo), (x + 0.94, lo + 0.84)],
                            colour.filled(),
                        ));
                    }
                }
            }
            if cells.is_empty() {
                continue;
            }
            ctx.draw_series(cells)
                .map_err(err)?
                .label(label)
                .legend(swatch(colour));
        }
        finish(&mut ctx, &root)?;
    }
    Ok(svg)
}
