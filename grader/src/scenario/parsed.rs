//! A scenario file as far as it could be read ([`super::load`]): its envelope field by
//! field and its steps, which the checks of what a file means read ([`super::validate`],
//! [`super::clock_times`], [`super::rules`]).

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::PlacedStep;
use super::model::Visibility;
use super::recover;
use crate::diagnostic::Source;

/// What the envelope says, read field by field, so that a field with a mistake leaves
/// the others to be checked: `None` for a field absent (where it has no default) or not
/// of its type (a mistake already reported).
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// `format_version`.
    pub format_version: Option<u64>,
    /// `name`.
    pub name: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `category`.
    pub category: Option<String>,
    /// `points`.
    pub points: Option<u64>,
    /// `hint`.
    pub hint: Option<String>,
    /// `visibility`, `visible` when absent.
    pub visibility: Option<Visibility>,
    /// `race`.
    pub race: Option<bool>,
    /// Where each top-level key starts.
    keys: Vec<(String, usize)>,
}

impl Header {
    pub(super) fn read(text: &str, top: &[recover::Member]) -> Header {
        let field = |key: &str| {
            top.iter()
                .find(|m| m.key == key)
                .map(|m| &text[m.value.clone()])
        };
        fn value<T: serde::de::DeserializeOwned>(raw: Option<&str>) -> Option<T> {
            serde_json::from_str(raw?).ok()
        }
        Header {
            format_version: value(field("format_version")),
            name: value(field("name")),
            title: value(field("title")),
            category: value(field("category")),
            points: value(field("points")),
            hint: value(field("hint")),
            visibility: match field("visibility") {
                None => Some(Visibility::Visible),
                raw => value(raw),
            },
            race: value(field("race")),
            keys: top.iter().map(|m| (m.key.clone(), m.key_start)).collect(),
        }
    }

    /// Where top-level `key` starts, or the file's start.
    pub fn key(&self, key: &str) -> usize {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map_or(0, |(_, at)| *at)
    }

    /// Whether the file has top-level `key`.
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|(k, _)| k == key)
    }
}

/// A scenario file read as far as it could be: what [`super::validate`] checks.
pub struct Parsed<'a> {
    /// The file.
    pub source: Source<'a>,
    /// The envelope's fields.
    pub header: Header,
    /// Each step, or `None` where it has a mistake (reported).
    pub steps: Vec<Option<PlacedStep>>,
    /// Whether `steps` is a list (when it is not, that is reported already).
    pub steps_read: bool,
    /// The `targets` overrides, per target name.
    pub overrides: BTreeMap<String, &'a RawValue>,
}
