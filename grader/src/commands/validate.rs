//! `grader validate`: check labs and scenario files without running any code.
//!
//! Each argument is a lab name, a lab folder (or its `lab.json`), a scenario file, a
//! mutant file, or a folder of either, or a lab's alternatives folder or one alternative
//! in it; no argument means every lab of the kit. Problems go to standard error as
//! `file:line:column: what is wrong`, each followed by a `help:` line when the fix is
//! clear; one summary line per argument goes to standard output, and so does what
//! `--fix` rewrote. A folder is read with its sub-folders. The exit status is 0 when
//! everything is valid and 2 otherwise.

use std::path::{Path, PathBuf};

use crate::cli::ValidateArgs;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::error::Error;
use crate::exit;
use crate::instructor::{alternatives, validation};
use crate::lab::{Lab, Registry, available_labs};

use super::{Ctx, written};

/// One thing to check, as worked out from an argument.
enum Item {
    /// A whole lab.
    Lab(Lab),
    /// Scenario files of a lab; `shown` is how the argument is named in the summary,
    /// `below` how many of the files were found in sub-folders of it.
    Scenarios {
        lab: Lab,
        files: Vec<PathBuf>,
        shown: String,
        below: usize,
    },
    /// Mutant files of a lab.
    Mutants {
        lab: Lab,
        files: Vec<PathBuf>,
        shown: String,
    },
    /// Folders of a lab's correct alternatives.
    Alternatives {
        lab: Lab,
        folders: Vec<PathBuf>,
        shown: String,
    },
    /// A lab whose manifest cannot be read.
    Broken(String, Vec<Diagnostic>),
}

/// Runs `grader validate`.
pub fn exec(ctx: &mut Ctx<'_>, args: ValidateArgs) -> Result<u8, Error> {
    let mut items = Vec::new();
    if args.paths.is_empty() {
        let kit = crate::lab::kit::find(ctx.kit.as_deref())?;
        let labs = crate::lab::lab_names(&kit)?;
        if labs.is_empty() {
            return Err(Error::Usage(format!(
                "there are no labs in {} (no labs/*/lab.json)",
                kit.display()
            )));
        }
        for name in labs {
            items.push(load_lab(&ctx.labs, &kit, &name)?);
        }
    } else {
        for arg in &args.paths {
            items.push(resolve(ctx, arg)?);
        }
    }
    let mut problems = 0;
    for item in items {
        let item = if args.fix { fix(ctx, item)? } else { item };
        let (found, summary) = check(item)?;
        problems += found.len();
        for p in &found {
            let _ = writeln!(ctx.err, "{p}");
        }
        // The result goes where a person reads results (and a script reads them too);
        // the problems above are the errors.
        written(writeln!(ctx.out, "{summary}"))?;
    }
    Ok(if problems == 0 {
        exit::PASSED
    } else {
        exit::BAD_INPUT
    })
}

/// Checks one item: its problems and its summary line.
fn check(item: Item) -> Result<(Vec<Diagnostic>, String), Error> {
    Ok(match item {
        Item::Lab(lab) => {
            let report = validation::lab(&lab)?;
            (report.all_problems(), report.summary())
        }
        Item::Scenarios {
            lab,
            files,
            shown,
            below,
        } => {
            let (scenarios, problems) = validation::scenario_files(&lab, &files)?;
            let points: u32 = scenarios.iter().map(|s| s.points).sum();
            let from_below = match below {
                0 => String::new(),
                n => format!(" ({n} in sub-folders)"),
            };
            let what = format!(
                "{shown}: {}{from_below} of {}",
                grader_lab::quantity(files.len() as u64, "scenario file"),
                lab.manifest.name
            );
            let summary = if problems.is_empty() {
                format!(
                    "{what}, {}: all valid",
                    grader_lab::quantity(points, "point")
                )
            } else {
                format!("{what}: {}", count(problems.len()))
            };
            (problems, summary)
        }
        Item::Mutants { lab, files, shown } => {
            let problems = validation::mutant_files(&lab, &files)?;
            let summary = summary_of(&shown, files.len(), "mutant", &lab, &problems);
            (problems, summary)
        }
        Item::Alternatives {
            lab,
            folders,
            shown,
        } => {
            let problems: Vec<Diagnostic> = folders
                .iter()
                .filter_map(|f| alternatives::read(&lab, f).err())
                .flatten()
                .collect();
            let summary = summary_of(&shown, folders.len(), "alternative", &lab, &problems);
            (problems, summary)
        }
        Item::Broken(name, problems) => {
            let summary = format!("{name}: {}", count(problems.len()));
            (problems, summary)
        }
    })
}

/// Rewrites the handout of a lab item from the lab's data, and says so.
fn fix(ctx: &mut Ctx<'_>, item: Item) -> Result<Item, Error> {
    let Item::Lab(lab) = &item else {
        return Ok(item);
    };
    let report = validation::lab(lab)?;
    if let Some((path, text)) = &report.handout.fixed {
        std::fs::write(path, text).map_err(|e| Error::io("write", path, e))?;
        let _ = writeln!(
            ctx.out,
            "{}: rewrote {} from the lab's data ({})",
            lab.manifest.name,
            crate::lab::kit::shown_path(&lab.kit, path).display(),
            grader_lab::quantity(report.handout.problems.len() as u64, "change")
        );
    }
    Ok(item)
}

/// `SHOWN: N KINDs of LAB: all valid`, or the number of problems.
fn summary_of(shown: &str, n: usize, kind: &str, lab: &Lab, problems: &[Diagnostic]) -> String {
    let what = format!(
        "{shown}: {} of {}",
        grader_lab::quantity(n as u64, kind),
        lab.manifest.name
    );
    if problems.is_empty() {
        format!("{what}: all valid")
    } else {
        format!("{what}: {}", count(problems.len()))
    }
}

