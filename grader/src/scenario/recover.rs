//! Reading JSON that holds several mistakes, to report every one in a single run, as a
//! compiler does, instead of the first only.
//!
//! serde stops at the first mistake. To find the next one, the member the mistake is about
//! (an unknown key, a value of the wrong type) is blanked out of a copy of the text, a
//! space for every byte but line breaks, so that every offset and line of the copy is the
//! file's, and parsing starts again. A mistake that only follows from one already reported
//! is left out: a required field whose bad value was blanked, or that an unknown key was a
//! misspelling of, is not reported missing.

use std::ops::Range;

use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::diagnostic::{Lines, describe_json_error, did_you_mean};

/// How many mistakes of one JSON value are reported at most; each costs a parse of it.
pub const MAX_MISTAKES: usize = 50;

/// One mistake, at a byte offset of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mistake {
    /// Where it is: the key, or the value, it is about.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
    /// What to do, when that is clear.
    pub help: Option<String>,
    /// For an unknown key or word: the words allowed there.
    pub allowed: Vec<String>,
}

/// Every mistake of a JSON value, and the keys blanked out of its top-level object.
#[derive(Clone, Debug, Default)]
pub struct Mistakes {
    /// In the order found.
    pub list: Vec<Mistake>,
    /// Keys of the top-level object whose member was blanked (an unknown key, a bad
    /// value), so that checks of what the value means can leave them alone.
    pub blanked: Vec<String>,
    /// Whether there were more mistakes than [`MAX_MISTAKES`].
    pub more: bool,
}

/// A member of a JSON object: its key, where the key starts and where its value lies,
/// as byte offsets of the text it was read from.
#[derive(Clone, Debug)]
pub struct Member {
    /// The key.
    pub key: String,
    /// Where its opening quote is.
    pub key_start: usize,
    /// Where the value lies.
    pub value: Range<usize>,
}

/// Entries of an object in file order, with duplicates kept.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(V)
    }
}

/// Elements of an array.
struct Elements<'a>(Vec<&'a RawValue>);

impl<'de> Deserialize<'de> for Elements<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Elements<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut elements = Vec::new();
                while let Some(e) = seq.next_element::<&'de RawValue>()? {
                    elements.push(e);
                }
                Ok(Elements(elements))
            }
        }
        d.deserialize_seq(V)
    }
}

/// Where `raw`, read from `text`, lies in it.
fn span_in(text: &str, raw: &RawValue) -> Range<usize> {
    let start = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    start..start + raw.get().len()
}

/// `range` without the white space around it.
fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
    let slice = &text[range.clone()];
    let start = range.start + (slice.len() - slice.trim_start().len());
    let end = range.start + slice.trim_end().len();
    start..end.max(start)
}

/// The members of the object at `range` of `text`, or `None` if it is not an object.
pub fn members(text: &str, range: Range<usize>) -> Option<Vec<Member>> {
    let range = trimmed(text, range);
    if !text[range.clone()].starts_with('{') {
        return None;
    }
    let Entries(entries) = serde_json::from_str(&text[range.clone()]).ok()?;
    let bytes = text.as_bytes();
    let mut after = range.start + 1;
    let mut members = Vec::with_capacity(entries.len());
    for (key, raw) in entries {
        let value = span_in(text, raw);
        // The key is the first thing after the previous member (or the brace) that is
        // neither white space nor a comma.
        let mut key_start = after;
        while key_start < value.start
            && (bytes[key_start].is_ascii_whitespace() || bytes[key_start] == b',')
        {
            key_start += 1;
        }
        after = value.end;
        members.push(Member {
            key,
            key_start,
            value,
        });
    }
    Some(members)
}

/// The elements of the array at `range` of `text`, or `None` if it is not an array.
pub fn elements(text: &str, range: Range<usize>) -> Option<Vec<Range<usize>>> {
    let range = trimmed(text, range);
    if !text[range.clone()].starts_with('[') {
        return None;
    }
    let Elements(elements) = serde_json::from_str(&text[range]).ok()?;
    Some(elements.iter().map(|raw| span_in(text, raw)).collect())
}

/// What a mistake at some offset is about.
enum Place {
    /// A member of an object: the object's start, the member, and its key's end.
    Member {
        object: usize,
        member: Member,
        key_end: usize,
    },
    /// An element of an array.
    Element(Range<usize>),
    /// An object or array as a whole (a missing field); where to report it.
    Whole { start: usize, report_at: usize },
}

