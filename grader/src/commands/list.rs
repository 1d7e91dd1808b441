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
    let generated = generated(&lab)?;
    let counts = Counts::of(&selection).with_generated(generated);
    text.push_str(&format!(
        "\n{}. `grader explain {} NAME` says what one checks.\n",
        counts.sentence(),
        lab.manifest.name
    ));
    if generated.0 > 0 {
        text.push_str(&format!(
            "{} of the hidden are generated scenarios, drawn from seeds graded in CI and not listed; `grader check {} --generated` practises on published ones.\n",
            generated.0, lab.manifest.name
        ));
    }
    if counts.hidden_listed == 0 && counts.hidden.1 > 0 {
        text.push_str("The hidden scenarios run only when submissions are graded.\n");
    }
    written(ctx.out.write_all(text.as_bytes()))?;
    Ok(exit::PASSED)
}

/// A lab's scenarios and points, visible and hidden apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Visible scenarios and their points.
    pub visible: (usize, u32),
    /// Hidden scenarios and their points (counted from the edition when they are not
    /// here).
    pub hidden: (usize, u32),
    /// How many hidden scenarios the list shows (0 in a student edition).
    pub hidden_listed: usize,
}

impl Counts {
    /// The counts of a selection of every scenario of a lab.
    pub fn of(selection: &grade::Selection) -> Counts {
        let (visible, listed): (Vec<_>, Vec<_>) = selection
            .scenarios
            .iter()
            .partition(|s| s.visibility == Visibility::Visible);
        let points = |v: &[&crate::scenario::Scenario]| v.iter().map(|s| s.points).sum::<u32>();
        let hidden = if listed.is_empty() {
            (selection.hidden_not_run, selection.hidden_points_not_run)
        } else {
            (listed.len(), points(&listed))
        };
        Counts {
            visible: (visible.len(), points(&visible)),
            hidden,
            hidden_listed: listed.len(),
        }
    }

    /// The same, with `generated` (how many, their points) generated scenarios graded in
    /// CI counted as hidden ones.
    pub fn with_generated(mut self, generated: (usize, u32)) -> Counts {
        self.hidden.0 += generated.0;
        self.hidden.1 += generated.1;
        self
    }

    /// `42 visible scenarios (179 points) and 7 hidden ones (27 points): 206 points`.
    pub fn sentence(&self) -> String {
        let mut text = format!(
            "{} ({})",
            quantity(self.visible.0 as u64, "visible scenario"),
            quantity(self.visible.1, "point")
        );
        if self.hidden.0 > 0 || self.hidden.1 > 0 {
            text.push_str(&format!(
                " and {} hidden ({})",
                self.hidden.0,
                quantity(self.hidden.1, "point")
            ));
        }
        format!(
            "{text}: {} in all",
            quantity(self.visible.1 + self.hidden.1, "point")
        )
    }
}

/// Every lab of the kit: name, title, visible and hidden scenarios and their points.
fn labs(ctx: &mut Ctx<'_>) -> Result<u8, Error> {
    let kit = crate::lab::kit::find(ctx.kit.as_deref())?;
    let mut rows = Vec::new();
    for name in crate::lab::lab_names(&kit)? {
        let lab = crate::lab::Lab::load(&ctx.labs, &kit, &name)?;
        let selection = grade::select(&lab, true, &[])?;
        let counts = Counts::of(&selection).with_generated(generated(&lab)?);
        rows.push((name, lab.manifest.title.clone(), counts));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(3).max(3);
    let title_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(5).max(5);
    let mut text = format!(
        "{:<width$}  {:<title_width$}  {:>7} {:>6}  {:>6} {:>6}  {:>5}\n",
        "lab", "title", "visible", "points", "hidden", "points", "total"
    );
    for (name, title, c) in &rows {
        text.push_str(&format!(
            "{name:<width$}  {title:<title_width$}  {:>7} {:>6}  {:>6} {:>6}  {:>5}\n",
            c.visible.0,
            c.visible.1,
            c.hidden.0,
            c.hidden.1,
            c.visible.1 + c.hidden.1
        ));
    }
    text.push_str("\n`grader list LAB` lists a lab's scenarios; `grader check LAB` grades it.\n");
    written(ctx.out.write_all(text.as_bytes()))?;
    Ok(exit::PASSED)
}

/// The generated scenarios graded in CI of `lab` and their points, when this kit has
/// their seeds (the instructors' kit; an edition counts them with its hidden ones).
fn generated(lab: &crate::lab::Lab) -> Result<(usize, u32), Error> {
    Ok(crate::generate::seeds::Seeds::of(lab)?.map_or((0, 0), |s| s.graded_points()))
}
