//! `grader explain`: what a scenario does and checks, without running anything.

use crate::cli::ExplainArgs;
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::scenario::explain::explain;

use super::{Ctx, written};

/// Runs `grader explain`.
pub fn exec(ctx: &mut Ctx<'_>, args: ExplainArgs) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
    let selection = grade::select(&lab, true, std::slice::from_ref(&args.scenario))?;
    for s in &selection.scenarios {
        written(ctx.out.write_all(explain(&lab, s).as_bytes()))?;
    }
    Ok(exit::PASSED)
}
