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
        "wrote the student edition of {} to {}: {} files",
        lab.manifest.name,
        args.out.display(),
        released.files
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
            "  {hidden} hidden scenario{} ({hidden_points} points) will run only when submissions are graded",
            if hidden == 1 { "" } else { "s" }
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