/// The innermost member or element of `text` around `at`.
fn locate(text: &str, at: usize) -> Place {
    let mut container = trimmed(text, 0..text.len());
    let mut report_at = container.start;
    loop {
        let bytes = text.as_bytes();
        let opens = |r: &Range<usize>| matches!(bytes.get(r.start), Some(b'{' | b'['));
        if let Some(members) = members(text, container.clone()) {
            let Some(m) = members
                .into_iter()
                .find(|m| m.key_start <= at && at < m.value.end)
            else {
                return Place::Whole {
                    start: container.start,
                    report_at,
                };
            };
            if opens(&m.value) && at > m.value.start {
                report_at = m.key_start;
                container = m.value.clone();
                continue;
            }
            let key_end = text[m.key_start..m.value.start]
                .rfind(':')
                .map_or(m.key_start, |i| m.key_start + i);
            return Place::Member {
                object: container.start,
                member: m,
                key_end,
            };
        }
        if let Some(elements) = elements(text, container.clone()) {
            let Some(e) = elements.into_iter().find(|e| e.start <= at && at < e.end) else {
                return Place::Whole {
                    start: container.start,
                    report_at,
                };
            };
            if opens(&e) && at > e.start {
                report_at = e.start;
                container = e;
                continue;
            }
            return Place::Element(e);
        }
        return Place::Whole {
            start: container.start,
            report_at,
        };
    }
}