fn count(n: usize) -> String {
    grader_lab::quantity(n as u64, "problem")
}

/// Loads a lab; a manifest that cannot be read is a problem to report, not a stop.
fn load_lab(labs: &Registry, kit: &Path, name: &str) -> Result<Item, Error> {
    match Lab::load(labs, kit, name) {
        Ok(lab) => Ok(Item::Lab(lab)),
        Err(Error::Invalid(problems)) => Ok(Item::Broken(name.to_owned(), problems)),
        Err(e) => Err(e),
    }
}

/// Works out what an argument names.
fn resolve(ctx: &Ctx<'_>, arg: &Path) -> Result<Item, Error> {
    if !arg.exists() {
        let kit = crate::lab::kit::find(ctx.kit.as_deref())?;
        let name = arg.to_string_lossy();
        let labs = available_labs(&kit);
        if labs.iter().any(|l| *l == name) {
            return load_lab(&ctx.labs, &kit, &name);
        }
        let mut msg = format!("`{name}` is neither a file, a folder nor a lab of this kit");
        match did_you_mean(&name, labs.iter().map(String::as_str)) {
            Some(close) => msg.push_str(&format!("\n  help: did you mean `{close}`?")),
            None => msg.push_str(&format!(
                "\n  help: give scenario files, folders, or a lab name ({})",
                labs.join(", ")
            )),
        }
        return Err(Error::Usage(msg));
    }
    let abs = arg.canonicalize().map_err(|e| Error::io("open", arg, e))?;
    let shown_arg = arg.display().to_string();
    // A lab folder, or its manifest.
    let lab_dir = if abs.is_dir() && abs.join("lab.json").is_file() {
        Some(abs.clone())
    } else if abs.file_name().is_some_and(|n| n == "lab.json") {
        abs.parent().map(Path::to_path_buf)
    } else {
        None
    };
    if let Some(dir) = lab_dir {
        let (kit, name) = lab_location(ctx, &dir)?;
        return load_lab(&ctx.labs, &kit, &name);
    }
    if let Some(item) = alternatives(ctx, &abs, &shown_arg)? {
        return Ok(item);
    }
    let (files, below) = if abs.is_dir() {
        let (files, below) = validation::json_files_within(&abs)?;
        if files.is_empty() {
            return Err(Error::Usage(format!(
                "{shown_arg} holds no .json files, nor do its sub-folders\n  help: give scenario files, folders of them, or a lab name"
            )));
        }
        (files, below)
    } else if abs.extension().is_some_and(|x| x == "json") {
        (vec![abs.clone()], 0)
    } else {
        return Err(Error::Usage(format!(
            "{shown_arg} is not a .json file\n  help: give scenario files, folders of them, or a lab name"
        )));
    };
    let lab = lab_of(ctx, &abs)?;
    let folder = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let in_mutants = folder
        .canonicalize()
        .ok()
        .zip(crate::instructor::mutants::dir(&lab).canonicalize().ok())
        .is_some_and(|(a, b)| a == b);
    Ok(if in_mutants {
        Item::Mutants {
            lab,
            files,
            shown: shown_arg,
        }
    } else {
        Item::Scenarios {
            lab,
            files,
            shown: shown_arg,
            below,
        }
    })
}

/// The alternatives `abs` names, when it is a lab's alternatives folder or inside it.
fn alternatives(ctx: &Ctx<'_>, abs: &Path, shown: &str) -> Result<Option<Item>, Error> {
    let Some(root) = abs.ancestors().find(|a| {
        a.file_name().is_some_and(|n| n == "alternatives")
            && a.parent().is_some_and(|p| p.join("lab.json").is_file())
    }) else {
        return Ok(None);
    };
    let lab = lab_of(ctx, root)?;
    let folders = if abs == root {
        lab.alternative_folders()?
    } else {
        // The one alternative the path is in.
        let rel = abs.strip_prefix(root).unwrap_or(abs);
        rel.components()
            .next()
            .map(|first| vec![root.join(first)])
            .unwrap_or_default()
    };
    Ok(Some(Item::Alternatives {
        lab,
        folders,
        shown: shown.to_owned(),
    }))
}

/// The kit and lab name of a lab folder `labs/<name>`.
fn lab_location(ctx: &Ctx<'_>, dir: &Path) -> Result<(PathBuf, String), Error> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kit = dir
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "labs"))
        .and_then(Path::parent)
        .filter(|k| k.join("Cargo.toml").is_file());
    match kit {
        Some(kit) => Ok((kit.to_path_buf(), name)),
        None => Ok((crate::lab::kit::find(ctx.kit.as_deref())?, name)),
    }
}

/// The lab a file or folder belongs to: the `labs/<lab>` folder it is in, or else the
/// kit's only lab.
fn lab_of(ctx: &Ctx<'_>, path: &Path) -> Result<Lab, Error> {
    if let Some(dir) = path
        .ancestors()
        .skip(1)
        .find(|a| a.join("lab.json").is_file())
    {
        let (kit, name) = lab_location(ctx, dir)?;
        return Lab::load(&ctx.labs, &kit, &name);
    }
    let kit = crate::lab::kit::find(ctx.kit.as_deref())?;
    let labs = available_labs(&kit);
    match labs.as_slice() {
        [only] => Lab::load(&ctx.labs, &kit, only),
        _ => Err(Error::Usage(format!(
            "{} is not inside a lab folder, and this kit has {} labs, so which lab it belongs to is unclear\n  help: put the file under labs/<lab>/ (a drafts/ folder there is fine)",
            path.display(),
            labs.len()
        ))),
    }
}
