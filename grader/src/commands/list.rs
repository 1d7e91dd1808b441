//! `grader list`: the lab's scenarios at a glance.

use crate::cli::LabArg;
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::scenario::Visibility;

use super::{Ctx, written};

/// Runs `grader list`.
pub fn exec(ctx: &mut Ctx<'_>, args: LabArg) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
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
        "\n{} scenarios, {} points; {} visible, {hidden} hidden. `grader explain {} NAME` says what one checks.\n",
        selection.scenarios.len(),
        selection.scenarios.iter().map(|s| s.points).sum::<u32>(),
        visible.count(),
        lab.manifest.name
    ));
    if selection.hidden_points_not_run > 0 {
        text.push_str(&format!(
            "Hidden scenarios worth {} points run only when submissions are graded.\n",
            selection.hidden_points_not_run
        ));
    }
    written(ctx.out.write_all(text.as_bytes()))?;
    Ok(exit::PASSED)
}
