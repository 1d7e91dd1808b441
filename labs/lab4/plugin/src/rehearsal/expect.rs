//! What a rehearsal should show, and whether it did.
//!
//! Each expectation is an order of magnitude, never a number of milliseconds: the machine
//! running the rehearsal is shared and noisy, and the point is what a student can see,
//! not a benchmark.

use grader_lab::rehearsal::{Expectation, Verdict};
use lab4_rehearsal_protocol::{Behaviour, Outcome, Record, Script};

use super::figures::{Figures, RelayFigures, Span};

/// How many times lower the protected bystander's p99 must be than the unprotected one's
/// while the sick dependency is slow, and how many times higher the unprotected one's must
/// be than while everything was healthy.
pub const RATIO: f64 = 5.0;

/// Judges every expectation on a rehearsal of `script` (fitted to the run).
pub fn judge(script: &Script, record: &Record, figures: &Figures) -> Vec<Expectation> {
    let (Some(story), [protected, unprotected, ..]) = (&figures.story, figures.relays.as_slice())
    else {
        return Vec::new();
    };
    let sick = &story.sick;
    let Some(settings) = script.target(sick) else {
        return Vec::new();
    };
    let ctx = Ctx {
        story_phases: &story.phases,
        sick,
        bystanders: &story.bystanders,
        protected,
        unprotected,
        record,
    };
    vec![
        ctx.answers_everything(),
        ctx.cascade(),
        ctx.bystanders_stay_fast(),
        ctx.bulkhead_caps(settings.max_concurrent),
        ctx.open_means_quiet(),
        ctx.probe_then_resume(settings.retry_after_ms),
    ]
}

struct Ctx<'a> {
    story_phases: &'a [Span],
    sick: &'a str,
    bystanders: &'a [String],
    protected: &'a RelayFigures,
    unprotected: &'a RelayFigures,
    record: &'a Record,
}

