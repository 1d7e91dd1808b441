//! `grader validate`.

use crate::cli::ValidateArgs;
use crate::error::Error;

use super::Ctx;

/// Runs `grader validate`.
pub fn exec(_ctx: &mut Ctx<'_>, _args: ValidateArgs) -> Result<u8, Error> {
    Err(Error::Usage(
        "`grader validate` is not available yet".into(),
    ))
}
