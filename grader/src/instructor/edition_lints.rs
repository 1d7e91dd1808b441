//! The root `clippy.toml` of a kit or an edition, joined from each lab's own
//! `labs/<lab>/clippy.toml`.
//!
//! The lints keep real time out of graded code, and their messages say what to do
//! instead, which is each lab's own (its clock, how its scenarios make a call slow). Clippy
//! reads the `clippy.toml` nearest a crate, so a lab's file speaks for the lab's own
//! crates, and the root file, which speaks for every other crate (the student crates,
//! the kit crates, the grader), gives each lab's words: in the instructors' kit every
//! lab's, in an edition only its labs'. A test keeps the kit's root file equal to what
//! [`join`] writes from its labs.

use std::path::Path;

use crate::error::Error;

/// The file's name, in a lab's folder and at the root.
pub const FILE_NAME: &str = "clippy.toml";

const HEADER: &str = "\
# Time is injected: nothing a scenario checks may read the real clock or sleep.
# The few places where wall time is the point (the real clock itself, the watchdogs that
# stop runaway code) allow it explicitly with a comment saying why.
# Each lab's words are in labs/<lab>/clippy.toml, which speaks for that lab's crates;
# this file joins them for every other crate (`grader release` writes an edition's).
";

/// One banned method and why, from a lab's file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ban {
    path: String,
    reasons: Vec<String>,
}

/// The root `clippy.toml` for `labs` of the kit at `kit`: each banned method once, with
/// each lab's reason, in the labs' order; `None` when none of them has a file of its own.
pub fn join(kit: &Path, labs: &[String]) -> Result<Option<String>, Error> {
    let mut bans: Vec<Ban> = Vec::new();
    for lab in labs {
        let path = kit.join("labs").join(lab).join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("read", &path, e)),
        };
        let found = parse(&text);
        if found.is_empty() {
            return Err(Error::Usage(format!(
                "{}: no `{{ path = \"...\", reason = \"...\" }}` entry in it\n  help: list the lab's disallowed-methods there, one entry per line",
                crate::lab::kit::shown_path(kit, &path).display()
            )));
        }
        for ban in found {
            match bans.iter_mut().find(|b| b.path == ban.path) {
                Some(b) => {
                    for r in ban.reasons {
                        if !b.reasons.contains(&r) {
                            b.reasons.push(r);
                        }
                    }
                }
                None => bans.push(ban),
            }
        }
    }
    if bans.is_empty() {
        return Ok(None);
    }
    let mut out = String::from(HEADER);
    out.push_str("disallowed-methods = [\n");
    for ban in &bans {
        out.push_str(&format!(
            "    {{ path = \"{}\", reason = \"{}\" }},\n",
            ban.path,
            ban.reasons.join("; ")
        ));
    }
    out.push_str("]\n");
    Ok(Some(out))
}

/// The entries of a lab's file: one `{ path = "...", reason = "..." }` per line.
fn parse(text: &str) -> Vec<Ban> {
    let value = |line: &str, key: &str| -> Option<String> {
        let start = line.find(&format!("{key} = \""))? + key.len() + 4;
        let len = line[start..].find('"')?;
        Some(line[start..start + len].to_owned())
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            Some(Ban {
                path: value(l, "path")?,
                reasons: vec![value(l, "reason")?],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_labs_reason_is_kept_and_a_shared_one_given_once() {
        let kit = tempfile::tempdir().expect("a folder");
        for (lab, clock) in [("a", "a_kit::Clock"), ("b", "b_kit::Clock")] {
            let dir = kit.path().join("labs").join(lab);
            std::fs::create_dir_all(&dir).expect("create");
            std::fs::write(
                dir.join(FILE_NAME),
                format!(
                    "# words\ndisallowed-methods = [\n    {{ path = \"std::time::Instant::now\", reason = \"use {clock}\" }},\n    {{ path = \"std::process::exit\", reason = \"return an ExitCode\" }},\n]\n"
                ),
            )
            .expect("write");
        }
        let both = join(kit.path(), &["a".into(), "b".into()])
            .expect("joined")
            .expect("words");
        assert!(both.starts_with(HEADER), "{both}");
        assert!(
            both.ends_with("disallowed-methods = [\n    { path = \"std::time::Instant::now\", reason = \"use a_kit::Clock; use b_kit::Clock\" },\n    { path = \"std::process::exit\", reason = \"return an ExitCode\" },\n]\n"),
            "{both}"
        );
        let one = join(kit.path(), &["b".into()])
            .expect("joined")
            .expect("words");
        assert!(!one.contains("a_kit"), "{one}");
        assert_eq!(join(kit.path(), &["c".into()]).expect("none"), None);
        std::fs::write(kit.path().join("labs/a").join(FILE_NAME), "# nothing\n").expect("write");
        assert!(join(kit.path(), &["a".into()]).is_err());
    }
}
