//! `grader release`: write the student edition of the kit.

use crate::cli::ReleaseArgs;
use crate::error::Error;
use crate::exit;
use crate::instructor::release;

use super::Ctx;

/// Runs `grader release`.
pub fn exec(ctx: &mut Ctx<'_>, args: ReleaseArgs) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
    let released = release::release(&lab, &args.out)?;
    let (hidden, hidden_points) = released.hidden;
    let _ = writeln!(
        ctx.err,
        "wrote the student edition of {} to {}: {}",
        lab.manifest.name,
        args.out.display(),
        grader_lab::quantity(released.files as u64, "file")
    );
    if !released.dropped_members.is_empty() {
        let _ = writeln!(
            ctx.err,
            "  workspace members dropped from Cargo.toml: {}",
            released.dropped_members.join(", ")
        );
    }
    let _ = writeln!(ctx.err, "  left out: {}", released.left_out.join(", "));
    if hidden > 0 {
        let _ = writeln!(
            ctx.err,
            "  {} ({}) will run only when submissions are graded",
            grader_lab::quantity(hidden as u64, "hidden scenario"),
            grader_lab::quantity(hidden_points, "point")
        );
    }
    let _ = writeln!(
        ctx.err,
        "  next: cd {} && cargo run -p grader -- check {}",
        args.out.display(),
        lab.manifest.name
    );
    Ok(exit::PASSED)
}
