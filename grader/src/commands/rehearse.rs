//! `grader rehearse`: rehearse a failure on real sockets and write the page, the data and a
//! summary.

use std::path::Path;

use crate::build::blame::tidy;
use crate::build::confinement::Confinement;
use crate::build::{self, Subject};
use crate::cli::RehearseArgs;
use crate::error::Error;
use crate::exit;
use crate::grade::{self, submission, submit};
use crate::lab::Lab;
use crate::lab::kit::shown_path;
use crate::rehearse::{self, Outcome, page, plots, script, summary};

use super::{Ctx, written};

/// Runs `grader rehearse`.
pub fn exec(ctx: &mut Ctx<'_>, args: RehearseArgs) -> Result<u8, Error> {
    let lab = ctx.lab(&args.lab)?;
    let loaded = script::load(&lab, rehearse::of(&lab)?, args.script.as_deref())?;
    let duration = rehearse::duration(args.duration, &loaded)?;
    let subject = subject(&lab, &args)?;
    let shown = |text: &str| tidy(text, &lab, &subject);
    let outcome = rehearse::rehearse(&lab, &subject, &loaded, duration, &shown, ctx.err)?;
    let r = match outcome {
        Outcome::NotReady(text) => {
            written(ctx.out.write_all(format!("{text}\n").as_bytes()))?;
            return Ok(exit::NOT_FULL_MARKS);
        }
        Outcome::Rehearsed(r) => r,
    };
    let charts = plots::draw(&r.report.charts, r.duration_s).map_err(|e| {
        Error::io(
            "draw the charts for",
            Path::new("rehearsal.html"),
            std::io::Error::other(e),
        )
    })?;
    let out = args.out.clone().unwrap_or_else(|| {
        build::work_root(&lab.kit)
            .join("rehearsal")
            .join(format!("{}-{}", lab.manifest.name, subject.key))
    });
    std::fs::create_dir_all(&out).map_err(|e| Error::io("create", &out, e))?;
    let data = out.join("rehearsal.json");
    let json = serde_json::to_vec(&r).map_err(|e| Error::io("encode", &data, e.into()))?;
    std::fs::write(&data, json).map_err(|e| Error::io("write", &data, e))?;
    let html = out.join("rehearsal.html");
    std::fs::write(&html, page::render(&r, &charts)).map_err(|e| Error::io("write", &html, e))?;
    let text = summary::render(
        &r,
        &shown_path(&lab.kit, &html),
        &shown_path(&lab.kit, &data),
    );
    written(ctx.out.write_all(text.as_bytes()))?;
    Ok(if r.all_seen() {
        exit::PASSED
    } else {
        exit::NOT_FULL_MARKS
    })
}

/// The crate to rehearse: the student's, the reference, or a submission's files over a
/// pristine student crate, confined as when it is graded (refused when no sandbox that
/// can rehearse works here, unless `--no-sandbox`).
fn subject(lab: &Lab, args: &RehearseArgs) -> Result<Subject, Error> {
    if let Some(dir) = &args.submission {
        let work = build::work_dir(lab);
        let found = match submission::collect(lab, dir)? {
            Ok(found) => found,
            Err(rejected) => {
                return Err(Error::Usage(format!(
                    "{}\n  help: the lab's files are {}",
                    rejected.explain(),
                    lab.manifest.student_files.join(", ")
                )));
            }
        };
        let limits = super::build_limits(lab, &args.build)?;
        let confinement = Confinement::for_rehearsals(lab, limits, args.no_sandbox)?;
        let mut subject = submit::subject(lab, &work, &found)?;
        subject.confined = Some(confinement);
        return Ok(subject);
    }
    if !args.solution {
        return Ok(grade::student_subject(lab));
    }
    let subject = grade::solution_subject(lab);
    if !subject.crate_dir.is_dir() {
        return Err(Error::Usage(format!(
            "this copy of the kit has no reference solution ({} is not here)\n  help: rehearse your own crate with `grader rehearse {}`",
            lab.manifest.solution_crate, lab.manifest.name
        )));
    }
    Ok(subject)
}
