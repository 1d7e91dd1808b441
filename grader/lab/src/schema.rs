//! Schema-only types a plug-in's steps use for words the core fills in per lab.

use std::borrow::Cow;

pub use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

/// A schema-only type: the name of one of the lab's targets. The core lists a lab's
/// targets in the schema it writes for that lab.
pub struct TargetName;

impl JsonSchema for TargetName {
    fn schema_name() -> Cow<'static, str> {
        "TargetName".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "description": "A target of the lab, as named in its lab.json."})
    }
}

/// A schema-only type: a string that must be one of a fixed list of words. The lists are
/// the plug-in's own validator's, so the schema and `grader validate` accept the same
/// words.
#[macro_export]
macro_rules! word_list {
    ($(#[doc = $doc:literal])* $name:ident = $words:expr) => {
        $(#[doc = $doc])*
        pub struct $name;

        impl $crate::schema::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut $crate::schema::SchemaGenerator) -> $crate::schema::Schema {
                let description = [$($doc.trim()),*].join(" ");
                $crate::schema::json_schema!({"type": "string", "enum": $words, "description": description})
            }
        }
    };
}
