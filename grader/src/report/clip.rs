//! Caps on every text a submission can put into a report: panic messages, backtraces,
//! what the code printed, compiler output, timelines. Whatever a submission writes, a
//! report holds at most these many bytes of it, and says where it cut.

use crate::report::ScenarioResult;

/// A one-line message (a scenario's reason, a panic message, expected and observed).
pub const LINE: usize = 4 * 1024;
/// A backtrace.
pub const BACKTRACE: usize = 16 * 1024;
/// The compiler's messages about the code under test.
pub const COMPILE_ERRORS: usize = 64 * 1024;
/// Timeline entries kept per scenario.
pub const TIMELINE_STEPS: usize = 200;
/// Transition records shown per timeline entry, and targets per entry.
pub const TIMELINE_ITEMS: usize = 50;

/// The note that ends a cut text.
pub fn cut_note(dropped: u64) -> String {
    format!(" [... {dropped} more bytes cut]")
}

/// `text` cut to at most `max` bytes (at a character boundary), with a note saying how
/// much was left out.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = text[..end].to_owned();
    out.push_str(&cut_note((text.len() - end) as u64));
    out
}

/// Cuts `text` in place to at most `max` bytes, with the note.
pub fn clip_in_place(text: &mut String, max: usize) {
    if text.len() > max {
        *text = clip(text, max);
    }
}

/// Cuts every text of a scenario's result to its cap, and its timeline to a bounded
/// number of entries, each with a bounded number of items.
pub fn scenario_result(r: &mut ScenarioResult) {
    clip_in_place(&mut r.message, LINE);
    if let Some(f) = &mut r.failure {
        clip_in_place(&mut f.expected, LINE);
        clip_in_place(&mut f.observed, LINE);
        clip_in_place(&mut f.action, LINE);
    }
    if let Some(b) = &mut r.backtrace {
        clip_in_place(b, BACKTRACE);
    }
    if let Some(s) = &mut r.stopped_at {
        clip_in_place(s, LINE);
    }
    if let Some(i) = &mut r.interleaving {
        cut_list(&mut i.lines, TIMELINE_STEPS);
        i.lines.iter_mut().for_each(|l| clip_in_place(l, LINE));
    }
    r.timeline.truncate(TIMELINE_STEPS);
    for entry in &mut r.timeline {
        clip_in_place(&mut entry.result, LINE);
        for list in [&mut entry.targets, &mut entry.transitions] {
            cut_list(list, TIMELINE_ITEMS);
            for item in list.iter_mut() {
                clip_in_place(item, LINE);
            }
        }
    }
}

/// Keeps the first `max` items of `list`, and a last one saying how many were cut.
fn cut_list(list: &mut Vec<String>, max: usize) {
    let extra = list.len().saturating_sub(max);
    list.truncate(max);
    if extra > 0 {
        list.push(format!("[... {extra} more cut]"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_and_long_text_is_cut_with_a_note() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("abcdef", 3), "abc [... 3 more bytes cut]");
        // Never in the middle of a character.
        assert_eq!(clip("ééé", 3), "é [... 4 more bytes cut]");
    }
}
