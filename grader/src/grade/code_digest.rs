//! A submission's code with its form left out: every comment (doc comments too) and all
//! white space removed, so two submissions that differ only there get the same digest.
//! The class page groups submissions by it, beside those whose files are identical.
//!
//! What it cannot see is any other change of form: renamed variables, reordered
//! functions or items, code moved between files, a loop rewritten as an iterator. Equal
//! digests are a reason to read two submissions side by side, never proof of anything.

use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use sha2::{Digest, Sha256};

use crate::report::provenance::hex;

/// SHA-256 of the files' tokens, file by file in path order, without comments or white
/// space. A file that does not tokenize (an unclosed string, say) counts by its text with
/// white space removed.
pub fn digest(files: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = files.iter().collect();
    sorted.sort();
    let mut all = String::new();
    for (path, text) in sorted {
        all.push_str(path);
        all.push('\n');
        match TokenStream::from_str(text) {
            Ok(tokens) => tokens_of(tokens, &mut all),
            Err(_) => all.extend(text.chars().filter(|c| !c.is_whitespace())),
        }
        all.push('\n');
    }
    hex(&Sha256::digest(all.as_bytes()))
}

/// Appends each token of `tokens`, one per line (so `a b` and `ab` stay apart), leaving
/// out doc comments, which the tokenizer turns into `#[doc = "..."]` attributes.
fn tokens_of(tokens: TokenStream, out: &mut String) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let Some(skip) = doc_attribute(&trees[i..]) {
            i += skip;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push('\n');
                tokens_of(g.stream(), out);
                out.push_str(close);
            }
            other => out.push_str(&other.to_string()),
        }
        out.push('\n');
        i += 1;
    }
}

/// How many trees a doc attribute at the start of `trees` takes (`#` `[doc = ...]`, or
/// `#` `!` `[doc = ...]`), if one is there.
fn doc_attribute(trees: &[TokenTree]) -> Option<usize> {
    let TokenTree::Punct(hash) = trees.first()? else {
        return None;
    };
    if hash.as_char() != '#' {
        return None;
    }
    let (bang, group) = match trees.get(1)? {
        TokenTree::Punct(p) if p.as_char() == '!' => (1, trees.get(2)?),
        other => (0, other),
    };
    let TokenTree::Group(g) = group else {
        return None;
    };
    let first = g.stream().into_iter().next();
    let is_doc = g.delimiter() == Delimiter::Bracket
        && matches!(first, Some(TokenTree::Ident(ident)) if ident == "doc");
    is_doc.then_some(2 + bang)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> String {
        digest(&[("src/a.rs".to_owned(), text.to_owned())])
    }

    #[test]
    fn comments_and_white_space_do_not_count() {
        let plain = one("fn f(x: u32) -> u32 { x + 1 }\n");
        let dressed = one(
            "/// Adds one.\n//! module docs\nfn f(x: u32)   -> u32 {\n    // the answer\n    x /* plus */ + 1\n}\n",
        );
        assert_eq!(plain, dressed);
    }

    #[test]
    fn code_and_strings_count() {
        let plain = one("fn f(x: u32) -> u32 { x + 1 }\n");
        assert_ne!(plain, one("fn f(x: u32) -> u32 { x + 2 }\n"));
        assert_ne!(plain, one("fn g(x: u32) -> u32 { x + 1 }\n"));
        assert_ne!(
            one("const S: &str = \"a b\";"),
            one("const S: &str = \"ab\";")
        );
        // Tokens that would run together stay apart.
        assert_ne!(one("let a b;"), one("let ab;"));
    }

    #[test]
    fn which_file_holds_the_code_counts() {
        let a = digest(&[
            ("src/a.rs".into(), "fn f() {}".into()),
            ("src/b.rs".into(), String::new()),
        ]);
        let b = digest(&[
            ("src/a.rs".into(), String::new()),
            ("src/b.rs".into(), "fn f() {}".into()),
        ]);
        assert_ne!(a, b);
    }
}
