//! Step kinds that mean the same in every lab that has them, written once. A lab's `Step`
//! enum holds them as its own variants (`Advance(grader_lab::steps::AdvanceStep)`), so
//! scenario files, their schema and their errors read the same in every lab.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::limits::MAX_ADVANCE_MS;

/// `{"advance": {"ms": 10000}}`
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvanceStep {
    /// Milliseconds of fake time: at least 1, at most a day (86400000); a scenario's
    /// clock goes no further than a year.
    #[schemars(range(min = 1, max = MAX_ADVANCE_MS))]
    pub ms: u64,
}