/// Blanks `range` of `work` and the comma that separates it from its neighbour.
fn blank(work: &mut [u8], range: Range<usize>) {
    let mut start = range.start;
    let mut end = range.end;
    let mut after = end;
    while after < work.len() && work[after].is_ascii_whitespace() {
        after += 1;
    }
    if work.get(after) == Some(&b',') {
        end = after + 1;
    } else {
        let mut before = start;
        while before > 0 && work[before - 1].is_ascii_whitespace() {
            before -= 1;
        }
        if before > 0 && work[before - 1] == b',' {
            start = before - 1;
        }
    }
    for b in &mut work[start..end] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// The words between backticks in serde's message, the first being the one it is about
/// and the rest, after "expected", the ones allowed.
fn words(message: &str) -> (Option<String>, Vec<String>) {
    let quoted =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    match message.find(", expected") {
        Some(i) => (
            quoted(&message[..i]).into_iter().next(),
            quoted(&message[i..]),
        ),
        None => (quoted(message).into_iter().next(), Vec::new()),
    }
}

/// A mistake from serde's message: unknown keys and words get the closest allowed word.
fn mistake(offset: usize, e: &serde_json::Error) -> Mistake {
    let raw = describe_json_error(e);
    let unknown = ["unknown field", "unknown variant"]
        .iter()
        .find(|p| raw.starts_with(*p));
    let Some(prefix) = unknown else {
        return Mistake {
            offset,
            message: raw,
            help: None,
            allowed: Vec::new(),
        };
    };
    let (word, allowed) = words(&raw);
    let word = word.unwrap_or_default();
    let what = if *prefix == "unknown field" {
        "field"
    } else {
        "word"
    };
    let help = match did_you_mean(&word, allowed.iter().map(String::as_str)) {
        Some(close) => format!("did you mean `{close}`?"),
        None if allowed.is_empty() => format!("remove `{word}`"),
        None => format!(
            "use one of: {}",
            allowed
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Mistake {
        offset,
        message: format!("unknown {what} `{word}`"),
        help: Some(help),
        allowed,
    }
}

/// Every mistake of `text[range]`, given serde's first (`first`, placed in that slice) and
/// how to parse a repaired copy of the slice. Offsets are `text`'s.
pub fn every_mistake(
    text: &str,
    range: Range<usize>,
    first: serde_json::Error,
    parse: impl Fn(&str) -> Result<(), serde_json::Error>,
) -> Mistakes {
    let base = range.start;
    let slice = &text[range];
    let lines = Lines::new(slice);
    let mut work = slice.as_bytes().to_vec();
    let mut found = Mistakes::default();
    // Per blanked member: its object, its key, and the word it was taken for.
    let mut blanked: Vec<(usize, String, Option<String>)> = Vec::new();
    let top = trimmed(slice, 0..slice.len()).start;
    let mut error = first;
    loop {
        if found.list.len() == MAX_MISTAKES {
            found.more = true;
            break;
        }
        let at = lines.offset_of_error(&error);
        let Ok(current) = std::str::from_utf8(&work) else {
            break;
        };
        if error.is_syntax() || error.is_eof() {
            // After a repair, a syntax error is the repair's (an object left empty).
            if blanked.is_empty() {
                found.list.push(mistake(base + at, &error));
            }
            break;
        }
        match locate(current, at) {
            Place::Member {
                object,
                member,
                key_end,
            } => {
                let on_key = at <= key_end || error.to_string().starts_with("duplicate field");
                let m = mistake(
                    base + if on_key {
                        member.key_start
                    } else {
                        member.value.start
                    },
                    &error,
                );
                let meant = m
                    .help
                    .as_deref()
                    .and_then(|h| h.strip_prefix("did you mean `"))
                    .and_then(|h| h.strip_suffix("`?"))
                    .map(str::to_owned);
                found.list.push(m);
                if object == top {
                    found.blanked.push(member.key.clone());
                }
                blanked.push((object, member.key, meant));
                blank(&mut work, member.key_start..member.value.end);
            }
            Place::Element(e) => {
                found.list.push(mistake(base + e.start, &error));
                blanked.push((usize::MAX, String::new(), None));
                blank(&mut work, e);
            }
            Place::Whole { start, report_at } => {
                let message = error.to_string();
                let repaired_here = blanked.iter().any(|(o, ..)| *o == start);
                if message.starts_with("missing field") {
                    let field = words(&message).0.unwrap_or_default();
                    let explained = blanked.iter().any(|(o, k, meant)| {
                        *o == start && (*k == field || meant.as_deref() == Some(&field))
                    });
                    if !explained {
                        let mut m = mistake(base + report_at, &error);
                        m.help = Some(format!(
                            "add \"{field}\" here; the lab's {} lists every field, and which are required",
                            super::schema::FILE_NAME
                        ));
                        found.list.push(m);
                    }
                } else if !repaired_here {
                    found.list.push(mistake(base + report_at, &error));
                }
                break;
            }
        }
        let Ok(repaired) = std::str::from_utf8(&work) else {
            break;
        };
        match parse(repaired) {
            Ok(()) => break,
            Err(e) => error = e,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Thing {
        name: String,
        count: u32,
        #[serde(default)]
        tags: Vec<u32>,
    }

    fn all(text: &str) -> Vec<(usize, String, Option<String>)> {
        let first = serde_json::from_str::<Thing>(text).expect_err("a mistake");
        let parse = |t: &str| serde_json::from_str::<Thing>(t).map(|_| ());
        every_mistake(text, 0..text.len(), first, parse)
            .list
            .into_iter()
            .map(|m| (m.offset, m.message, m.help))
            .collect()
    }

    #[test]
    fn every_mistake_of_an_object_is_found_at_its_key_or_value() {
        let text = r#"{"nme": "a", "count": "three", "tags": [1, "x"], "name": "b", "extra": 1}"#;
        let found = all(text);
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(
            found,
            [
                (
                    at("\"nme\""),
                    "unknown field `nme`".into(),
                    Some("did you mean `name`?".into())
                ),
                (
                    at("\"three\""),
                    "invalid type: string \"three\", expected a whole number".into(),
                    None
                ),
                (
                    at("\"x\""),
                    "invalid type: string \"x\", expected a whole number".into(),
                    None
                ),
                (
                    at("\"extra\""),
                    "unknown field `extra`".into(),
                    Some("use one of: `name`, `count`, `tags`".into())
                ),
            ]
        );
    }

    #[test]
    fn a_field_taken_for_a_misspelling_is_not_also_missing() {
        let text = "{\n  \"nam\": \"a\",\n  \"count\": 1\n}";
        let found = all(text);
        assert_eq!(found.len(), 1, "{found:?}");
        let text = "{\"count\": 1}";
        assert_eq!(
            all(text),
            [(
                0,
                "missing field `name`".into(),
                Some("add \"name\" here; the lab's scenario.schema.json lists every field, and which are required".into())
            )]
        );
    }

    #[test]
    fn members_know_where_their_keys_start() {
        let text = "{ \"a\" : 1 ,\n \"b\": [2]}";
        let m = members(text, 0..text.len()).unwrap();
        assert_eq!(m[0].key_start, 2);
        assert_eq!(&text[m[1].key_start..m[1].value.end], "\"b\": [2]");
    }
}
