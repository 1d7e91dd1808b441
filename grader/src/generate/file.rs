//! A generated scenario as the text of an ordinary scenario file: the envelope, the
//! targets' settings, one step per line, as instructors write them.

use serde_json::{Map, Value};

/// What a generated scenario file says about itself.
#[derive(Clone, Debug)]
pub struct Envelope {
    /// Its name (the file is `<name>.json`).
    pub name: String,
    /// One sentence.
    pub title: String,
    /// The lab's generated category.
    pub category: String,
    /// Its points.
    pub points: u32,
    /// Whether only CI grading runs it.
    pub hidden: bool,
    /// Where it comes from, in words.
    pub description: String,
    /// The hint a failure gets when the lab has no hint for the rule of the failed step.
    pub hint: String,
}

/// The file's text.
pub fn text(envelope: &Envelope, targets: &Map<String, Value>, steps: &[Value]) -> String {
    let quote = |s: &str| Value::String(s.to_owned()).to_string();
    let mut out = String::from("{\n  \"format_version\": 1,\n");
    out.push_str(&format!("  \"name\": {},\n", quote(&envelope.name)));
    out.push_str(&format!("  \"title\": {},\n", quote(&envelope.title)));
    out.push_str(&format!("  \"category\": {},\n", quote(&envelope.category)));
    out.push_str(&format!("  \"points\": {},\n", envelope.points));
    if envelope.hidden {
        out.push_str("  \"visibility\": \"hidden\",\n");
    }
    out.push_str(&format!(
        "  \"description\": {},\n",
        quote(&envelope.description)
    ));
    out.push_str(&format!("  \"hint\": {},\n", quote(&envelope.hint)));
    if !targets.is_empty() {
        out.push_str("  \"targets\": {\n");
        let lines: Vec<String> = targets
            .iter()
            .map(|(name, settings)| format!("    {}: {settings}", quote(name)))
            .collect();
        out.push_str(&lines.join(",\n"));
        out.push_str("\n  },\n");
    }
    out.push_str("  \"steps\": [\n");
    let lines: Vec<String> = steps.iter().map(|s| format!("    {s}")).collect();
    out.push_str(&lines.join(",\n"));
    out.push_str("\n  ],\n  \"$schema\": \"../scenario.schema.json\"\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_file_reads_back_as_what_was_written() {
        let envelope = Envelope {
            name: "gen_3".into(),
            title: "A \"quoted\" title".into(),
            category: "generated".into(),
            points: 1,
            hidden: true,
            description: "From seed 3.".into(),
            hint: "Read rule 4.".into(),
        };
        let mut targets = Map::new();
        targets.insert("acme/ORDERS".into(), serde_json::json!({"window": 7}));
        let steps = vec![
            serde_json::json!({"advance": {"ms": 1}}),
            serde_json::json!({"send": {"flow": "acme/ORDERS", "expect": "200"}}),
        ];
        let text = text(&envelope, &targets, &steps);
        let back: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(back["title"], "A \"quoted\" title");
        assert_eq!(back["visibility"], "hidden");
        assert_eq!(back["targets"]["acme/ORDERS"]["window"], 7);
        assert_eq!(back["steps"].as_array().map(Vec::len), Some(2));
        assert!(text.contains("\n    {\"advance\":{\"ms\":1}},\n"), "{text}");
    }
}
