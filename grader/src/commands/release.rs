//! `grader release`: write the student edition of one lab or several.

use crate::cli::ReleaseArgs;
use crate::error::Error;
use crate::exit;
use crate::instructor::release;

use super::Ctx;

/// Runs `grader release`.
pub fn exec(ctx: &mut Ctx<'_>, args: ReleaseArgs) -> Result<u8, Error> {
    let kit = crate::lab::kit::find(ctx.kit.as_deref())?;
    if crate::lab::edition::is_edition(&kit) {
        return Err(crate::lab::edition::refusal(
            "`grader release`",
            "the reference solutions and the hidden scenarios",
        ));
    }
    let mut labs = Vec::new();
    for name in &args.labs {
        if labs
            .iter()
            .any(|l: &crate::lab::Lab| &l.manifest.name == name)
        {
            return Err(Error::Usage(format!(
                "{name} is named twice\n  help: name each lab of the edition once"
            )));
        }
        labs.push(ctx.lab(name)?);
    }
    let run = crate::cli::RunArgs {
        timeout: None,
        jobs: args.jobs,
        cpu_seconds: None,
        memory_mb: None,
        build: crate::cli::BuildLimitArgs {
            build_timeout: None,
            build_cpu_seconds: None,
            build_memory_mb: None,
        },
    };
    let opts = labs
        .iter()
        .map(|lab| super::run_options(lab, &run, false))
        .collect::<Result<Vec<_>, Error>>()?;
    let released = release::release(&labs, &args.out, args.hidden, &opts, ctx.err)?;
    let names: Vec<&str> = args.labs.iter().map(String::as_str).collect();
    let _ = writeln!(
        ctx.err,
        "wrote the student edition of {} to {}: {}",
        names.join(", "),
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
    for (lab, hidden, hidden_points) in &released.hidden {
        if *hidden == 0 {
            continue;
        }
        let where_ = if args.hidden {
            "are in the edition (--hidden): give it to the grading platform only, never to students"
        } else {
            "will run only when submissions are graded"
        };
        let _ = writeln!(
            ctx.err,
            "  {lab}: {} ({}) {where_}",
            grader_lab::quantity(*hidden as u64, "hidden scenario"),
            grader_lab::quantity(*hidden_points, "point")
        );
    }
    let _ = writeln!(
        ctx.err,
        "  next: cd {} && cargo run -p grader -- check {}",
        args.out.display(),
        names[0]
    );
    Ok(exit::PASSED)
}
