//! Problems found in a file a person wrote, with the place to fix them.

use std::fmt;
use std::path::{Path, PathBuf};

/// A 1-based line and column in a text file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

impl Pos {
    /// The position of byte `offset` of `text`.
    pub fn of_offset(text: &str, offset: usize) -> Pos {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        Pos { line, col }
    }
}

/// Where each line of a text starts, to turn byte offsets into lines and columns without
/// counting from the start of the text each time: finding the line is a binary search,
/// and the column is counted from the line's start, or from the last position asked for
/// when that is earlier on the same line (positions asked for in order, as a file's steps
/// are, cost time in proportion to the text once in all).
#[derive(Debug)]
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    last: std::cell::Cell<(usize, Pos)>,
}

impl<'a> Lines<'a> {
    /// The lines of `text`.
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines {
            text,
            starts,
            last: std::cell::Cell::new((0, Pos { line: 1, col: 1 })),
        }
    }

    /// The line and column (in characters) of byte `offset`.
    pub fn pos(&self, offset: usize) -> Pos {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let index = self.starts.partition_point(|&s| s <= offset) - 1;
        let line_start = self.starts[index];
        let (last_offset, last_pos) = self.last.get();
        let (from, col) = if last_pos.line == index + 1 && last_offset <= offset {
            (last_offset, last_pos.col)
        } else {
            (line_start, 1)
        };
        let pos = Pos {
            line: index + 1,
            col: col + self.text[from..offset].chars().count(),
        };
        self.last.set((offset, pos));
        pos
    }

    /// The byte offset of a serde_json error position: serde_json counts `column` in
    /// bytes, and points at the last byte it read.
    pub fn offset_of_error(&self, e: &serde_json::Error) -> usize {
        let line_start = self
            .starts
            .get(e.line().saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len());
        (line_start + e.column().saturating_sub(1)).min(self.text.len())
    }
}

/// A file being checked: its path as shown, its text, and its lines, to place problems.
#[derive(Debug)]
pub struct Source<'a> {
    /// The path shown in messages.
    pub path: &'a Path,
    /// The file's text.
    pub text: &'a str,
    /// Its lines.
    pub lines: Lines<'a>,
}

impl<'a> Source<'a> {
    /// `text`, shown as `path`.
    pub fn new(path: &'a Path, text: &'a str) -> Self {
        Source {
            path,
            text,
            lines: Lines::new(text),
        }
    }

    /// A problem at byte `offset`.
    pub fn at(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.path, self.lines.pos(offset), message)
    }

    /// Where `"key"` first appears in `range` of the text, or where the range starts.
    pub fn key_in(&self, range: std::ops::Range<usize>, key: &str) -> usize {
        let needle = format!("\"{key}\"");
        self.text
            .get(range.clone())
            .and_then(|r| r.find(&needle))
            .map_or(range.start, |i| range.start + i)
    }
}

/// One problem: `file:line:column: message`, with an optional suggestion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as the user should see it (relative to the kit where possible).
    pub path: PathBuf,
    /// Where in the file; `None` for a problem with the file as a whole.
    pub pos: Option<Pos>,
    /// What is wrong.
    pub message: String,
    /// What to do about it, when that is clear.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A problem at `pos` in `path`.
    pub fn at(path: &Path, pos: Pos, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            pos: Some(pos),
            message: message.into(),
            help: None,
        }
    }

    /// A problem with `path` as a whole.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            pos: None,
            message: message.into(),
            help: None,
        }
    }

    /// Adds a suggestion.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(pos) = self.pos {
            write!(f, ":{}:{}", pos.line, pos.col)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

pub use grader_lab::did_you_mean;

/// A sentence for a serde_json error, without serde's own "at line X column Y" suffix.
pub fn describe_json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    };
    // serde names Rust types; people write numbers.
    let text = text
        .replace("expected u32", "expected a whole number")
        .replace("expected u64", "expected a whole number");
    match e.classify() {
        serde_json::error::Category::Syntax => format!("this is not valid JSON: {text}"),
        serde_json::error::Category::Eof => format!("the file ends too early: {text}"),
        serde_json::error::Category::Data | serde_json::error::Category::Io => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_place_offsets_in_any_order() {
        let text = "{\n  \"é\": 1,\n  \"b\": 2\n}";
        let lines = Lines::new(text);
        for offset in [
            text.find("\"b\"").unwrap(),
            0,
            text.find("1").unwrap(),
            3,
            text.len(),
        ] {
            assert_eq!(
                lines.pos(offset),
                Pos::of_offset(text, offset),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn positions_are_one_based_lines_and_columns() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2\n}";
        let offset = text.find("\"b\"").unwrap();
        assert_eq!(Pos::of_offset(text, offset), Pos { line: 3, col: 3 });
        assert_eq!(Pos::of_offset(text, 0), Pos { line: 1, col: 1 });
    }
}
