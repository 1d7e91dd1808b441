//! What a lab tells the grader for the timeline picture of a scenario: what to draw, never
//! how (as [`crate::plot`] does for the rehearsal's charts). The grader draws every lab's
//! scenarios the same way: one lane per request on the fake clock's axis, coloured by
//! what it got; a band per breaker for its state over time; a row per mock for its calls
//! in flight; records and alerts as marks. The lab says which lane a step's requests go
//! to, what each of its outcome words means, and what an observation shows of its bands,
//! gauges and records.

/// What a request got, or how it waits: the picture colours its lane by this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fate {
    /// The target answered, with a healthy answer (`OK`, `B201`, `200`, `confirmed`).
    Answered,
    /// The target answered, with a failure (`E500`, `503`, `refused`, `unavailable`).
    Failed,
    /// The code under test rejected it at once: the circuit is open (`E904`).
    OpenCircuit,
    /// The code under test rejected it at once: no capacity left (`E905`).
    NoCapacity,
    /// No answer in time (`E901`, `timeout`).
    Timeout,
    /// It waited in an admission queue until its time there ran out (`queue_expired`).
    QueueExpired,
    /// The code under test panicked on it.
    Panicked,
    /// Waiting inside the target for a `release` step (`held`).
    Held,
    /// Waiting in the code under test's admission queue (`queued`).
    Queued,
    /// Waiting on the fake clock between two attempts (`pausing`).
    Pausing,
    /// Anything else the lab's words say.
    Other,
}

impl Fate {
    /// Whether the request is still out: it waits rather than having ended.
    pub fn waits(self) -> bool {
        matches!(self, Fate::Held | Fate::Queued | Fate::Pausing)
    }

    /// Whether the request's call reached the target (and so could be a trial).
    pub fn reached_target(self) -> bool {
        matches!(
            self,
            Fate::Answered | Fate::Failed | Fate::Timeout | Fate::Held
        )
    }
}

/// Where a step's requests go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The band (breaker) they go through, as [`BandLook::name`] names it
    /// (`core_banking`, `acme/ORDERS`, `shipping on instance 2`).
    pub band: String,
    /// The target whose settings apply, as the scenario names it (`shipping`).
    pub target: String,
}

/// How a breaker's state looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    /// Calls go through (`CLOSED`).
    Closed,
    /// Calls are rejected (`OPEN`).
    Open,
    /// A few calls are let through to find out (`HALF_OPEN`).
    HalfOpen,
    /// The state could not be read.
    Unknown,
}

/// One breaker after a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandLook {
    /// Its name (`core_banking`, `acme/ORDERS`).
    pub name: String,
    /// Its state in the lab's words (`HALF_OPEN`); `None` when it could not be read.
    pub state: Option<String>,
    /// How that state looks.
    pub tone: Tone,
}

impl BandLook {
    /// The breaker `name` in `state` (the usual words, `CLOSED`, `OPEN`, `HALF_OPEN`).
    pub fn of(name: &str, state: Option<&str>) -> BandLook {
        BandLook {
            name: name.to_owned(),
            state: state.map(str::to_owned),
            tone: tone(state),
        }
    }
}

/// One count after a step: a mock's calls in flight, a queue's length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gauge {
    /// What it counts, in a few words (`core_banking: calls in flight`).
    pub name: String,
    /// Its value now.
    pub value: u64,
    /// The most it ever was, when the lab knows (a mock's peak of calls in flight).
    pub peak: Option<u64>,
}

impl Gauge {
    /// A mock's calls in flight at `target`, and their peak.
    pub fn in_flight(target: &str, value: u64, peak: u64) -> Gauge {
        Gauge {
            name: format!("{target}: calls in flight"),
            value,
            peak: Some(peak),
        }
    }
}

/// What kind of record a mark is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarkKind {
    /// A transition record of the code under test.
    Transition,
    /// An alert sent to the operators.
    Alert,
}

/// A record the code under test wrote, for a mark on its band.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Fake-clock milliseconds the record carries.
    pub at_ms: u64,
    /// The band it belongs to, as [`BandLook::name`] names it.
    pub band: String,
    /// The record as it prints.
    pub text: String,
    /// Its kind.
    pub kind: MarkKind,
    /// For a transition record, the states it leads from and to.
    pub change: Option<(Tone, Tone)>,
}

/// What an observation shows, for the picture.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Look {
    /// Every breaker, in the lab's order.
    pub bands: Vec<BandLook>,
    /// Every count worth a row, in the lab's order.
    pub gauges: Vec<Gauge>,
    /// Every record so far, oldest first (the picture marks those new at each step).
    pub marks: Vec<Mark>,
}

/// A target's settings, as far as the picture draws them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traits {
    /// Milliseconds a request may take in all, drawn as a tick on its lane, when the lab
    /// has such a budget (lab 6).
    pub budget_ms: Option<u64>,
}

/// A lab's side of the picture, for its own step, observation and settings types.
pub trait Picture<Step, Observation, Settings>: Send + Sync {
    /// Where the requests of `step` go; `None` for a step that sends none.
    fn lane(&self, step: &Step) -> Option<Lane>;

    /// What an outcome (or waiting) word of the lab means.
    fn fate(&self, outcome: &str) -> Fate;

    /// What an observation shows.
    fn look(&self, observation: &Observation) -> Look;

    /// What the picture draws of a target's settings.
    fn traits(&self, settings: &Settings) -> Traits {
        let _ = settings;
        Traits::default()
    }

    /// The lab's word for a call let through while a breaker is `HALF_OPEN`.
    fn probe_word(&self) -> &'static str {
        "trial"
    }
}

/// The time of a record that starts with `HH:MM:SS.mmm `, in milliseconds.
pub fn record_ms(record: &str) -> Option<u64> {
    let stamp = record.split(' ').next()?;
    let (hms, ms) = stamp.split_once('.')?;
    let mut parts = hms.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    if parts.next().is_some() || ms.len() != 3 {
        return None;
    }
    Some(((h * 60 + m) * 60 + s) * 1000 + ms.parse::<u64>().ok()?)
}

/// The tone of the usual state words, `CLOSED`, `OPEN` and `HALF_OPEN`.
pub fn tone(state: Option<&str>) -> Tone {
    match state {
        Some("CLOSED") => Tone::Closed,
        Some("OPEN") => Tone::Open,
        Some("HALF_OPEN") => Tone::HalfOpen,
        _ => Tone::Unknown,
    }
}

/// Transition records (`00:02:00.000 core_banking CLOSED -> OPEN`) as marks, each on the
/// band its second word names.
pub fn transition_marks(records: &[String]) -> Vec<Mark> {
    records
        .iter()
        .filter_map(|r| {
            let at_ms = record_ms(r)?;
            let band = r.split(' ').nth(1)?.to_owned();
            let (from, to) = r.split_once(" -> ")?;
            let from = from.rsplit(' ').next();
            let to = to.split(' ').next();
            Some(Mark {
                at_ms,
                band,
                text: r.clone(),
                kind: MarkKind::Transition,
                change: Some((tone(from), tone(to))),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_carry_their_time() {
        assert_eq!(
            record_ms("00:02:30.250 core_banking OPEN -> HALF_OPEN"),
            Some(150_250)
        );
        assert_eq!(record_ms("2:30 core_banking"), None);
        let marks = transition_marks(&["00:00:01.000 acme/ORDERS CLOSED -> OPEN".into()]);
        assert_eq!(marks[0].band, "acme/ORDERS");
        assert_eq!(marks[0].at_ms, 1000);
        assert_eq!(marks[0].change, Some((Tone::Closed, Tone::Open)));
    }
}
