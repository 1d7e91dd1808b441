//! A relay's HTTP front: a fixed pool of worker threads, each taking one request at a time
//! from the server's queue and handing it to `Relay::handle`.
//!
//! That pool is what a slow target exhausts: while every worker waits on a slow call,
//! every other request, whatever its target, waits in the queue.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use relay_kit::{Code, Request, State, Target, Transition, forward};

use crate::RelayUnderTest;
use crate::gauge::Gauge;
use crate::panics::guarded;

/// A running front.
pub struct Front {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Workers inside `Relay::handle`.
    pub busy: Gauge,
    stop: Arc<AtomicBool>,
}

impl Front {
    /// Serves `relay` on a free port of 127.0.0.1 with `workers` worker threads.
    pub fn start(
        relay: Arc<dyn RelayUnderTest>,
        workers: usize,
        name: &str,
    ) -> std::io::Result<Front> {
        let server = tiny_http::Server::http("127.0.0.1:0").map_err(std::io::Error::other)?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| std::io::Error::other("the front has no IP address"))?;
        let server = Arc::new(server);
        let busy = Gauge::new();
        let stop = Arc::new(AtomicBool::new(false));
        for i in 0..workers.max(1) {
            let (server, relay, busy, stop) =
                (server.clone(), relay.clone(), busy.clone(), stop.clone());
            std::thread::Builder::new()
                .name(format!("{name}-worker-{i}"))
                .spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        match server.recv_timeout(Duration::from_millis(20)) {
                            Ok(Some(request)) => serve(relay.as_ref(), &busy, request),
                            Ok(None) => {}
                            Err(_) => break,
                        }
                    }
                })?;
        }
        Ok(Front { port, busy, stop })
    }

    /// Lets the workers finish: each stops after its current request. A worker stuck in
    /// the relay stays stuck until the program ends.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Hands one HTTP request (`GET /<target>?id=<n>`) to the relay and answers with its code,
/// or with status 500 and `PANIC` when the relay panicked.
fn serve(relay: &dyn RelayUnderTest, busy: &Gauge, request: tiny_http::Request) {
    let url = request.url().to_owned();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let target = path.trim_start_matches('/');
    let id = query
        .strip_prefix("id=")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let handled = {
        let _inside = busy.enter();
        guarded("Relay::handle", || relay.handle(&Request::new(id, target)))
    };
    let (status, body) = match handled {
        Ok(code) => (200, code.as_str()),
        Err(_) => (500, "PANIC"),
    };
    let _ = request.respond(tiny_http::Response::from_string(body).with_status_code(status));
}

/// The relay before the lab: it forwards every request to its target, whatever happens.
pub struct Blind {
    targets: HashMap<String, Arc<dyn Target>>,
}

impl Blind {
    /// Forwards to `targets`.
    pub fn new(targets: Vec<Arc<dyn Target>>) -> Blind {
        Blind {
            targets: targets
                .into_iter()
                .map(|t| (t.name().to_owned(), t))
                .collect(),
        }
    }
}

impl RelayUnderTest for Blind {
    fn handle(&self, request: &Request) -> Code {
        match self.targets.get(&request.target) {
            Some(t) => forward(t.as_ref(), request),
            None => Code::E902,
        }
    }

    fn breaker_state(&self, _target: &str) -> Option<State> {
        None
    }

    fn transitions(&self) -> Vec<Transition> {
        Vec::new()
    }
}
