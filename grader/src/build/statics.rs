//! Code the race checks cannot run, found by reading the graded files.
//!
//! The explorer runs many schedules in one process, each from fresh code under test. A
//! `static` that holds a lock, an atomic, a condition variable or a once-cell outlives a
//! schedule: the next one would start with what the last left behind (a count, a lock
//! still held), and its verdict would depend on the order schedules ran in. Such code gets
//! no race verdict at all; the report names the line instead.

use std::path::Path;
use std::str::FromStr;

use proc_macro2::{TokenStream, TokenTree};

use crate::build::Subject;

/// Types that keep state between threads, and so between schedules when `static`.
const SHARED_STATE: [&str; 22] = [
    "Mutex",
    "RwLock",
    "Condvar",
    "Barrier",
    "Once",
    "OnceLock",
    "LazyLock",
    "AtomicBool",
    "AtomicI8",
    "AtomicI16",
    "AtomicI32",
    "AtomicI64",
    "AtomicIsize",
    "AtomicU8",
    "AtomicU16",
    "AtomicU32",
    "AtomicU64",
    "AtomicUsize",
    "AtomicPtr",
    "Sender",
    "SyncSender",
    "Receiver",
];

/// Every `static` in `files` (paths relative to the subject's crate) whose type holds
/// shared state, as `file:line: why` with the file as people see it.
pub fn scan(subject: &Subject, files: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for rel in files {
        let Ok(text) = std::fs::read_to_string(subject.crate_dir.join(rel)) else {
            continue;
        };
        let shown = subject.shown_dir.join(Path::new(rel));
        for (line, what) in statics(&text) {
            found.push(format!(
                "{}:{line}: a `static` holding a `{what}` outlives each explored schedule, so one schedule would start with what the last left behind; keep it in a field of one of your types instead",
                shown.display()
            ));
        }
    }
    found
}

/// The line of every `static` item in `text` whose type names one of [`SHARED_STATE`],
/// with that name. Text that does not lex as Rust has none.
fn statics(text: &str) -> Vec<(usize, &'static str)> {
    let Ok(tokens) = TokenStream::from_str(text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    walk(tokens, &mut found);
    found
}

fn walk(tokens: TokenStream, found: &mut Vec<(usize, &'static str)>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(g) => walk(g.stream(), found),
            TokenTree::Ident(id) if id == "static" => {
                // `'static` is a lifetime: a `'` joined to the word.
                let lifetime =
                    i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '\'');
                if lifetime {
                    continue;
                }
                if let Some(what) = static_type(&tokens[i + 1..]) {
                    found.push((id.span().start().line, what));
                }
            }
            _ => {}
        }
    }
}

/// For the tokens after `static`: `[mut] NAME : TYPE =`, the first shared-state type
/// named in TYPE.
fn static_type(rest: &[TokenTree]) -> Option<&'static str> {
    let mut rest = rest.iter().peekable();
    if matches!(rest.peek(), Some(TokenTree::Ident(id)) if id == "mut") {
        rest.next();
    }
    let Some(TokenTree::Ident(_)) = rest.next() else {
        return None;
    };
    let Some(TokenTree::Punct(colon)) = rest.next() else {
        return None;
    };
    if colon.as_char() != ':' {
        return None;
    }
    for token in rest {
        match token {
            TokenTree::Punct(p) if p.as_char() == '=' || p.as_char() == ';' => return None,
            TokenTree::Ident(id) => {
                if let Some(name) = SHARED_STATE.iter().find(|n| id == *n) {
                    return Some(name);
                }
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                if let Some(name) = inner.iter().find_map(|t| match t {
                    TokenTree::Ident(id) => SHARED_STATE.iter().find(|n| id == *n).copied(),
                    _ => None,
                }) {
                    return Some(name);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statics_that_hold_shared_state_are_found_with_their_line() {
        let text = "use std::sync::Condvar;\n\
                    static FREED: Condvar = Condvar::new();\n\
                    static NAME: &'static str = \"x\";\n\
                    fn f(x: &'static str) -> usize {\n\
                    \x20   static mut COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);\n\
                    \x20   static CELL: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();\n\
                    \x20   0\n\
                    }\n\
                    // static COMMENT: Mutex<()> = Mutex::new(());\n\
                    const LOCAL: usize = 3;\n";
        assert_eq!(
            statics(text),
            [(2, "Condvar"), (5, "AtomicUsize"), (6, "OnceLock")]
        );
    }

    #[test]
    fn text_that_is_not_rust_has_none() {
        assert!(statics("static \"unterminated").is_empty());
        assert!(statics("fn ok() {}").is_empty());
    }
}
