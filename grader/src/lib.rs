//! The lab kit's grader, as a library; `src/main.rs` only hands it the command line and
//! the output streams.
//!
//! The path of a `grader check`: [`kit`] finds the kit, [`lab`] reads the lab manifest,
//! [`scenario`] reads and validates the scenario files, [`build`] compiles the lab's
//! harness against the crate under test, [`runner`] runs each scenario in a child process,
//! [`judge`] compares what it observed with what the scenario expects, and [`report`]
//! writes the result. Each command lives in [`commands`]. Nothing here prints directly or
//! exits the process.

pub mod build;
pub mod class;
pub mod cli;
pub mod commands;
pub mod diagnostic;
pub mod error;
pub mod exit;
pub mod generate;
pub mod grade;
pub mod html;
pub mod instructor;
pub mod judge;
pub mod lab;
pub mod labs;
pub mod picture;
pub mod rehearse;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod scenario;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

pub use cli::Cli;
use cli::{ColorChoice, Command};
pub use error::Error;

/// Runs one command line; machine output goes to `out`, progress and errors to `err`.
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode {
    ExitCode::from(run_with(labs::registered(), cli, out, err))
}

/// [`run`] with the lab plug-ins in `labs` instead of the registered ones; returns the
/// exit status (see [`exit`]).
pub fn run_with(labs: lab::Registry, cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    set_colour(cli.color);
    let mut ctx = commands::Ctx {
        labs,
        kit: cli.kit,
        out,
        err,
    };
    let result = match cli.command {
        Command::Check(args) => commands::check::exec(&mut ctx, args),
        Command::Grade(args) => commands::grade::exec(&mut ctx, args),
        Command::List(args) => commands::list::exec(&mut ctx, args),
        Command::Explain(args) => commands::explain::exec(&mut ctx, args),
        Command::Watch(args) => commands::watch::exec(&mut ctx, args),
        Command::Validate(args) => commands::validate::exec(&mut ctx, args),
        Command::Audit(args) => commands::audit::exec(&mut ctx, args),
        Command::Release(args) => commands::release::exec(&mut ctx, args),
        Command::Rehearse(args) => commands::rehearse::exec(&mut ctx, args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(
                ctx.err,
                "{} {e}",
                colored::Colorize::bold(colored::Colorize::red("error:"))
            );
            e.exit_code()
        }
    }
}

/// Colour on a terminal only, never with NO_COLOR, unless asked explicitly.
fn set_colour(choice: ColorChoice) {
    match choice {
        ColorChoice::Always => colored::control::set_override(true),
        ColorChoice::Never => colored::control::set_override(false),
        ColorChoice::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            colored::control::set_override(!no_color && std::io::stdout().is_terminal());
        }
    }
}
