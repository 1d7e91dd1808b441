//! One rehearsal from start to end: the relay under test and the blind relay, each behind
//! its own front with its own pair of dependency servers, under the same load and script.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use lab4_rehearsal_protocol::{
    PROTOCOL_VERSION, Plan, Readiness, Record, RelayRecord, Script, TransitionRecord,
};
use relay_kit::{Target, TargetConfig};

use crate::dependency::Dependency;
use crate::front::{Blind, Front};
use crate::gauge::Gauge;
use crate::load::Generator;
use crate::panics::guarded;
use crate::sampler::{Sampler, TargetGauges, Watched};
use crate::target::HttpTarget;
use crate::time::{Timeline, sleep_ms};
use crate::{BuildRelay, RelayUnderTest, panics, ready};

/// Everything running behind one relay.
struct Side {
    name: &'static str,
    dependencies: Vec<Dependency>,
    targets: Vec<Arc<HttpTarget>>,
    relay: Arc<dyn RelayUnderTest>,
    front: Front,
    in_relay: BTreeMap<String, Gauge>,
    sampler: Option<Sampler>,
    generator: Option<Generator>,
}

/// Runs the plan and returns what was observed.
pub fn run(plan: &Plan, build: BuildRelay) -> Record {
    let script = &plan.script;
    let configs = target_configs(script);
    let readiness = ready::check(build, Timeline::start().clock(), &configs);
    if readiness != Readiness::Ready {
        return Record {
            protocol: PROTOCOL_VERSION,
            readiness,
            ..Record::default()
        };
    }
    let timeline = Timeline::start();
    let mut notes = Vec::new();
    let sides = ["protected", "unprotected"]
        .map(|name| start_side(name, script, &configs, build, &timeline));
    let mut sides: Vec<Side> = match sides {
        [Ok(p), Ok(u)] => vec![p, u],
        [Err(e), _] | [_, Err(e)] => {
            return Record {
                protocol: PROTOCOL_VERSION,
                readiness: e,
                ..Record::default()
            };
        }
    };
    let weighted: Vec<(String, u32)> = script
        .targets
        .iter()
        .map(|t| (t.name.clone(), t.share_of_load))
        .collect();
    let until_ms = script.duration_s * 1000.0;
    for side in &mut sides {
        let watched = Watched {
            busy: side.front.busy.clone(),
            targets: side
                .targets
                .iter()
                .zip(&side.dependencies)
                .map(|(t, d)| TargetGauges {
                    name: t.name().to_owned(),
                    in_relay: side.in_relay.get(t.name()).cloned().unwrap_or_default(),
                    calls: t.calls.clone(),
                    at_dependency: d.at_dependency.clone(),
                })
                .collect(),
            relay: (side.name == "protected").then(|| side.relay.clone()),
        };
        match Sampler::start(watched, &timeline, script.sample_ms.max(1.0)) {
            Ok(s) => side.sampler = Some(s),
            Err(e) => notes.push(format!("the {} sampler did not start: {e}", side.name)),
        }
    }
    for side in &mut sides {
        let generated = Generator::start(
            side.front.port,
            &script.load,
            &weighted,
            &side.in_relay,
            &timeline,
            (until_ms, until_ms + plan.drain_ms),
        );
        match generated {
            Ok(g) => side.generator = Some(g),
            Err(e) => notes.push(format!("the {} load did not start: {e}", side.name)),
        }
    }
    timeline.sleep_until(until_ms);
    // Answers still on their way: wait for them, up to the drain time.
    let deadline = until_ms + plan.drain_ms;
    while timeline.now_ms() < deadline && sides.iter().any(|s| waiting(s) > 0) {
        sleep_ms(20.0);
    }
    let relays = sides
        .iter_mut()
        .map(|side| finish_side(side, &timeline, &mut notes))
        .collect();
    Record {
        protocol: PROTOCOL_VERSION,
        readiness: Readiness::Ready,
        relays,
        notes,
    }
}

/// The relay's settings for each target of the script.
fn target_configs(script: &Script) -> Vec<(String, TargetConfig)> {
    script
        .targets
        .iter()
        .map(|t| {
            let config = ready::config(t.failure_threshold, t.retry_after_ms, t.max_concurrent);
            (t.name.clone(), config)
        })
        .collect()
}

