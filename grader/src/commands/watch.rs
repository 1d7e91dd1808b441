//! `grader watch`.

use crate::cli::WatchArgs;
use crate::error::Error;

use super::Ctx;

/// Runs `grader watch`.
pub fn exec(_ctx: &mut Ctx<'_>, _args: WatchArgs) -> Result<u8, Error> {
    Err(Error::Usage("`grader watch` is not available yet".into()))
}
