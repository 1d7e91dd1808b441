//! The rehearsal script: what the dependencies do over time, how the relay is set up, and
//! the load sent to it.

use serde::{Deserialize, Serialize};

/// The script format version this crate reads.
pub const SCRIPT_FORMAT_VERSION: u32 = 1;

/// A whole rehearsal script, as instructors write it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Must be [`SCRIPT_FORMAT_VERSION`].
    pub format_version: u32,
    /// What the script rehearses, in a sentence or two; shown on the page.
    #[serde(default)]
    pub about: String,
    /// The length the script's times are written for, in seconds. A run of another length
    /// plays the same script faster or slower: every time in it is scaled.
    pub duration_s: f64,
    /// Milliseconds between two samples of the gauges (calls in progress, busy threads,
    /// breaker states).
    #[serde(default = "default_sample_ms")]
    pub sample_ms: f64,
    /// The relay's HTTP front.
    pub relay: RelaySettings,
    /// The load sent to each relay.
    pub load: Load,
    /// The relay's targets, each with its protection settings and its dependency's script.
    pub targets: Vec<TargetScript>,
}

fn default_sample_ms() -> f64 {
    100.0
}

/// The relay's HTTP front and its calls to the dependencies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelaySettings {
    /// Worker threads that serve requests, one request each at a time. Requests that find
    /// them all busy wait in the front's queue.
    pub workers: usize,
    /// How long the relay waits for a dependency's answer before giving up with E901.
    pub call_timeout_ms: f64,
}

/// The load generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Load {
    /// Requests offered per second, spread evenly over time.
    pub requests_per_s: f64,
    /// Requests in progress at once, at most; a request due while that many are waiting
    /// for their answers is sent as soon as one comes back.
    pub concurrency: usize,
    /// Requests sent to each relay, at most.
    pub max_requests: u64,
}

/// One target of the relay, its protection settings and what its dependency does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetScript {
    /// The target's name (`core_banking`).
    pub name: String,
    /// Its weight in the load: with shares 1 and 1, half the requests go to each target.
    pub share_of_load: u32,
    /// Counted failures in a row that open its circuit.
    pub failure_threshold: u32,
    /// Milliseconds its circuit stays open before a trial call.
    pub retry_after_ms: f64,
    /// Its bulkhead's limit.
    pub max_concurrent: usize,
    /// Every n-th answer of a healthy or slow dependency is the business refusal B201.
    #[serde(default)]
    pub business_refusal_every: Option<u32>,
    /// What the dependency does, phase by phase; the first starts at 0.
    pub phases: Vec<Phase>,
}

/// From `from_s` on (until the next phase), the dependency behaves as `behaviour`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    /// Seconds from the start of the rehearsal.
    pub from_s: f64,
    /// What the dependency does.
    pub behaviour: Behaviour,
    /// How long a healthy or slow dependency takes to answer.
    #[serde(default)]
    pub latency_ms: Option<f64>,
}

/// What a dependency does during a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Behaviour {
    /// Answers after `latency_ms` (a few milliseconds).
    Healthy,
    /// Answers after `latency_ms` (seconds): alive, but slow.
    Slow,
    /// Refuses connections: nothing listens on its port.
    Refusing,
    /// Answers E500 at once.
    Failing,
}

impl Behaviour {
    /// The behaviour as written in scripts.
    pub fn as_str(self) -> &'static str {
        match self {
            Behaviour::Healthy => "healthy",
            Behaviour::Slow => "slow",
            Behaviour::Refusing => "refusing",
            Behaviour::Failing => "failing",
        }
    }

    /// Whether the dependency is in trouble (anything but healthy).
    pub fn is_sick(self) -> bool {
        self != Behaviour::Healthy
    }
}

impl Script {
    /// The same script played over `duration_s` seconds: every time in it (phase starts,
    /// latencies, the call timeout, retry waits, the sampling interval) is multiplied by
    /// `duration_s / self.duration_s`; the load's rate and bounds stay as written.
    pub fn fitted_to(&self, duration_s: f64) -> Script {
        let k = duration_s / self.duration_s;
        let mut s = self.clone();
        s.duration_s = duration_s;
        s.sample_ms *= k;
        s.relay.call_timeout_ms *= k;
        for t in &mut s.targets {
            t.retry_after_ms *= k;
            for p in &mut t.phases {
                p.from_s *= k;
                p.latency_ms = p.latency_ms.map(|ms| ms * k);
            }
        }
        s
    }

    /// The target named `name`.
    pub fn target(&self, name: &str) -> Option<&TargetScript> {
        self.targets.iter().find(|t| t.name == name)
    }
}

impl TargetScript {
    /// The phases as `(start_s, end_s, phase)`, the last ending at `duration_s`.
    pub fn spans(&self, duration_s: f64) -> Vec<(f64, f64, &Phase)> {
        self.phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let end = self
                    .phases
                    .get(i + 1)
                    .map_or(duration_s, |next| next.from_s);
                (p.from_s, end.max(p.from_s), p)
            })
            .collect()
    }

    /// Whether the dependency is ever anything but healthy.
    pub fn ever_sick(&self) -> bool {
        self.phases.iter().any(|p| p.behaviour.is_sick())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> Script {
        Script {
            format_version: 1,
            about: String::new(),
            duration_s: 30.0,
            sample_ms: 100.0,
            relay: RelaySettings {
                workers: 8,
                call_timeout_ms: 3000.0,
            },
            load: Load {
                requests_per_s: 100.0,
                concurrency: 32,
                max_requests: 4000,
            },
            targets: vec![TargetScript {
                name: "core_banking".into(),
                share_of_load: 1,
                failure_threshold: 3,
                retry_after_ms: 2000.0,
                max_concurrent: 3,
                business_refusal_every: None,
                phases: vec![
                    Phase {
                        from_s: 0.0,
                        behaviour: Behaviour::Healthy,
                        latency_ms: Some(5.0),
                    },
                    Phase {
                        from_s: 15.0,
                        behaviour: Behaviour::Refusing,
                        latency_ms: None,
                    },
                ],
            }],
        }
    }

    #[test]
    fn fitting_scales_every_time_but_not_the_load() {
        let s = script().fitted_to(3.0);
        assert_eq!(s.duration_s, 3.0);
        assert_eq!(s.relay.call_timeout_ms, 300.0);
        assert_eq!(s.sample_ms, 10.0);
        assert_eq!(s.targets[0].retry_after_ms, 200.0);
        assert_eq!(s.targets[0].phases[1].from_s, 1.5);
        assert_eq!(s.targets[0].phases[0].latency_ms, Some(0.5));
        assert_eq!(s.load.requests_per_s, 100.0);
    }

    #[test]
    fn spans_end_where_the_next_phase_starts() {
        let s = script();
        let spans = s.targets[0].spans(s.duration_s);
        assert_eq!((spans[0].0, spans[0].1), (0.0, 15.0));
        assert_eq!((spans[1].0, spans[1].1), (15.0, 30.0));
    }
}
