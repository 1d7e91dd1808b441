//! `grader release`.

use crate::cli::ReleaseArgs;
use crate::error::Error;

use super::Ctx;

/// Runs `grader release`.
pub fn exec(_ctx: &mut Ctx<'_>, _args: ReleaseArgs) -> Result<u8, Error> {
    Err(Error::Usage("`grader release` is not available yet".into()))
}
