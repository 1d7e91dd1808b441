//! What a rehearsal script must mean beyond its shape: every value that cannot work,
//! placed at its key for the grader to show at a line and column.

use grader_lab::rehearsal::{DURATION_RANGE, ScriptProblem};
use lab4_rehearsal_protocol::{Behaviour, SCRIPT_FORMAT_VERSION, Script};

/// Every problem in `s`, in file order.
pub fn problems(s: &Script) -> Vec<ScriptProblem> {
    Checker::default().check(s)
}

#[derive(Default)]
struct Checker {
    problems: Vec<ScriptProblem>,
}

impl Checker {
    fn problem(
        &mut self,
        within: &[(&'static str, usize)],
        key: &str,
        message: String,
        help: &str,
    ) {
        self.problems.push(ScriptProblem {
            within: within.to_vec(),
            key: key.to_owned(),
            message,
            help: (!help.is_empty()).then(|| help.to_owned()),
        });
    }

    fn check(mut self, s: &Script) -> Vec<ScriptProblem> {
        let all: &[(&str, usize)] = &[];
        if s.format_version != SCRIPT_FORMAT_VERSION {
            self.problem(
                all,
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
            self.problem(all, "duration_s", msg, "");
        }
        if !(s.sample_ms > 0.0 && s.sample_ms <= s.duration_s * 100.0) {
            let msg = format!(
                "sample_ms must be above 0 and at most a tenth of the duration, not {}",
                s.sample_ms
            );
            self.problem(all, "sample_ms", msg, "");
        }
        if !(1..=256).contains(&s.relay.workers) {
            let msg = format!("workers must be between 1 and 256, not {}", s.relay.workers);
            self.problem(all, "workers", msg, "");
        }
        if s.relay.call_timeout_ms <= 0.0 || !s.relay.call_timeout_ms.is_finite() {
            let msg = "call_timeout_ms must be above 0".to_owned();
            self.problem(all, "call_timeout_ms", msg, "");
        }
        let l = &s.load;
        if !(l.requests_per_s > 0.0 && l.requests_per_s <= 2000.0) {
            let msg = format!(
                "requests_per_s must be above 0 and at most 2000, not {}",
                l.requests_per_s
            );
            self.problem(all, "requests_per_s", msg, "");
        }
        if !(1..=512).contains(&l.concurrency) {
            let msg = format!(
                "concurrency must be between 1 and 512, not {}",
                l.concurrency
            );
            self.problem(all, "concurrency", msg, "");
        }
        if l.max_requests == 0 {
            self.problem(
                all,
                "max_requests",
                "max_requests must be at least 1".into(),
                "",
            );
        }
        if s.targets.is_empty() {
            let msg = "a rehearsal needs at least one target".to_owned();
            self.problem(all, "targets", msg, "");
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
            let target = [("targets", i)];
            let range: &[(&str, usize)] = &target;
            if t.name.is_empty() || s.targets[..i].iter().any(|o| o.name == t.name) {
                let msg = format!("target name `{}` is empty or used twice", t.name);
                self.problem(range, "name", msg, "");
            }
            if t.failure_threshold == 0 {
                let msg = "failure_threshold must be at least 1".to_owned();
                self.problem(range, "failure_threshold", msg, "");
            }
            if t.retry_after_ms <= 0.0 || !t.retry_after_ms.is_finite() {
                let msg = "retry_after_ms must be above 0".to_owned();
                self.problem(range, "retry_after_ms", msg, "");
            }
            if t.max_concurrent == 0 {
                let msg = "max_concurrent must be at least 1".to_owned();
                self.problem(range, "max_concurrent", msg, "");
            }
            if t.business_refusal_every == Some(0) {
                let msg = "business_refusal_every must be at least 1 (or left out)".to_owned();
                self.problem(range, "business_refusal_every", msg, "");
            }
            self.check_phases(s, i);
        }
        self.problems
    }

    fn check_phases(&mut self, s: &Script, i: usize) {
        let t = &s.targets[i];
        let target: &[(&str, usize)] = &[("targets", i)];
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
            let phase = [("targets", i), ("phases", j)];
            let range: &[(&str, usize)] = &phase;
            let previous = j.checked_sub(1).map(|k| t.phases[k].from_s);
            if j == 0 && p.from_s != 0.0 {
                let msg = format!(
                    "the first phase of `{}` must start at 0, not {}",
                    t.name, p.from_s
                );
                self.problem(range, "from_s", msg, "");
            } else if previous.is_some_and(|prev| p.from_s <= prev) {
                let msg = format!(
                    "phases of `{}` must start in increasing order of from_s",
                    t.name
                );
                self.problem(range, "from_s", msg, "");
            }
            if p.from_s >= s.duration_s {
                let msg = format!(
                    "this phase starts at {} s, after the script's {} s",
                    p.from_s, s.duration_s
                );
                self.problem(range, "from_s", msg, "");
            }
            match (p.behaviour, p.latency_ms) {
                (Behaviour::Healthy | Behaviour::Slow, None) => {
                    let msg = format!(
                        "a {} phase needs latency_ms: how long an answer takes",
                        p.behaviour.as_str()
                    );
                    self.problem(range, "behaviour", msg, "");
                }
                (Behaviour::Healthy | Behaviour::Slow, Some(ms))
                    if !(ms >= 0.0 && ms.is_finite()) =>
                {
                    let msg = "latency_ms must be 0 or more".to_owned();
                    self.problem(range, "latency_ms", msg, "");
                }
                (Behaviour::Refusing | Behaviour::Failing, Some(_)) => {
                    let msg = format!(
                        "a {} phase answers no call, so latency_ms means nothing here",
                        p.behaviour.as_str()
                    );
                    self.problem(range, "latency_ms", msg, "remove latency_ms");
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
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../rehearsal.json");
        std::fs::read_to_string(path).expect("the shipped script")
    }

    fn problems_of(text: &str) -> Vec<ScriptProblem> {
        problems(&serde_json::from_str(text).expect("the script's shape"))
    }

    #[test]
    fn the_shipped_script_is_valid() {
        assert_eq!(problems_of(&kit_script()), []);
    }

    #[test]
    fn a_phase_problem_names_its_target_and_phase() {
        let text = kit_script().replacen(
            "\"behaviour\": \"refusing\"",
            "\"behaviour\": \"refusing\", \"latency_ms\": 9",
            1,
        );
        let found = problems_of(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].within, [("targets", 0), ("phases", 3)]);
        assert_eq!(found[0].key, "latency_ms");
        assert!(found[0].message.contains("refusing phase"), "{found:?}");
    }

    #[test]
    fn out_of_order_phases_are_refused() {
        let text = kit_script().replacen("\"from_s\": 15", "\"from_s\": 5", 1);
        let found = problems_of(&text);
        assert!(
            found.iter().any(|p| p.message.contains("increasing order")
                && p.within == [("targets", 0), ("phases", 3)]),
            "{found:?}"
        );
    }
}
