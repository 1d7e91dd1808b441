//! The `crate::` and `super::` paths a Rust source file names, outside comments, string
//! literals and test modules (`#[cfg(test)] mod tests { .. }`), each with its line.

/// One path as written: where it starts, and its segments after `crate` (`super`s resolved
/// against `module`, the module the path is written in, file and inline modules both).
#[derive(Debug, Clone)]
pub struct Named {
    pub line: usize,
    pub segments: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Star,
    Dollar,
    Punct(char),
}

/// Tokens of `text` with their lines, comments, literals and lifetimes left out.
fn tokens(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            i += if c == 'b' { 2 } else { 1 };
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
        } else if (c == 'r' || (c == 'b' && at(i + 1) == 'r'))
            && matches!(at(i + usize::from(c == 'b') + 1), '"' | '#')
            && raw_start(&chars, i + usize::from(c == 'b') + 1).is_some()
        {
            let start = i + usize::from(c == 'b') + 1;
            let hashes = raw_start(&chars, start).unwrap_or(0);
            i = start + hashes + 1;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += hashes + 1;
                    break;
                }
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while is_ident(at(i)) {
                    i += 1;
                }
            }
        } else if is_ident_start(c) {
            let start = i;
            while is_ident(at(i)) {
                i += 1;
            }
            out.push((Token::Ident(chars[start..i].iter().collect()), line));
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Token::Colons, line));
            i += 2;
        } else {
            out.push((
                match c {
                    '{' => Token::Open,
                    '}' => Token::Close,
                    ',' => Token::Comma,
                    '*' => Token::Star,
                    '$' => Token::Dollar,
                    other => Token::Punct(other),
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

/// How many `#` open a raw string at `i` (`r` already passed), if one starts there.
fn raw_start(chars: &[char], i: usize) -> Option<usize> {
    let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
    (chars.get(i + hashes) == Some(&'"')).then_some(hashes)
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `crate::` or `super::` path in `text`, a file of module `module` (segments from the
/// crate root), groups (`{a, b::c}`) spread into one path each.
pub fn named(text: &str, module: &[String]) -> Vec<Named> {
    let tokens = tokens(text);
    let mut out = Vec::new();
    // Inline modules open here: (name, the brace depth inside them, whether they are
    // tests).
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let (token, line) = &tokens[i];
        match token {
            Token::Open => depth += 1,
            Token::Close => {
                if inline.last().is_some_and(|(_, d, _)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Token::Ident(word) if word == "mod" => {
                if let (Some((Token::Ident(name), _)), Some((Token::Open, _))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1, is_test(&tokens, i)));
                }
            }
            Token::Ident(word)
                if (word == "crate" || word == "super")
                // `$crate` is a macro's own crate, written for its callers.
                && (i == 0 || tokens[i - 1].0 != Token::Dollar) =>
            {
                let in_test = inline.iter().any(|(_, _, test)| *test);
                if !in_test && tokens.get(i + 1).map(|t| &t.0) == Some(&Token::Colons) {
                    let here: Vec<String> = module
                        .iter()
                        .cloned()
                        .chain(inline.iter().map(|(name, _, _)| name.clone()))
                        .collect();
                    let mut base = if word == "crate" {
                        Vec::new()
                    } else {
                        parent(&here)
                    };
                    let mut j = i + 2;
                    // `super::super::..`
                    while word == "super"
                        && matches!(tokens.get(j), Some((Token::Ident(w), _)) if w == "super")
                        && tokens.get(j + 1).map(|t| &t.0) == Some(&Token::Colons)
                    {
                        base = parent(&base);
                        j += 2;
                    }
                    let mut found = Vec::new();
                    tree(&tokens, &mut j, base, &mut found);
                    out.extend(found.into_iter().map(|segments| Named {
                        line: *line,
                        segments,
                    }));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether the `mod` at `i` follows `#[cfg(test)]`: code built only for the crate's own
/// tests, which may reach any module.
fn is_test(tokens: &[(Token, usize)], i: usize) -> bool {
    let word = |w: &str| Token::Ident(w.to_owned());
    let attribute = [
        Token::Punct('#'),
        Token::Punct('['),
        word("cfg"),
        Token::Punct('('),
        word("test"),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    let i = match i.checked_sub(1).map(|p| &tokens[p].0) {
        Some(Token::Ident(w)) if w == "pub" => i - 1,
        _ => i,
    };
    i >= attribute.len()
        && tokens[i - attribute.len()..i]
            .iter()
            .map(|(t, _)| t)
            .eq(attribute.iter())
}

fn parent(module: &[String]) -> Vec<String> {
    module[..module.len().saturating_sub(1)].to_vec()
}

/// Reads one use tree at `*j` (after `prefix::`): a path, maybe ending in `*` or a group.
fn tree(tokens: &[(Token, usize)], j: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        match tokens.get(*j).map(|t| &t.0) {
            Some(Token::Ident(word)) => {
                if word != "self" {
                    path.push(word.clone());
                }
                *j += 1;
                if tokens.get(*j).map(|t| &t.0) == Some(&Token::Colons) {
                    *j += 1;
                } else {
                    out.push(path);
                    return;
                }
            }
            Some(Token::Open) => {
                *j += 1;
                loop {
                    match tokens.get(*j).map(|t| &t.0) {
                        Some(Token::Close) => {
                            *j += 1;
                            return;
                        }
                        Some(Token::Comma) => *j += 1,
                        None => return,
                        _ => {
                            let before = *j;
                            tree(tokens, j, path.clone(), out);
                            if *j == before {
                                *j += 1;
                            }
                        }
                    }
                }
            }
            Some(Token::Star) => {
                *j += 1;
                out.push(path);
                return;
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}
