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
    fn positions_are_one_based_lines_and_columns() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2\n}";
        let offset = text.find("\"b\"").unwrap();
        assert_eq!(Pos::of_offset(text, offset), Pos { line: 3, col: 3 });
        assert_eq!(Pos::of_offset(text, 0), Pos { line: 1, col: 1 });
    }
}
