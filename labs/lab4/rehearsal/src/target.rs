//! The relay's targets: HTTP calls to a dependency server, with a timeout.
//!
//! Each call opens its own connection, as a relay without a connection pool would, so a
//! dependency that stops listening is seen at once as a refused connection (E902).

use std::io::ErrorKind;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use lab4_rehearsal_protocol::{CallRecord, Outcome};
use relay_kit::{Code, Request, Target};

use crate::gauge::Gauge;
use crate::time::{Timeline, rounded};

/// A dependency reached over HTTP on 127.0.0.1, counting its calls in progress and
/// recording each call.
pub struct HttpTarget {
    name: String,
    url: String,
    agent: ureq::Agent,
    timeline: Timeline,
    /// Calls in progress.
    pub calls: Gauge,
    log: Mutex<Vec<CallRecord>>,
}

impl HttpTarget {
    /// The target `name` on `127.0.0.1:port`; calls give up after `timeout_ms`.
    pub fn new(name: &str, port: u16, timeout_ms: f64, timeline: &Timeline) -> HttpTarget {
        HttpTarget {
            name: name.to_owned(),
            url: format!("http://127.0.0.1:{port}/call"),
            agent: agent(Some(timeout_ms), false),
            timeline: timeline.clone(),
            calls: Gauge::new(),
            log: Mutex::new(Vec::new()),
        }
    }

    /// Every call so far.
    pub fn take_log(&self) -> Vec<CallRecord> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Target for HttpTarget {
    fn name(&self) -> &str {
        &self.name
    }

    fn call(&self, request: &Request) -> Code {
        let in_progress = self.calls.enter();
        let start = self.timeline.now_ms();
        let code = match self
            .agent
            .get(format!("{}?id={}", self.url, request.id))
            .call()
        {
            Ok(mut response) => {
                let status = response.status().as_u16();
                match response.body_mut().read_to_string() {
                    Ok(body) if status == 200 && body == "B201" => Code::B201,
                    Ok(_) if status == 200 => Code::Ok,
                    Ok(_) => Code::E500,
                    Err(e) => code_of(&e),
                }
            }
            Err(e) => code_of(&e),
        };
        let ms = self.timeline.now_ms() - start;
        drop(in_progress);
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(CallRecord {
                target: self.name.clone(),
                start_ms: start,
                ms: rounded(ms),
                outcome: outcome_of(code),
            });
        code
    }
}

/// The code for a failed HTTP call: no answer in time is E901, a refused connection E902,
/// anything else E500.
fn code_of(e: &ureq::Error) -> Code {
    match e {
        ureq::Error::Timeout(_) => Code::E901,
        ureq::Error::Io(io) if io.kind() == ErrorKind::ConnectionRefused => Code::E902,
        ureq::Error::Io(io) if matches!(io.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
            Code::E901
        }
        ureq::Error::ConnectionFailed => Code::E902,
        _ => Code::E500,
    }
}

/// The record's spelling of a code.
pub fn outcome_of(code: Code) -> Outcome {
    match code {
        Code::Ok => Outcome::Ok,
        Code::B201 => Outcome::B201,
        Code::E500 => Outcome::E500,
        Code::E901 => Outcome::E901,
        Code::E902 => Outcome::E902,
        Code::E904 => Outcome::E904,
        Code::E905 => Outcome::E905,
    }
}

/// An HTTP client for loopback only: no proxy (whatever the environment says), statuses
/// as values, a timeout for the whole call if given, and connections kept for reuse only
/// when `keep_alive`.
pub fn agent(timeout_ms: Option<f64>, keep_alive: bool) -> ureq::Agent {
    let idle = if keep_alive { 1 } else { 0 };
    ureq::Agent::config_builder()
        .proxy(None)
        .http_status_as_error(false)
        .timeout_global(timeout_ms.map(|ms| Duration::from_secs_f64(ms.max(1.0) / 1000.0)))
        .max_idle_connections(idle)
        .max_idle_connections_per_host(idle)
        .build()
        .into()
}
