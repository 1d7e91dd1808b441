//! Reading a rehearsal script, with every problem placed at its line and column.

use std::ops::Range;
use std::path::{Path, PathBuf};

use rehearsal_protocol::{Behaviour, SCRIPT_FORMAT_VERSION, Script};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::diagnostic::{Diagnostic, Pos};
use crate::error::Error;
use crate::lab::Lab;
use crate::scenario::load::{json_error, key_pos};

/// The default script's file name, in the lab's folder.
pub const FILE_NAME: &str = "rehearsal.json";

/// The shortest and longest rehearsal, in seconds.
pub const DURATION_RANGE: (f64, f64) = (2.0, 600.0);

/// A script read from a file.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The script as written.
    pub script: Script,
    /// Its path as people see it.
    pub shown: PathBuf,
}

/// Reads the script at `path`, or the lab's default script.
pub fn load(lab: &Lab, path: Option<&Path>) -> Result<Loaded, Error> {
    let path = path.map_or_else(|| lab.dir.join(FILE_NAME), Path::to_path_buf);
    if !path.is_file() {
        return Err(Error::Usage(format!(
            "there is no rehearsal script at {}\n  help: lab {} ships one as labs/{}/{FILE_NAME}; --script FILE rehearses another",
            path.display(),
            lab.manifest.name,
            lab.manifest.name
        )));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
    let shown = crate::kit::shown_path(&lab.kit, &path);
    let script = parse(&text, &shown).map_err(Error::Invalid)?;
    Ok(Loaded { script, shown })
}

/// Parses and checks a script; `shown` names it in problems.
pub fn parse(text: &str, shown: &Path) -> Result<Script, Vec<Diagnostic>> {
    let script: Script =
        serde_json::from_str(text).map_err(|e| vec![json_error(shown, text, &e)])?;
    let problems = Checker::new(text, shown).check(&script);
    if problems.is_empty() {
        Ok(script)
    } else {
        Err(problems)
    }
}

#[derive(Deserialize)]
struct TargetSlices<'a> {
    #[serde(borrow, default)]
    targets: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct PhaseSlices<'a> {
    #[serde(borrow, default)]
    phases: Vec<&'a RawValue>,
}

