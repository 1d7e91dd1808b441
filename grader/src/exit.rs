//! The grader's exit statuses, in one table.
//!
//! | status | meaning |
//! |---|---|
//! | 0 | graded: every scenario passed |
//! | 1 | graded: some scenario did not pass (including code that does not compile) |
//! | 2 | could not grade: bad command line, missing lab, invalid lab or scenario file |
//! | 3 | could not grade: the kit itself is broken (its harness does not build, files cannot be read or written) |

/// Graded, full marks.
pub const PASSED: u8 = 0;
/// Graded, not full marks.
pub const NOT_FULL_MARKS: u8 = 1;
/// Could not grade because of what the user gave: arguments, lab name, scenario files.
pub const BAD_INPUT: u8 = 2;
/// Could not grade because the kit or the machine failed.
pub const KIT_FAILURE: u8 = 3;