/// Starts one relay's dependencies, targets, relay and front.
fn start_side(
    name: &'static str,
    script: &Script,
    configs: &[(String, TargetConfig)],
    build: BuildRelay,
    timeline: &Timeline,
) -> Result<Side, Readiness> {
    let machinery = |what: &str, e: std::io::Error| Readiness::NotReady {
        during: format!("starting the {name} relay's {what}"),
        message: e.to_string(),
        location: None,
    };
    let mut dependencies = Vec::new();
    let mut targets = Vec::new();
    for t in &script.targets {
        let d = Dependency::start(t, timeline).map_err(|e| machinery(&t.name, e))?;
        targets.push(Arc::new(HttpTarget::new(
            &t.name,
            d.port,
            script.relay.call_timeout_ms,
            timeline,
        )));
        dependencies.push(d);
    }
    let relay: Arc<dyn RelayUnderTest> = if name == "protected" {
        let wiring = targets
            .iter()
            .zip(configs)
            .map(|(t, (_, c))| (t.clone() as Arc<dyn Target>, *c))
            .collect();
        match guarded("Relay::new", || build(timeline.clock(), wiring)) {
            Ok(r) => Arc::from(r),
            Err(p) => {
                return Err(Readiness::NotReady {
                    during: "Relay::new".into(),
                    message: p.message,
                    location: p.location,
                });
            }
        }
    } else {
        Arc::new(Blind::new(
            targets
                .iter()
                .map(|t| t.clone() as Arc<dyn Target>)
                .collect(),
        ))
    };
    let front = Front::start(relay.clone(), script.relay.workers, name)
        .map_err(|e| machinery("front", e))?;
    let in_relay = script
        .targets
        .iter()
        .map(|t| (t.name.clone(), Gauge::new()))
        .collect();
    Ok(Side {
        name,
        dependencies,
        targets,
        relay,
        front,
        in_relay,
        sampler: None,
        generator: None,
    })
}

/// Requests sent to this side and not answered yet.
fn waiting(side: &Side) -> u32 {
    side.in_relay.values().map(Gauge::now).sum()
}

/// Stops one side and collects what it observed.
fn finish_side(side: &mut Side, timeline: &Timeline, notes: &mut Vec<String>) -> RelayRecord {
    let requests = side
        .generator
        .as_ref()
        .map(|g| g.finish(timeline.now_ms()))
        .unwrap_or_default();
    side.front.stop();
    let (samples, state_problem) = side
        .sampler
        .as_mut()
        .map(Sampler::finish)
        .unwrap_or_default();
    for d in &mut side.dependencies {
        notes.extend(d.stop());
    }
    let mut calls: Vec<_> = side.targets.iter().flat_map(|t| t.take_log()).collect();
    calls.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    let protected = side.name == "protected";
    let (transitions, transitions_problem) = if protected {
        read_transitions(side.relay.clone())
    } else {
        (Vec::new(), None)
    };
    RelayRecord {
        name: side.name.to_owned(),
        requests,
        calls,
        samples,
        transitions,
        // Only the relay under test runs code that is not the rehearsal's own.
        panics: if protected {
            panics::records()
        } else {
            Vec::new()
        },
        state_problem: state_problem.or(transitions_problem),
    }
}

/// `Relay::transitions`, given two seconds.
fn read_transitions(relay: Arc<dyn RelayUnderTest>) -> (Vec<TransitionRecord>, Option<String>) {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("transitions".into())
        .spawn(move || {
            let _ = tx.send(guarded("Relay::transitions", || relay.transitions()));
        });
    if spawned.is_err() {
        return (Vec::new(), Some("could not read Relay::transitions".into()));
    }
    match rx.recv_timeout(Duration::from_secs(2)) {
        Ok(Ok(list)) => {
            let records = list
                .iter()
                .map(|t| TransitionRecord {
                    at_ms: crate::time::ms_of(t.at),
                    target: t.target.clone(),
                    from: t.from.as_str().to_owned(),
                    to: t.to.as_str().to_owned(),
                })
                .collect();
            (records, None)
        }
        Ok(Err(p)) => (
            Vec::new(),
            Some(format!("Relay::transitions panicked: {}", p.message)),
        ),
        Err(_) => (
            Vec::new(),
            Some("Relay::transitions did not return within 2 s".into()),
        ),
    }
}