struct Checker<'a> {
    text: &'a str,
    shown: &'a Path,
    problems: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    fn new(text: &'a str, shown: &'a Path) -> Self {
        Checker {
            text,
            shown,
            problems: Vec::new(),
        }
    }

    /// Where `raw` lies in the file.
    fn range(&self, raw: &RawValue) -> Range<usize> {
        let start = (raw.get().as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        start..start + raw.get().len()
    }

    fn problem(&mut self, range: Range<usize>, key: &str, message: String, help: &str) {
        let pos: Pos = key_pos(self.text, range.start, range.end, key);
        let mut d = Diagnostic::at(self.shown, pos, message);
        if !help.is_empty() {
            d = d.help(help);
        }
        self.problems.push(d);
    }

    fn check(mut self, s: &Script) -> Vec<Diagnostic> {
        let all = 0..self.text.len();
        if s.format_version != SCRIPT_FORMAT_VERSION {
            self.problem(
                all.clone(),
                "format_version",
                format!(
                    "format_version {} is not supported; this grader reads version {SCRIPT_FORMAT_VERSION}",
                    s.format_version
                ),
                &format!("set \"format_version\": {SCRIPT_FORMAT_VERSION}"),
            );
        }
        let (lo, hi) = DURATION_RANGE;
        if !(lo..=hi).contains(&s.duration_s) {
            let msg = format!(
                "duration_s must be between {lo} and {hi} seconds, not {}",
                s.duration_s
            );
            self.problem(all.clone(), "duration_s", msg, "");
        }
        if !(s.sample_ms > 0.0 && s.sample_ms <= s.duration_s * 100.0) {
            let msg = format!(
                "sample_ms must be above 0 and at most a tenth of the duration, not {}",
                s.sample_ms
            );
            self.problem(all.clone(), "sample_ms", msg, "");
        }
        if !(1..=256).contains(&s.relay.workers) {
            let msg = format!("workers must be between 1 and 256, not {}", s.relay.workers);
            self.problem(all.clone(), "workers", msg, "");
        }
        if s.relay.call_timeout_ms <= 0.0 || !s.relay.call_timeout_ms.is_finite() {
            let msg = "call_timeout_ms must be above 0".to_owned();
            self.problem(all.clone(), "call_timeout_ms", msg, "");
        }
        let l = &s.load;
        if !(l.requests_per_s > 0.0 && l.requests_per_s <= 2000.0) {
            let msg = format!(
                "requests_per_s must be above 0 and at most 2000, not {}",
                l.requests_per_s
            );
            self.problem(all.clone(), "requests_per_s", msg, "");
        }
        if !(1..=512).contains(&l.concurrency) {
            let msg = format!(
                "concurrency must be between 1 and 512, not {}",
                l.concurrency
            );
            self.problem(all.clone(), "concurrency", msg, "");
        }
        if l.max_requests == 0 {
            self.problem(
                all.clone(),
                "max_requests",
                "max_requests must be at least 1".into(),
                "",
            );
        }
        let slices: TargetSlices<'_> = serde_json::from_str(self.text).unwrap_or(TargetSlices {
            targets: Vec::new(),
        });
        if s.targets.is_empty() {
            let msg = "a rehearsal needs at least one target".to_owned();
            self.problem(all.clone(), "targets", msg, "");
        }
        if s.targets.iter().map(|t| t.share_of_load).sum::<u32>() == 0 {
            let msg = "every share_of_load is 0: no request would be sent".to_owned();
            self.problem(
                all,
                "targets",
                msg,
                "give at least one target a share above 0",
            );
        }
        for (i, t) in s.targets.iter().enumerate() {
            let range = slices
                .targets
                .get(i)
                .map_or(0..self.text.len(), |raw| self.range(raw));
            if t.name.is_empty() || s.targets[..i].iter().any(|o| o.name == t.name) {
                let msg = format!("target name `{}` is empty or used twice", t.name);
                self.problem(range.clone(), "name", msg, "");
            }
            if t.failure_threshold == 0 {
                let msg = "failure_threshold must be at least 1".to_owned();
                self.problem(range.clone(), "failure_threshold", msg, "");
            }
            if t.retry_after_ms <= 0.0 || !t.retry_after_ms.is_finite() {
                let msg = "retry_after_ms must be above 0".to_owned();
                self.problem(range.clone(), "retry_after_ms", msg, "");
            }
            if t.max_concurrent == 0 {
                let msg = "max_concurrent must be at least 1".to_owned();
                self.problem(range.clone(), "max_concurrent", msg, "");
            }
            if t.business_refusal_every == Some(0) {
                let msg = "business_refusal_every must be at least 1 (or left out)".to_owned();
                self.problem(range.clone(), "business_refusal_every", msg, "");
            }
            self.check_phases(s, i, range);
        }
        self.problems
    }

    fn check_phases(&mut self, s: &Script, i: usize, target: Range<usize>) {
        let t = &s.targets[i];
        let slices: PhaseSlices<'_> = serde_json::from_str(&self.text[target.clone()])
            .unwrap_or(PhaseSlices { phases: Vec::new() });
        if t.phases.is_empty() {
            let msg = format!("target `{}` has no phases", t.name);
            self.problem(
                target,
                "phases",
                msg,
                "start with {\"from_s\": 0, \"behaviour\": \"healthy\", \"latency_ms\": 5}",
            );
            return;
        }
        for (j, p) in t.phases.iter().enumerate() {
            let range = slices
                .phases
                .get(j)
                .map_or(target.clone(), |raw| self.range(raw));
            let previous = j.checked_sub(1).map(|k| t.phases[k].from_s);
            if j == 0 && p.from_s != 0.0 {
                let msg = format!(
                    "the first phase of `{}` must start at 0, not {}",
                    t.name, p.from_s
                );
                self.problem(range.clone(), "from_s", msg, "");
            } else if previous.is_some_and(|prev| p.from_s <= prev) {
                let msg = format!(
                    "phases of `{}` must start in increasing order of from_s",
                    t.name
                );
                self.problem(range.clone(), "from_s", msg, "");
            }
            if p.from_s >= s.duration_s {
                let msg = format!(
                    "this phase starts at {} s, after the script's {} s",
                    p.from_s, s.duration_s
                );
                self.problem(range.clone(), "from_s", msg, "");
            }
            match (p.behaviour, p.latency_ms) {
                (Behaviour::Healthy | Behaviour::Slow, None) => {
                    let msg = format!(
                        "a {} phase needs latency_ms: how long an answer takes",
                        p.behaviour.as_str()
                    );
                    self.problem(range.clone(), "behaviour", msg, "");
                }
                (Behaviour::Healthy | Behaviour::Slow, Some(ms))
                    if !(ms >= 0.0 && ms.is_finite()) =>
                {
                    let msg = "latency_ms must be 0 or more".to_owned();
                    self.problem(range.clone(), "latency_ms", msg, "");
                }
                (Behaviour::Refusing | Behaviour::Failing, Some(_)) => {
                    let msg = format!(
                        "a {} phase answers no call, so latency_ms means nothing here",
                        p.behaviour.as_str()
                    );
                    self.problem(range.clone(), "latency_ms", msg, "remove latency_ms");
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kit_script() -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../labs/lab4")
            .join(FILE_NAME);
        std::fs::read_to_string(path).expect("the shipped script")
    }

    #[test]
    fn the_shipped_script_is_valid() {
        let s = parse(&kit_script(), Path::new("rehearsal.json")).expect("valid");
        assert_eq!(s.targets.len(), 2);
        assert!(s.targets.iter().any(|t| t.ever_sick()));
    }

    #[test]
    fn problems_point_at_their_line() {
        let text = kit_script().replacen(
            "\"behaviour\": \"refusing\"",
            "\"behaviour\": \"refusing\", \"latency_ms\": 9",
            1,
        );
        let problems = parse(&text, Path::new("r.json")).unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let line = text
            .lines()
            .position(|l| l.contains("\"latency_ms\": 9"))
            .unwrap()
            + 1;
        assert_eq!(
            problems[0].pos.map(|p| p.line),
            Some(line),
            "{}",
            problems[0]
        );
        assert!(
            problems[0].message.contains("refusing phase"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn out_of_order_phases_are_refused() {
        let text = kit_script().replacen("\"from_s\": 15", "\"from_s\": 5", 1);
        let problems = parse(&text, Path::new("r.json")).unwrap_err();
        assert!(
            problems[0].message.contains("increasing order"),
            "{}",
            problems[0]
        );
    }
}
