//! The kit's own JSON report: one object on standard output.

use std::io::Write;

use super::Report;

/// Writes `report` as pretty JSON followed by a newline.
pub fn write(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}
