//! `grader check`: grade one crate and report.

use crate::check;
use crate::cli::{CheckArgs, Format};
use crate::error::Error;
use crate::exit;
use crate::report;

use super::{Ctx, run_options, written};

/// Runs `grader check`.
pub fn exec(ctx: &mut Ctx<'_>, args: CheckArgs) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
    if args.submission.is_some() {
        return Err(Error::Usage("--submission is not available yet".into()));
    }
    let selection = check::select(&lab, false, &args.scenarios)?;
    let subject = if args.solution {
        check::solution_subject(&lab)
    } else {
        check::student_subject(&lab)
    };
    let opts = run_options(&lab, &args.run, args.verbose)?;
    let report = check::grade(&lab, &subject, &selection, &opts, ctx.err)?;
    let text = match args.format {
        Format::Json => {
            let mut buf = Vec::new();
            report::json::write(&report, &mut buf).map(|()| buf)
        }
        Format::Human => {
            let mut buf = Vec::new();
            let opts = report::human::Options {
                hints: !args.no_hints,
                verbose: args.verbose,
                failures_first: false,
            };
            report::human::write(&report, &lab, opts, &mut buf).map(|()| buf)
        }
        Format::Junit | Format::Gradescope => {
            return Err(Error::Usage(
                "--format junit and gradescope are not available yet".into(),
            ));
        }
    };
    let text = text.map_err(|e| Error::io("write", std::path::Path::new("the report"), e))?;
    match &args.output {
        Some(path) => std::fs::write(path, &text).map_err(|e| Error::io("write", path, e))?,
        None => written(ctx.out.write_all(&text))?,
    }
    Ok(if report.all_passed() {
        exit::PASSED
    } else {
        exit::NOT_FULL_MARKS
    })
}
