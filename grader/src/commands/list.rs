//! `grader list`.

use crate::cli::LabArg;
use crate::error::Error;

use super::Ctx;

/// Runs `grader list`.
pub fn exec(_ctx: &mut Ctx<'_>, _args: LabArg) -> Result<u8, Error> {
    Err(Error::Usage("`grader list` is not available yet".into()))
}
