//! A quiet check before the rehearsal: can the relay under test be built, answer one
//! request per target and report its breakers? A skeleton that still has `todo!()`s, or
//! a relay that panics or hangs, is named here, before any server starts.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use lab4_rehearsal_protocol::Readiness;
use relay_kit::{BreakerConfig, Clock, Code, Request, Target, TargetConfig};

use crate::BuildRelay;
use crate::panics::guarded;

/// How long the whole check may take.
const PATIENCE: Duration = Duration::from_secs(5);

/// A target that answers OK at once.
struct Quiet(String);

impl Target for Quiet {
    fn name(&self) -> &str {
        &self.0
    }

    fn call(&self, _request: &Request) -> Code {
        Code::Ok
    }
}

/// Builds a relay for `targets` (with their settings) and sends one request to each.
pub fn check(
    build: BuildRelay,
    clock: Arc<dyn Clock>,
    targets: &[(String, TargetConfig)],
) -> Readiness {
    let (done_tx, done_rx) = mpsc::channel();
    let (step_tx, step_rx) = mpsc::channel::<String>();
    let targets = targets.to_vec();
    let spawned = std::thread::Builder::new()
        .name("readiness".into())
        .spawn(move || {
            let _ = done_tx.send(run(build, clock, &targets, &step_tx));
        });
    if let Err(e) = spawned {
        return not_ready("the check", format!("could not start: {e}"), None);
    }
    match done_rx.recv_timeout(PATIENCE) {
        Ok(readiness) => readiness,
        Err(_) => {
            let during = step_rx
                .try_iter()
                .last()
                .unwrap_or_else(|| "Relay::new".into());
            not_ready(
                &during,
                format!(
                    "did not return within {} s, with targets that answer at once: a deadlock, or an endless loop?",
                    PATIENCE.as_secs()
                ),
                None,
            )
        }
    }
}

fn run(
    build: BuildRelay,
    clock: Arc<dyn Clock>,
    targets: &[(String, TargetConfig)],
    step: &mpsc::Sender<String>,
) -> Readiness {
    let wiring: Vec<(Arc<dyn Target>, TargetConfig)> = targets
        .iter()
        .map(|(name, config)| (Arc::new(Quiet(name.clone())) as Arc<dyn Target>, *config))
        .collect();
    let _ = step.send("Relay::new".into());
    let relay = match guarded("Relay::new", || build(clock, wiring)) {
        Ok(r) => r,
        Err(p) => return not_ready("Relay::new", p.message, p.location),
    };
    for (i, (name, _)) in targets.iter().enumerate() {
        let during = format!("Relay::handle (a request for {name})");
        let _ = step.send(during.clone());
        let request = Request::new(i as u64 + 1, name.clone());
        if let Err(p) = guarded("Relay::handle", || relay.handle(&request)) {
            return not_ready(&during, p.message, p.location);
        }
    }
    for (name, _) in targets {
        let during = format!("Relay::breaker_state(\"{name}\")");
        let _ = step.send(during.clone());
        if let Err(p) = guarded("Relay::breaker_state", || relay.breaker_state(name)) {
            return not_ready(&during, p.message, p.location);
        }
    }
    let _ = step.send("Relay::transitions".into());
    if let Err(p) = guarded("Relay::transitions", || relay.transitions()) {
        return not_ready("Relay::transitions", p.message, p.location);
    }
    Readiness::Ready
}

fn not_ready(during: &str, message: String, location: Option<String>) -> Readiness {
    Readiness::NotReady {
        during: during.to_owned(),
        message,
        location,
    }
}

/// The relay's settings for a target.
pub fn config(failure_threshold: u32, retry_after_ms: f64, max_concurrent: usize) -> TargetConfig {
    TargetConfig {
        breaker: BreakerConfig {
            failure_threshold,
            retry_after: Duration::from_secs_f64(retry_after_ms.max(0.0) / 1000.0),
        },
        max_concurrent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RelayUnderTest;
    use relay_kit::{MonotonicClock, State, Transition};

    struct Unfinished;

    impl RelayUnderTest for Unfinished {
        fn handle(&self, _request: &Request) -> Code {
            todo!("lab 4: handle")
        }
        fn breaker_state(&self, _target: &str) -> Option<State> {
            Some(State::Closed)
        }
        fn transitions(&self) -> Vec<Transition> {
            Vec::new()
        }
    }

    fn unfinished(
        _clock: Arc<dyn Clock>,
        _targets: Vec<(Arc<dyn Target>, TargetConfig)>,
    ) -> Box<dyn RelayUnderTest> {
        Box::new(Unfinished)
    }

    #[test]
    fn a_todo_in_handle_is_named_with_its_place() {
        crate::panics::install_hook();
        let targets = [("core_banking".to_owned(), config(3, 1000.0, 3))];
        let readiness = check(unfinished, Arc::new(MonotonicClock::new()), &targets);
        let Readiness::NotReady {
            during,
            message,
            location,
        } = readiness
        else {
            panic!("ready: {readiness:?}");
        };
        assert_eq!(during, "Relay::handle (a request for core_banking)");
        assert_eq!(message, "not yet implemented: lab 4: handle");
        assert!(location.is_some_and(|l| l.contains("ready.rs")));
    }
}
