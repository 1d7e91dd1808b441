//! Fake-clock times written in a scenario's steps, such as the records and alerts a step
//! expects at `00:01:40.000`. Every lab writes them the same way (`HH:MM:SS.mmm`, as
//! reports print them), so they are checked here for every lab: each must be a time
//! (minutes and seconds from 00 to 59), and one the scenario's clock has reached by the
//! end of its step, since the clock moves only when a step advances it and nothing the
//! code under test writes can carry a later time. Without this, only running the
//! reference shows such a scenario to be wrong.

use grader_lab::{clock, duration};

use super::parsed::Parsed;
use crate::diagnostic::Diagnostic;
use crate::lab::Lab;

/// A time written in a step: where its text starts, and its parts.
#[derive(Debug, PartialEq, Eq)]
struct Written {
    offset: usize,
    text: String,
    hours: u64,
    minutes: u64,
    seconds: u64,
    millis: u64,
}

impl Written {
    /// Milliseconds since the scenario started, with minutes and seconds counted as
    /// written (so `00:00:61.000` is 61 s).
    fn ms(&self) -> u64 {
        ((self.hours * 60 + self.minutes) * 60 + self.seconds) * 1000 + self.millis
    }
}

/// Every problem with the times the readable steps write.
pub fn check(lab: &Lab, parsed: &Parsed<'_>) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let subject = lab.plugin.words().subject;
    // The clock after each step; unknown after a step that could not be read.
    let mut now = Some(0u64);
    for placed in &parsed.steps {
        let Some(placed) = placed else {
            now = None;
            continue;
        };
        now = now.map(|t| t.saturating_add(lab.plugin.advances_clock(&placed.step)));
        let text = parsed.source.text.get(placed.span.clone()).unwrap_or("");
        for t in times_in(text) {
            let at = placed.span.start + t.offset;
            if t.minutes >= 60 || t.seconds >= 60 {
                let part = if t.seconds >= 60 {
                    "seconds"
                } else {
                    "minutes"
                };
                problems.push(
                    parsed
                        .source
                        .at(
                            at,
                            format!("`{}` is not a time: its {part} go from 00 to 59", t.text),
                        )
                        .help(format!(
                            "write {} if you mean {} after the start",
                            clock(t.ms()),
                            duration(t.ms())
                        )),
                );
                continue;
            }
            let Some(now) = now else {
                continue;
            };
            if t.ms() > now {
                problems.push(
                    parsed
                        .source
                        .at(
                            at,
                            format!(
                                "this step expects something at {}, but the scenario's clock is only at {} when the step ends, and nothing {subject} writes can carry a later time",
                                t.text,
                                clock(now)
                            ),
                        )
                        .help(format!(
                            "advance the clock by {} more before this step, or correct the time",
                            duration(t.ms() - now)
                        )),
                );
            }
        }
    }
    problems
}

/// The times that open a string in `text` (`"00:01:40.000 acme/ORDERS ..."` or a string
/// that is just a time), with their offsets in `text`.
fn times_in(text: &str) -> Vec<Written> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (i, _) in text.match_indices('"') {
        let start = i + 1;
        let Some(candidate) = bytes.get(start..start + 12) else {
            continue;
        };
        let shaped = candidate.iter().enumerate().all(|(k, b)| match k {
            2 | 5 => *b == b':',
            8 => *b == b'.',
            _ => b.is_ascii_digit(),
        });
        let ends = matches!(bytes.get(start + 12), Some(b' ' | b'"'));
        if !shaped || !ends {
            continue;
        }
        let part = |from: usize, to: usize| -> u64 {
            text.get(start + from..start + to)
                .and_then(|p| p.parse().ok())
                .unwrap_or(0)
        };
        out.push(Written {
            offset: start,
            text: text[start..start + 12].to_owned(),
            hours: part(0, 2),
            minutes: part(3, 5),
            seconds: part(6, 8),
            millis: part(9, 12),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_found_where_a_string_starts_with_one() {
        let text = r#"{"expect_alerts": ["00:00:61.000 acme/ORDERS closed", "x 00:00:01.000"], "at": "01:02:03.004"}"#;
        let found = times_in(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].text, "00:00:61.000");
        assert_eq!(found[0].ms(), 61_000);
        assert_eq!(&text[found[0].offset..found[0].offset + 2], "00");
        assert_eq!(found[1].ms(), 3_723_004);
    }

    #[test]
    fn a_longer_number_is_not_a_time() {
        assert!(times_in(r#"["00:00:01.0000 x", "000:00:01.000"]"#).is_empty());
    }
}
