//! `grader grade`.

use crate::cli::GradeArgs;
use crate::error::Error;

use super::Ctx;

/// Runs `grader grade`.
pub fn exec(_ctx: &mut Ctx<'_>, _args: GradeArgs) -> Result<u8, Error> {
    Err(Error::Usage("`grader grade` is not available yet".into()))
}
