//! What every lab whose code under test writes a log of lines shares: the lines a scenario
//! expects (`expect_transitions`, lab 5's `expect_alerts`) are checked when the scenario is
//! read, compared whole and in order with the log, and put in words, the same way in every
//! lab. A record starts with the fake-clock time and the target:
//! `00:01:40.000 acme/ORDERS CLOSED -> OPEN`.
//!
//! A lab gives its nouns and an example ([`Form`]); what follows the target is the lab's
//! own for lines other than transitions ([`time_and_target`] returns it).

use crate::Checker;

/// How a lab writes one kind of record.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    /// What the lab calls a target: `target`, `flow`, `dependency`.
    pub noun: &'static str,
    /// What the records are called in a list: `records`, `alerts`.
    pub plural: &'static str,
    /// One record, with its article, in a problem: `a transition record`, `an alert`.
    pub a_record: &'static str,
    /// What a list expecting none says: `no transition recorded yet`.
    pub none_yet: &'static str,
    /// What an empty log is, in a difference: `no transition records`.
    pub none: &'static str,
    /// A correct record, for the help of a problem: `00:01:40.000 acme/ORDERS CLOSED -> OPEN`.
    pub example: &'static str,
    /// Another, of another shape, where the records have two: `00:01:50.000 acme/ORDERS closed`.
    pub or: Option<&'static str>,
}

/// The circuit states every lab's transition records use.
pub const STATES: [&str; 3] = ["CLOSED", "OPEN", "HALF_OPEN"];

/// Checks the time and the target that start every record; returns the rest of the line.
pub fn time_and_target<'a>(line: &'a str, targets: &[&str], form: Form) -> Result<&'a str, String> {
    let noun = form.noun;
    let (time, rest) = line
        .split_once(' ')
        .ok_or_else(|| format!("it has no {noun}"))?;
    let time_ok = time.len() == 12
        && time.chars().enumerate().all(|(i, ch)| match i {
            2 | 5 => ch == ':',
            8 => ch == '.',
            _ => ch.is_ascii_digit(),
        });
    if !time_ok {
        let like = form.example.split(' ').next().unwrap_or_default();
        return Err(format!("`{time}` is not a time like {like}"));
    }
    let (target, rest) = rest
        .split_once(' ')
        .ok_or_else(|| format!("nothing follows the {noun}"))?;
    if !targets.contains(&target) {
        return Err(format!("unknown {noun} `{target}`"));
    }
    Ok(rest)
}

/// Checks a transition record: `HH:MM:SS.mmm TARGET FROM -> TO`, both states among
/// [`STATES`].
pub fn transition(line: &str, targets: &[&str], form: Form) -> Result<(), String> {
    let rest = time_and_target(line, targets, form)?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [from, "->", to] = parts[..] else {
        return Err(format!("expected `FROM -> TO` after the {}", form.noun));
    };
    for state in [from, to] {
        if !STATES.contains(&state) {
            return Err(format!("unknown state `{state}`"));
        }
    }
    Ok(())
}

/// Checks every line of step `step` with `read` (such as [`transition`]), reporting each
/// line that is not a record of `form`'s kind where it is, with the example as help.
pub fn check_lines(
    c: &mut Checker<'_>,
    step: usize,
    lines: &[String],
    form: Form,
    read: impl Fn(&str, &[&str], Form) -> Result<(), String>,
) {
    let targets = c.targets();
    for line in lines {
        if let Err(why) = read(line, &targets, form) {
            c.problem(
                step,
                line,
                format!("`{line}` is not {}: {why}", form.a_record),
                Some(match form.or {
                    None => format!("write {} like \"{}\"", form.plural, form.example),
                    Some(or) => format!(
                        "write {} like \"{}\" or \"{or}\"",
                        form.plural, form.example
                    ),
                }),
            );
        }
    }
}

/// The whole log against the lines a step expects, in order: what was expected and what
/// was observed, in words, when they differ.
pub fn compare(want: &[String], got: &[String], form: Form) -> Option<(String, String)> {
    (want != got).then(|| (inline(want, form), inline(got, form)))
}

/// Lines on one line, for a difference: `[a; b]`, or [`Form::none`].
pub fn inline(lines: &[String], form: Form) -> String {
    if lines.is_empty() {
        form.none.to_owned()
    } else {
        format!("[{}]", lines.join("; "))
    }
}

/// What a step expects of the log, in words, one record a line.
pub fn expectation(lines: &[String], form: Form) -> String {
    if lines.is_empty() {
        return form.none_yet.to_owned();
    }
    let lines: Vec<String> = lines.iter().map(|l| format!("        {l}")).collect();
    format!(
        "exactly these {}, in order:\n{}",
        form.plural,
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: Form = Form {
        noun: "flow",
        plural: "records",
        a_record: "a transition record",
        none_yet: "no transition recorded yet",
        none: "no transition records",
        example: "00:01:40.000 acme/ORDERS CLOSED -> OPEN",
        or: None,
    };
    const FLOWS: [&str; 2] = ["acme/ORDERS", "globex/ORDERS"];

    #[test]
    fn a_record_is_read_as_the_code_under_test_prints_it() {
        let read = |line: &str| transition(line, &FLOWS, FORM);
        assert_eq!(read("00:01:40.000 acme/ORDERS CLOSED -> OPEN"), Ok(()));
        assert_eq!(
            read("00:01:40.000 acme/INVOIC CLOSED -> OPEN"),
            Err("unknown flow `acme/INVOIC`".into())
        );
        assert_eq!(
            read("0:01:40.000 acme/ORDERS CLOSED -> OPEN"),
            Err("`0:01:40.000` is not a time like 00:01:40.000".into())
        );
        assert_eq!(
            read("00:01:40.000 acme/ORDERS CLOSED OPEN"),
            Err("expected `FROM -> TO` after the flow".into())
        );
        assert_eq!(
            read("00:01:40.000 acme/ORDERS OPEN -> AJAR"),
            Err("unknown state `AJAR`".into())
        );
        assert_eq!(read("00:01:40.000"), Err("it has no flow".into()));
        assert_eq!(
            read("00:01:40.000 acme/ORDERS"),
            Err("nothing follows the flow".into())
        );
        assert_eq!(
            time_and_target("00:01:50.000 globex/ORDERS closed", &FLOWS, FORM),
            Ok("closed")
        );
    }

    #[test]
    fn a_log_is_compared_whole_and_in_order() {
        let a = "00:00:01.000 acme/ORDERS CLOSED -> OPEN".to_owned();
        let b = "00:00:02.000 acme/ORDERS OPEN -> HALF_OPEN".to_owned();
        assert_eq!(
            compare(&[a.clone(), b.clone()], &[a.clone(), b.clone()], FORM),
            None
        );
        assert_eq!(
            compare(&[a.clone(), b.clone()], &[b.clone(), a.clone()], FORM),
            Some((format!("[{a}; {b}]"), format!("[{b}; {a}]")))
        );
        assert_eq!(
            compare(std::slice::from_ref(&a), &[], FORM),
            Some((format!("[{a}]"), "no transition records".into()))
        );
        assert_eq!(expectation(&[], FORM), "no transition recorded yet");
        assert_eq!(
            expectation(std::slice::from_ref(&a), FORM),
            format!("exactly these records, in order:\n        {a}")
        );
    }
}
