//! The kit's own JSON report: one object on standard output; and pretty JSON for the
//! other JSON views.

use std::io::Write;

use super::Report;

/// Writes `report` as pretty JSON followed by a newline.
pub fn write(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    pretty(report, out)
}

/// Writes `value` as pretty JSON followed by a newline.
pub fn pretty(value: &impl serde::Serialize, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}
