//! `grader list`: a lab's scenarios at a glance, or the kit's labs.

use crate::cli::ListArgs;
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::scenario::Visibility;
use grader_lab::quantity;

use super::{Ctx, written};

/// Runs `grader list`.
pub fn exec(ctx: &mut Ctx<'_>, args: ListArgs) -> Result<u8, Error> {
    let Some(name) = args.lab else {
        return labs(ctx);
    };
    let lab = ctx.lab(&name)?;
    let selection = grade::select(&lab, true, &[])?;
    let width = selection
        .scenarios
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(8);
    let mut text = format!(
        "{:<width$}  {:<20} {:>6}  visibility\n",
        "scenario", "category", "points"
    );
    for s in &selection.scenarios {
        let visibility = match s.visibility {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
        };
        text.push_str(&format!(
            "{:<width$}  {:<20} {:>6}  {visibility}\n",
            s.name, s.category, s.points
        ));
    }
    let visible = selection
        .scenarios
        .iter()
        .filter(|s| s.visibility == Visibility::Visible);
    let hidden = selection.scenarios.len() - visible.clone().count();
    text.push_str(&format!(
        "\n{}, {}; {} visible, {hidden} hidden. `grader explain {} NAME` says what one checks.\n",
        quantity(selection.scenarios.len() as u64, "scenario"),
        quantity(
            selection.scenarios.iter().map(|s| s.points).sum::<u32>(),
            "point"
        ),
        visible.count(),
        lab.manifest.name
    ));
    if selection.hidden_points_not_run > 0 {
        text.push_str(&format!(
            "Hidden scenarios worth {} run only when submissions are graded.\n",
            quantity(selection.hidden_points_not_run, "point")
        ));
    }
    written(ctx.out.write_all(text.as_bytes()))?;
    Ok(exit::PASSED)
}

/// Every lab of the kit: name, title, scenarios and points.
fn labs(ctx: &mut Ctx<'_>) -> Result<u8, Error> {
    let kit = crate::lab::kit::find(ctx.kit.as_deref())?;
    let mut rows = Vec::new();
    for name in crate::lab::lab_names(&kit)? {
        let lab = crate::lab::Lab::load(&ctx.labs, &kit, &name)?;
        let selection = grade::select(&lab, true, &[])?;
        rows.push((
            name,
            lab.manifest.title.clone(),
            selection.scenarios.len(),
            lab.manifest.total_points,
        ));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(3).max(3);
    let title_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(5).max(5);
    let mut text = format!(
        "{:<width$}  {:<title_width$}  {:>9}  {:>6}\n",
        "lab", "title", "scenarios", "points"
    );
    for (name, title, scenarios, points) in &rows {
        text.push_str(&format!(
            "{name:<width$}  {title:<title_width$}  {scenarios:>9}  {points:>6}\n"
        ));
    }
    text.push_str("\n`grader list LAB` lists a lab's scenarios; `grader check LAB` grades it.\n");
    written(ctx.out.write_all(text.as_bytes()))?;
    Ok(exit::PASSED)
}
