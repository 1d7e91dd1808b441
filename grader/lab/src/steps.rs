//! Step kinds that mean the same in the labs that use them, written once. A lab's `Step`
//! enum holds them as its own variants (`Advance(grader_lab::steps::AdvanceStep)`), so
//! scenario files, their schema and their errors read the same in those labs. (Labs 4 and
//! 5 use this advance; lab 6's also expects what the requests that return during it
//! ended with, so it has its own.)

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
