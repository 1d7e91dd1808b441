//! Reading the events a harness wrote. Everything in the results file comes from a child
//! process that runs code under test, so none of it is trusted: the file and each line
//! are size-capped, and a line that is not an event makes the scenario's results
//! unreadable (an error for that scenario), never a panic or a silently dropped event.

use std::io::Read;
use std::path::Path;

use grader_protocol::Event;

/// The largest results file read, in bytes. A scenario's events take a few kilobytes.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// The longest line read, in bytes (the story of a failing race schedule can take
/// hundreds of kilobytes).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// The most events read from one file. A scenario has a few dozen steps and a race check
/// writes one event per distinct outcome; the cap bounds what a flood of tiny events
/// costs the grader in memory beyond the file's bytes.
pub const MAX_EVENTS: usize = 50_000;

/// The events in the results file at `path`, in order, or why they cannot be read. A
/// missing file is no events (a child that died before writing any). A last line without
/// its line break was being written when the process ended, and is left out.
pub fn read(path: &Path) -> Result<Vec<Event>, String> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("the results file cannot be opened: {e}")),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("the results file cannot be read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "the results file is larger than {} MB; the harness writes a few kB per scenario",
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    parse(&bytes)
}

/// The events in `bytes`, as [`read`] takes them.
pub fn parse(bytes: &[u8]) -> Result<Vec<Event>, String> {
    let complete = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &[][..],
    };
    let mut events = Vec::new();
    for (n, line) in complete.split(|b| *b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        if line.len() > MAX_LINE_BYTES {
            return Err(format!(
                "line {} of the results is {} bytes long, more than the {} kB an event may take",
                n + 1,
                line.len(),
                MAX_LINE_BYTES / 1024
            ));
        }
        if events.len() == MAX_EVENTS {
            return Err(format!(
                "the results file holds more than {MAX_EVENTS} events; the harness writes a few dozen per scenario"
            ));
        }
        let event = serde_json::from_slice::<Event>(line)
            .map_err(|e| format!("line {} of the results is not an event: {e}", n + 1))?;
        events.push(event);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_and_a_cut_last_line_is_left_out() {
        let events = parse(b"\"ready\"\n{\"begin\":{\"step\":0,\"at_ms\":0}}\n\"finis").unwrap();
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let e = parse(b"\"ready\"\nthis is not json\n").unwrap_err();
        assert!(
            e.starts_with("line 2 of the results is not an event"),
            "{e}"
        );
        let e = parse(b"{\"step\":{\"step\":\"x\"}}\n").unwrap_err();
        assert!(e.starts_with("line 1"), "{e}");
    }

    #[test]
    fn a_huge_line_is_an_error() {
        let mut huge = vec![b'"'; MAX_LINE_BYTES + 10];
        huge.push(b'\n');
        let e = parse(&huge).unwrap_err();
        assert!(e.contains("bytes long"), "{e}");
    }

    #[test]
    fn too_many_events_are_an_error() {
        let e = parse("\"ready\"\n".repeat(MAX_EVENTS + 1).as_bytes()).unwrap_err();
        assert!(e.contains("more than"), "{e}");
        assert_eq!(
            parse("\"ready\"\n".repeat(MAX_EVENTS).as_bytes())
                .unwrap()
                .len(),
            MAX_EVENTS
        );
    }

    #[test]
    fn a_huge_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let line = "\"ready\"\n".repeat(1024 * 1024);
        let mut text = String::new();
        while (text.len() as u64) <= MAX_FILE_BYTES {
            text.push_str(&line);
        }
        std::fs::write(&path, text).unwrap();
        assert!(read(&path).unwrap_err().contains("larger than"));
        assert_eq!(read(&dir.path().join("none")).unwrap(), Vec::new());
    }
}
