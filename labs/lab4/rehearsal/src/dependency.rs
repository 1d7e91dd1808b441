//! A dependency server (core banking, claims) that follows its script over real time.
//!
//! It answers `GET /call` on 127.0.0.1 with `OK` (or `B201`, every n-th answer) after the
//! phase's latency, answers `E500` at once while failing, and while refusing has nothing
//! listening on its port, so connections are refused by the system. Each request is
//! served on a thread of its own, so a slow phase delays answers without limiting how
//! many calls it takes: what limits them is the relay.

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use lab4_rehearsal_protocol::{Behaviour, TargetScript};

use crate::gauge::Gauge;
use crate::time::{Timeline, sleep_ms};

/// A running dependency server.
pub struct Dependency {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Calls it is working on.
    pub at_dependency: Gauge,
    shared: Arc<Shared>,
    controller: Option<JoinHandle<()>>,
}

struct Shared {
    name: String,
    port: u16,
    timeline: Timeline,
    gauge: Gauge,
    /// The current phase: behaviour and latency.
    now: Mutex<(Behaviour, f64)>,
    answers: AtomicU64,
    business_refusal_every: Option<u32>,
    stop: AtomicBool,
    /// Problems to report (a port that could not be listened on again).
    notes: Mutex<Vec<String>>,
}

/// One period of listening, from a healthy phase to the next refusing one.
struct Listening {
    stop: Arc<AtomicBool>,
    dispatcher: JoinHandle<()>,
}

impl Dependency {
    /// Starts the dependency of `script` on a free port; it follows its phases on
    /// `timeline` until [`Dependency::stop`].
    pub fn start(script: &TargetScript, timeline: &Timeline) -> std::io::Result<Dependency> {
        let (listener, port) = crate::ports::listen_below_ephemeral()?;
        let gauge = Gauge::new();
        let first = script.phases.first();
        let shared = Arc::new(Shared {
            name: script.name.clone(),
            port,
            timeline: timeline.clone(),
            gauge: gauge.clone(),
            now: Mutex::new(first.map_or((Behaviour::Healthy, 0.0), |p| {
                (p.behaviour, p.latency_ms.unwrap_or(0.0))
            })),
            answers: AtomicU64::new(0),
            business_refusal_every: script.business_refusal_every,
            stop: AtomicBool::new(false),
            notes: Mutex::new(Vec::new()),
        });
        let phases: Vec<(f64, Behaviour, f64)> = script
            .phases
            .iter()
            .map(|p| (p.from_s * 1000.0, p.behaviour, p.latency_ms.unwrap_or(0.0)))
            .collect();
        let mut listener = Some(listener);
        let controller = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("{}-script", script.name))
                .spawn(move || follow_script(&shared, &phases, listener.take()))?
        };
        Ok(Dependency {
            port,
            at_dependency: gauge,
            shared,
            controller: Some(controller),
        })
    }

    /// Stops following the script and closes the port.
    pub fn stop(&mut self) -> Vec<String> {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(c) = self.controller.take() {
            let _ = c.join();
        }
        self.shared
            .notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Switches phases at their times; opens and closes the port as the script says.
fn follow_script(
    shared: &Arc<Shared>,
    phases: &[(f64, Behaviour, f64)],
    first: Option<TcpListener>,
) {
    let mut first = first;
    let mut listening: Option<Listening> = None;
    for &(from_ms, behaviour, latency_ms) in phases {
        while shared.timeline.now_ms() < from_ms {
            if shared.stop.load(Ordering::SeqCst) {
                close(listening.take());
                return;
            }
            sleep_ms((from_ms - shared.timeline.now_ms()).min(20.0));
        }
        *shared.now.lock().unwrap_or_else(PoisonError::into_inner) = (behaviour, latency_ms);
        match (behaviour, listening.is_some()) {
            (Behaviour::Refusing, true) => close(listening.take()),
            (Behaviour::Refusing, false) => first = None,
            (_, false) => {
                let listener = match first.take() {
                    Some(l) => Ok(l),
                    None => crate::ports::listen_again(shared.port),
                };
                match listener {
                    Ok(l) => listening = serve(shared, l),
                    Err(e) => shared
                        .notes
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(format!(
                            "{} could not listen on port {} again at {:.1} s: {e}",
                            shared.name,
                            shared.port,
                            shared.timeline.now_ms() / 1000.0
                        )),
                }
            }
            (_, true) => {}
        }
    }
    while !shared.stop.load(Ordering::SeqCst) {
        sleep_ms(20.0);
    }
    close(listening.take());
}

/// Serves requests from `listener` until the returned period is closed.
fn serve(shared: &Arc<Shared>, listener: TcpListener) -> Option<Listening> {
    let server = match tiny_http::Server::from_listener(listener, None) {
        Ok(s) => s,
        Err(e) => {
            shared
                .notes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(format!("{} could not serve: {e}", shared.name));
            return None;
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    let dispatcher = {
        let (shared, stop) = (shared.clone(), stop.clone());
        std::thread::Builder::new()
            .name(format!("{}-accept", shared.name))
            .spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match server.recv_timeout(std::time::Duration::from_millis(20)) {
                        Ok(Some(request)) => {
                            let shared = shared.clone();
                            let _ = std::thread::Builder::new()
                                .name(format!("{}-call", shared.name))
                                .spawn(move || answer(&shared, request));
                        }
                        Ok(None) => {}
                        Err(_) => break,
                    }
                }
                // Dropping the server closes its port: from now on, connections are refused.
                drop(server);
            })
            .ok()?
    };
    Some(Listening { stop, dispatcher })
}

fn close(listening: Option<Listening>) {
    if let Some(l) = listening {
        l.stop.store(true, Ordering::SeqCst);
        let _ = l.dispatcher.join();
    }
}

/// Answers one call as the phase at its arrival says.
fn answer(shared: &Shared, request: tiny_http::Request) {
    let working = shared.gauge.enter();
    let (behaviour, latency_ms) = *shared.now.lock().unwrap_or_else(PoisonError::into_inner);
    let (status, body) = match behaviour {
        Behaviour::Healthy | Behaviour::Slow => {
            sleep_ms(latency_ms);
            let n = shared.answers.fetch_add(1, Ordering::SeqCst) + 1;
            let refusal = shared
                .business_refusal_every
                .is_some_and(|every| every > 0 && n % u64::from(every) == 0);
            (200, if refusal { "B201" } else { "OK" })
        }
        // A call accepted just before the port closed.
        Behaviour::Refusing | Behaviour::Failing => (500, "E500"),
    };
    // The call is over for the dependency before the relay reads the answer, so the
    // dependency never counts more calls than the relay has in progress.
    drop(working);
    let _ = request.respond(tiny_http::Response::from_string(body).with_status_code(status));
}
