//! The gauges of one relay, sampled at regular intervals, and its breakers' states, read
//! on a thread of their own so that a state read that never returns stops only itself.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use lab4_rehearsal_protocol::{Sample, TargetSample};

use crate::RelayUnderTest;
use crate::gauge::Gauge;
use crate::panics::guarded;
use crate::time::{Timeline, rounded, sleep_ms};

/// A state read older than this is shown as unknown.
const STALE_MS: f64 = 1000.0;

/// The gauges of one target behind one relay.
#[derive(Clone)]
pub struct TargetGauges {
    /// The target's name.
    pub name: String,
    /// Requests for it sent to the relay and not answered yet.
    pub in_relay: Gauge,
    /// Calls from the relay to its dependency in progress.
    pub calls: Gauge,
    /// Calls its dependency is working on.
    pub at_dependency: Gauge,
}

/// What to sample behind one relay.
#[derive(Clone)]
pub struct Watched {
    /// Workers inside `Relay::handle`.
    pub busy: Gauge,
    /// Per target.
    pub targets: Vec<TargetGauges>,
    /// The relay, when it has breakers to read.
    pub relay: Option<Arc<dyn RelayUnderTest>>,
}

/// A running sampler.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Vec<Sample>>>,
    states: Arc<States>,
}

#[derive(Default)]
struct States {
    /// Per target: the state last read, and when.
    last: Mutex<BTreeMap<String, (Option<&'static str>, f64)>>,
    problem: Mutex<Option<String>>,
}

impl Sampler {
    /// Samples `watched` every `every_ms` until [`Sampler::finish`].
    pub fn start(watched: Watched, timeline: &Timeline, every_ms: f64) -> std::io::Result<Sampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let states = Arc::new(States::default());
        if let Some(relay) = watched.relay.clone() {
            let names: Vec<String> = watched.targets.iter().map(|t| t.name.clone()).collect();
            let (stop, states, timeline) = (stop.clone(), states.clone(), timeline.clone());
            std::thread::Builder::new()
                .name("breaker-states".into())
                .spawn(move || {
                    read_states(relay.as_ref(), &names, &states, &timeline, &stop, every_ms)
                })?;
        }
        let thread = {
            let (stop, states, timeline) = (stop.clone(), states.clone(), timeline.clone());
            std::thread::Builder::new()
                .name("sampler".into())
                .spawn(move || {
                    let mut samples = Vec::new();
                    let mut next = 0.0;
                    while !stop.load(Ordering::SeqCst) {
                        timeline.sleep_until(next);
                        samples.push(sample(&watched, &states, &timeline));
                        next += every_ms;
                    }
                    samples
                })?
        };
        Ok(Sampler {
            stop,
            thread: Some(thread),
            states,
        })
    }

    /// Stops sampling: the samples, and why breaker states could not be read, if so.
    pub fn finish(&mut self) -> (Vec<Sample>, Option<String>) {
        self.stop.store(true, Ordering::SeqCst);
        let samples = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let problem = self
            .states
            .problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        (samples, problem)
    }
}

fn sample(watched: &Watched, states: &States, timeline: &Timeline) -> Sample {
    let t = timeline.now_ms();
    let last = states
        .last
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let targets = watched
        .targets
        .iter()
        .map(|g| {
            let state = match last.get(&g.name) {
                Some((state, at)) if t - at <= STALE_MS => state.map(str::to_owned),
                Some(_) => {
                    note(
                        states,
                        "Relay::breaker_state did not return for over a second",
                    );
                    None
                }
                None => None,
            };
            let s = TargetSample {
                in_relay: g.in_relay.sample(),
                calls: g.calls.sample(),
                at_dependency: g.at_dependency.sample(),
                state,
            };
            (g.name.clone(), s)
        })
        .collect();
    Sample {
        t_ms: rounded(t),
        busy: watched.busy.sample(),
        targets,
    }
}

fn read_states(
    relay: &dyn RelayUnderTest,
    names: &[String],
    states: &States,
    timeline: &Timeline,
    stop: &AtomicBool,
    every_ms: f64,
) {
    while !stop.load(Ordering::SeqCst) {
        for name in names {
            match guarded("Relay::breaker_state", || relay.breaker_state(name)) {
                Ok(state) => {
                    states
                        .last
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(name.clone(), (state.map(|s| s.as_str()), timeline.now_ms()));
                }
                Err(p) => {
                    note(
                        states,
                        &format!("Relay::breaker_state panicked: {}", p.message),
                    );
                    return;
                }
            }
        }
        sleep_ms(every_ms / 4.0);
    }
}

fn note(states: &States, problem: &str) {
    let mut slot = states
        .problem
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if slot.is_none() {
        *slot = Some(problem.to_owned());
    }
}