impl Ctx<'_> {
    /// The highest p99 of a bystander behind `relay` over the phases that are `what`.
    fn bystander_p99(&self, relay: &RelayFigures, what: &str) -> Option<(String, f64)> {
        self.bystanders
            .iter()
            .filter_map(|b| {
                let t = relay.targets.get(b)?;
                let p99 = t
                    .phases
                    .iter()
                    .filter(|p| p.phase.what == what)
                    .filter_map(|p| p.p99_ms)
                    .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))?;
                Some((b.clone(), p99))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    fn has_phase(&self, what: Behaviour) -> bool {
        self.story_phases.iter().any(|p| p.what == what.as_str())
    }

    fn answers_everything(&self) -> Expectation {
        let count = |o: Outcome| -> u64 {
            self.protected
                .targets
                .values()
                .map(|t| t.outcomes.get(&o).copied().unwrap_or(0))
                .sum()
        };
        let (panics, unanswered) = (count(Outcome::Panic), count(Outcome::NoAnswer));
        Expectation {
            id: "answers_everything",
            title: "Your relay answers every request: no panic, none left waiting".into(),
            verdict: Verdict::of(panics == 0 && unanswered == 0),
            evidence: format!(
                "{panics} requests ended in a panic, {unanswered} had no answer by the end (the notes say where it panicked)"
            ),
        }
    }

    fn cascade(&self) -> Expectation {
        let title = format!(
            "Behind the unprotected relay, {} slows down while {} is slow: the cascade",
            self.bystanders.join(" and "),
            self.sick
        );
        let id = "unprotected_cascade";
        if !self.has_phase(Behaviour::Slow) || self.bystanders.is_empty() {
            return not_applicable(id, title, "the script has no slow phase, or no bystander");
        }
        let healthy = self.bystander_p99(self.unprotected, "healthy");
        let slow = self.bystander_p99(self.unprotected, "slow");
        let (verdict, evidence) = match (healthy, slow) {
            (Some((_, h)), Some((b, s))) => (
                Verdict::of(s >= RATIO * h),
                format!(
                    "{b} p99: {} while everything was healthy, {} while {} was slow ({} times; at least {RATIO} expected)",
                    ms(h),
                    ms(s),
                    self.sick,
                    times(s, h)
                ),
            ),
            _ => (
                Verdict::NotSeen,
                "no bystander request was answered in one of the phases".to_owned(),
            ),
        };
        Expectation {
            id,
            title,
            verdict,
            evidence,
        }
    }

    fn bystanders_stay_fast(&self) -> Expectation {
        let title = format!(
            "Behind your relay, {} stays fast while {} is slow, and its circuit never opens",
            self.bystanders.join(" and "),
            self.sick
        );
        let id = "protected_isolation";
        if !self.has_phase(Behaviour::Slow) || self.bystanders.is_empty() {
            return not_applicable(id, title, "the script has no slow phase, or no bystander");
        }
        let count = |which: &[Outcome]| -> u64 {
            self.bystanders
                .iter()
                .filter_map(|b| self.protected.targets.get(b))
                .flat_map(|t| t.outcomes.iter())
                .filter(|(o, _)| which.contains(o))
                .map(|(_, n)| n)
                .sum()
        };
        let open = count(&[Outcome::E904, Outcome::Panic]);
        // A bystander's own bulkhead may turn a few requests away when the machine stalls
        // them; a bulkhead shared with the sick target turns away many.
        let full = count(&[Outcome::E905]);
        let all = count(&Outcome::ALL) - count(&[Outcome::NotSent]);
        let few = full * 100 <= all;
        let p = self.bystander_p99(self.protected, "slow");
        let u = self.bystander_p99(self.unprotected, "slow");
        let (verdict, evidence) = match (p, u) {
            (Some((b, p)), Some((_, u))) => (
                Verdict::of(p * RATIO <= u && open == 0 && few),
                format!(
                    "{b} p99 while {} was slow: {} behind your relay, {} behind the unprotected one ({} times lower; at least {RATIO} expected); {b} got {open} E904 or panics (none expected) and {full} E905 of {all} requests (at most 1% expected)",
                    self.sick,
                    ms(p),
                    ms(u),
                    times(u, p)
                ),
            ),
            _ => (
                Verdict::NotSeen,
                "no bystander request was answered while the dependency was slow".to_owned(),
            ),
        };
        Expectation {
            id,
            title,
            verdict,
            evidence,
        }
    }

    fn bulkhead_caps(&self, limit: usize) -> Expectation {
        let title = format!(
            "Never more than max_concurrent ({limit}) calls in progress at {}",
            self.sick
        );
        let (p, u) = (
            self.protected.targets.get(self.sick),
            self.unprotected.targets.get(self.sick),
        );
        let (Some(p), Some(u)) = (p, u) else {
            return not_applicable("bulkhead_limit", title, "no figures for the sick target");
        };
        // A call the relay gave up on (E901) keeps running at the dependency until it
        // answers: the bulkhead has its slot back, the dependency does not. So at the
        // dependency the limit holds up to the calls given up on.
        let given_up = p.outcomes.get(&Outcome::E901).copied().unwrap_or(0);
        let at_dependency_ok = u64::from(p.peak_at_dependency) <= limit as u64 + given_up;
        let abandoned = if given_up > 0 {
            format!(
                " (counting calls your relay gave up on with E901, {given_up} in all, which run on there until they are answered)"
            )
        } else {
            String::new()
        };
        Expectation {
            id: "bulkhead_limit",
            title,
            verdict: Verdict::of(p.peak_calls as usize <= limit && at_dependency_ok),
            evidence: format!(
                "at most {} calls from your relay, {} at {} itself{abandoned}; the unprotected relay reached {}",
                p.peak_calls, p.peak_at_dependency, self.sick, u.peak_calls
            ),
        }
    }

    fn open_means_quiet(&self) -> Expectation {
        let title = format!(
            "While the circuit is OPEN, {} gets about no calls",
            self.sick
        );
        let id = "open_is_quiet";
        let can_fail = self.story_phases.iter().any(|p| p.what != "healthy");
        if !can_fail {
            return not_applicable(id, title, "the dependency is never sick");
        }
        let open = self.spans(self.sick, "OPEN");
        if open.is_empty() {
            return Expectation {
                id,
                title,
                verdict: Verdict::NotSeen,
                evidence: format!("the circuit of {} never opened", self.sick),
            };
        }
        let seconds: f64 = open.iter().map(|s| s.to_ms - s.from_ms).sum::<f64>() / 1000.0;
        let mine = self.calls_within("protected", &open);
        let theirs = self.calls_within("unprotected", &open);
        let quiet = mine <= open.len() as u64 && (theirs == 0 || mine * 10 <= theirs);
        Expectation {
            id,
            title,
            verdict: Verdict::of(quiet),
            evidence: format!(
                "{mine} calls in {} of OPEN over {} period{} ({}/s); the unprotected relay made {theirs} over the same periods ({}/s)",
                secs(seconds),
                open.len(),
                if open.len() == 1 { "" } else { "s" },
                per_s(mine, seconds),
                per_s(theirs, seconds)
            ),
        }
    }

    fn probe_then_resume(&self, retry_after_ms: f64) -> Expectation {
        let title = format!(
            "One trial call at a time, then traffic to {} resumes once it has recovered",
            self.sick
        );
        let id = "probe_then_resume";
        let recovered = self
            .story_phases
            .iter()
            .skip_while(|p| p.what == "healthy")
            .find(|p| p.what == "healthy")
            .map(|p| p.from_ms);
        let Some(recovered) = recovered else {
            return not_applicable(id, title, "the dependency never recovers in this script");
        };
        let half_open = self.spans(self.sick, "HALF_OPEN");
        if half_open.is_empty() {
            return Expectation {
                id,
                title,
                verdict: Verdict::NotSeen,
                evidence: format!("the circuit of {} was never HALF_OPEN", self.sick),
            };
        }
        let most_per_trial = half_open
            .iter()
            .map(|s| self.calls_within("protected", std::slice::from_ref(s)))
            .max()
            .unwrap_or(0);
        // The first CLOSED stretch that lasts past the recovery: closed already, or later.
        let closed_at = self
            .protected
            .breaker
            .get(self.sick)
            .and_then(|spans| {
                spans
                    .iter()
                    .find(|s| s.what == "CLOSED" && s.to_ms > recovered)
            })
            .map(|s| s.from_ms.max(recovered));
        let answers_after = closed_at.map_or(0, |at| {
            self.requests("protected")
                .filter(|q| q.target == self.sick && q.sent_ms >= at && q.outcome.is_answer())
                .count()
        });
        let in_time = closed_at.is_some_and(|at| at - recovered <= 2.0 * retry_after_ms + 1000.0);
        let seen = most_per_trial <= 1 && in_time && answers_after > 0;
        let closing = match closed_at {
            Some(at) => format!(
                "closed {} after {} recovered (the retry wait is {})",
                secs((at - recovered) / 1000.0),
                self.sick,
                secs(retry_after_ms / 1000.0)
            ),
            None => format!("did not close after {} recovered", self.sick),
        };
        Expectation {
            id,
            title,
            verdict: Verdict::of(seen),
            evidence: format!(
                "{} HALF_OPEN period{}, at most {most_per_trial} call{} in one; {closing}; {answers_after} answers after closing",
                half_open.len(),
                if half_open.len() == 1 { "" } else { "s" },
                if most_per_trial == 1 { "" } else { "s" },
            ),
        }
    }

    /// The protected relay's spans of `state` for `target`.
    fn spans(&self, target: &str, state: &str) -> Vec<Span> {
        self.protected
            .breaker
            .get(target)
            .map(|spans| spans.iter().filter(|s| s.what == state).cloned().collect())
            .unwrap_or_default()
    }

    fn requests(
        &self,
        relay: &str,
    ) -> impl Iterator<Item = &lab4_rehearsal_protocol::RequestRecord> {
        self.record
            .relays
            .iter()
            .filter(move |r| r.name == relay)
            .flat_map(|r| r.requests.iter())
    }

    /// Calls from `relay` to the sick dependency that started within `spans`.
    fn calls_within(&self, relay: &str, spans: &[Span]) -> u64 {
        self.record
            .relays
            .iter()
            .filter(|r| r.name == relay)
            .flat_map(|r| r.calls.iter())
            .filter(|c| c.target == self.sick)
            .filter(|c| {
                spans
                    .iter()
                    .any(|s| c.start_ms >= s.from_ms && c.start_ms < s.to_ms)
            })
            .count() as u64
    }
}

fn not_applicable(id: &'static str, title: String, why: &str) -> Expectation {
    Expectation {
        id,
        title,
        verdict: Verdict::NotApplicable,
        evidence: why.to_owned(),
    }
}

/// Milliseconds for people: `4.2 ms`, `310 ms`, `4.01 s`.
pub fn ms(x: f64) -> String {
    if x >= 1000.0 {
        format!("{:.2} s", x / 1000.0)
    } else if x >= 100.0 {
        format!("{x:.0} ms")
    } else {
        format!("{x:.1} ms")
    }
}

fn secs(x: f64) -> String {
    format!("{x:.2} s")
}

fn per_s(n: u64, seconds: f64) -> String {
    format!("{:.1}", n as f64 / seconds.max(1e-9))
}

fn times(a: f64, b: f64) -> String {
    if b <= 0.0 {
        return "∞".to_owned();
    }
    let r = a / b;
    if r >= 10.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}
