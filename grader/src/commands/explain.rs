//! `grader explain`.

use crate::cli::ExplainArgs;
use crate::error::Error;

use super::Ctx;

/// Runs `grader explain`.
pub fn exec(_ctx: &mut Ctx<'_>, _args: ExplainArgs) -> Result<u8, Error> {
    Err(Error::Usage("`grader explain` is not available yet".into()))
}
