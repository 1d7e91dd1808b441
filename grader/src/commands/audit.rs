//! `grader audit`: which scenario catches which known bug.

use crate::cli::{AuditArgs, AuditFormat};
use crate::error::Error;
use crate::exit;
use crate::grade;
use crate::instructor::audit;
use crate::instructor::validation;

use super::{Ctx, run_options, written};

/// Runs `grader audit`.
pub fn exec(ctx: &mut Ctx<'_>, args: AuditArgs) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
    if args.runs == 0 {
        return Err(Error::Usage("--runs must be at least 1".into()));
    }
    let solution = lab.kit.join(&lab.manifest.solution_crate);
    if !crate::instructor::mutants::dir(&lab).is_dir() || !solution.is_dir() {
        return Err(Error::Usage(format!(
            "this kit has no mutants of {0} or no reference solution ({1}): it is a student edition\n  help: run the audit in the instructors' edition, which has {1} and labs/{0}/mutants/",
            lab.manifest.name, lab.manifest.solution_crate
        )));
    }
    // An audit of a lab with a broken scenario or mutant would blame the wrong thing;
    // points that do not add up change nothing it measures.
    let validated = validation::lab(&lab)?;
    if !validated.problems.is_empty() {
        return Err(validation::refusal(&validated.problems, "audited"));
    }
    let selection = super::with_limits(grade::select(&lab, true, &args.scenarios)?, &args.run);
    let opts = run_options(&lab, &args.run, false)?;
    // Generated scenarios run with the whole set of hand-written ones, not beside a few.
    let generated = args.scenarios.is_empty().then_some(args.generated);
    let audit = audit::audit(
        &lab,
        &selection,
        &opts,
        args.runs,
        &args.mutants,
        generated,
        ctx.err,
    )?;
    match args.format {
        AuditFormat::Json => {
            written(
                serde_json::to_writer_pretty(&mut *ctx.out, &audit).map_err(std::io::Error::other),
            )?;
            written(writeln!(ctx.out))?;
        }
        AuditFormat::Human => written(audit::write_matrix(&audit, ctx.out))?,
    }
    Ok(if audit.problems.is_empty() {
        exit::PASSED
    } else {
        exit::NOT_FULL_MARKS
    })
}
