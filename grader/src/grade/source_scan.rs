//! Reading the graded files for rule breaks that no scenario can see reliably.
//!
//! Code that reads the real clock passes a fake-clock scenario only by luck (or
//! fails it for reasons a student cannot see), so the report names the exact line.

use std::path::Path;

use crate::build::Subject;
use crate::report::SourceWarning;

/// Calls that read real time or wait in real time, and what they do.
const REAL_TIME: [(&str, &str); 7] = [
    ("Instant::now", "reads the real clock"),
    ("SystemTime::now", "reads the real clock"),
    ("thread::sleep", "sleeps in real time"),
    ("sleep(", "sleeps in real time"),
    ("wait_timeout(", "waits in real time"),
    ("park_timeout(", "waits in real time"),
    ("recv_timeout(", "waits in real time"),
];

/// Every use of real time in `files` (paths relative to the subject's crate); `fix` says
/// what to do instead, in the lab's words.
pub fn scan(subject: &Subject, files: &[String], fix: &str) -> Vec<SourceWarning> {
    let mut warnings = Vec::new();
    for rel in files {
        let Ok(text) = std::fs::read_to_string(subject.crate_dir.join(rel)) else {
            continue;
        };
        let shown = subject.shown_dir.join(Path::new(rel));
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if let Some((call, what)) = REAL_TIME.iter().find(|(call, _)| code.contains(call)) {
                warnings.push(SourceWarning {
                    location: format!("{}:{}", shown.display(), n + 1),
                    message: format!(
                        "`{}` {what}: the grader moves a fake clock, so {fix}",
                        call.trim_end_matches('(')
                    ),
                });
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn names_the_line_that_reads_the_real_clock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/breaker.rs"),
            "// Instant::now is banned\nfn f() {\n    let t = std::time::Instant::now();\n}\n",
        )
        .unwrap();
        let subject = Subject {
            key: "t".into(),
            label: "t".into(),
            crate_dir: dir.path().to_path_buf(),
            package: "t".into(),
            shown_dir: PathBuf::from("crates/student"),
            confined: None,
        };
        let w = scan(&subject, &["src/breaker.rs".into()], "use the clock");
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].location, "crates/student/src/breaker.rs:3");
        assert!(w[0].message.ends_with("so use the clock"), "{w:?}");
    }

    #[test]
    fn names_a_real_time_wait_on_a_condition_variable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/bulkhead.rs"),
            "fn f() {\n    let (g, _) = cv.wait_timeout(g, left).unwrap();\n}\n",
        )
        .unwrap();
        let subject = Subject {
            key: "t".into(),
            label: "t".into(),
            crate_dir: dir.path().to_path_buf(),
            package: "t".into(),
            shown_dir: PathBuf::from("crates/student"),
            confined: None,
        };
        let w = scan(&subject, &["src/bulkhead.rs".into()], "wait on the clock");
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].location, "crates/student/src/bulkhead.rs:2");
        assert!(
            w[0].message
                .starts_with("`wait_timeout` waits in real time"),
            "{w:?}"
        );
    }
}
