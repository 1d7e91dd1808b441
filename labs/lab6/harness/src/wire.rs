//! What the grader and lab 6's harness say to each other, inside the common protocol
//! (`grader_protocol`): a dependency's settings, the actions, and what is observed after
//! each. The grader's lab 6 plug-in uses the same types, so each is defined once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How the shop protects one dependency: as `lab.json` gives its defaults, as a scenario's
/// `targets` overrides them (any of them), and as the plan carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Calls to the dependency running at once, per shop instance.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_active: u64,
    /// Requests waiting for a slot at once; one more is turned away (`no_capacity`).
    pub max_queued: u64,
    /// Milliseconds a request may wait in the queue: still in time after exactly this
    /// long, gone (`queue_expired`) at any later instant.
    pub max_queue_wait_ms: u64,
    /// Milliseconds one operation may take in all: admission, attempts and pauses.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub budget_ms: u64,
    /// Attempts in all, the first one included.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_attempts: u64,
    /// Milliseconds of the pause before the first retry, without jitter; it doubles for
    /// each later retry.
    pub backoff_ms: u64,
    /// The most jitter added to a pause, in percent of its fixed part (0 to 100).
    #[cfg_attr(feature = "schema", schemars(range(max = 100)))]
    pub jitter_percent: u64,
    /// The seed of the jitter.
    pub jitter_seed: u64,
    /// How many of the latest outcomes the breaker's window keeps.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub window: u64,
    /// The fewest outcomes in the window before the circuit may open (at most `window`).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub minimum_calls: u64,
    /// The failure share, in percent, that opens the circuit.
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 100)))]
    pub failure_rate_percent: u64,
    /// Milliseconds the circuit stays open before the next attempt may be a probe.
    pub open_for_ms: u64,
    /// Probes a half-open round lets through, per shop instance.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub probes: u64,
}

/// One action of a scenario, after the grader has checked and normalised it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Tell a dependency how to answer from now on: `ok`, `no_tariff`, `unavailable`,
    /// `refused`, `hold` or `panic`.
    Script {
        /// `shipping` or `catalog`.
        target: String,
        /// The answer.
        answer: String,
    },
    /// Send `count` requests to shop `instance` one after the other (checkouts for
    /// `shipping`, page views for `catalog`), each once everything has settled.
    Send {
        /// `shipping` or `catalog`.
        target: String,
        /// How many requests.
        count: u32,
        /// Which shop instance, from 1.
        instance: u32,
        /// 1: the shop alone. 2 or 3: the request goes through that many layers in all,
        /// each outer one retrying the whole operation up to `max_attempts` times.
        layers: u32,
    },
    /// Send `count` requests to shop `instance` at the same moment, then wait until
    /// everything has settled.
    SendConcurrent {
        /// `shipping` or `catalog`.
        target: String,
        /// How many requests.
        count: u32,
        /// Which shop instance, from 1.
        instance: u32,
    },
    /// Answer the `count` oldest held calls at a dependency (all of them when `None`) with
    /// `answer`, and wait until everything has settled.
    Release {
        /// `shipping` or `catalog`.
        target: String,
        /// How many held calls; `None` means all.
        count: Option<u32>,
        /// `ok`, `no_tariff`, `unavailable` or `refused`.
        answer: String,
    },
    /// Move the fake clock forward, waking waiters one at a time in deadline order and
    /// letting everything settle after each.
    Advance {
        /// Milliseconds.
        ms: u64,
    },
    /// From now on, requests woken at the same moment (a slot freed, calls answered
    /// together, deadlines that fall together) go on one at a time in this order.
    WakeOrder {
        /// Whose turn comes first.
        order: WakeOrder,
    },
    /// Do nothing; only record the state of things.
    Observe,
}

impl Action {
    /// The shop instance the action uses (from 1); 1 for an action of no instance.
    pub fn instance(&self) -> u32 {
        match self {
            Action::Send { instance, .. } | Action::SendConcurrent { instance, .. } => *instance,
            _ => 1,
        }
    }
}

/// How many shop instances a plan's `actions` use: the highest they name, and at least 1.
pub fn instances(actions: &[Action]) -> usize {
    let most = actions.iter().map(Action::instance).max().unwrap_or(1);
    usize::try_from(most.max(1)).unwrap_or(usize::MAX)
}

/// Each dependency of a plan's `targets`, by name, with its settings, in the plan's order.
pub fn targets(targets: &[grader_protocol::TargetPlan<Settings>]) -> Vec<(String, Settings)> {
    targets
        .iter()
        .map(|t| (t.name.clone(), t.settings))
        .collect()
}

/// In which order requests woken at the same moment go on, each once the one before has
/// returned or waits again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WakeOrder {
    /// The request sent first goes first.
    #[default]
    OldestFirst,
    /// The request sent last goes first.
    NewestFirst,
}

impl WakeOrder {
    /// The word a scenario writes: `oldest_first` or `newest_first`.
    pub fn as_str(self) -> &'static str {
        match self {
            WakeOrder::OldestFirst => "oldest_first",
            WakeOrder::NewestFirst => "newest_first",
        }
    }

    /// The order a scenario's word names, if it names one.
    pub fn from_word(word: &str) -> Option<WakeOrder> {
        [WakeOrder::OldestFirst, WakeOrder::NewestFirst]
            .into_iter()
            .find(|o| o.as_str() == word)
    }
}

/// The state of things after an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observation {
    /// Each dependency as it sees the calls of every instance, in plan order.
    pub dependencies: Vec<DependencySnapshot>,
    /// Each shop instance, from 1.
    pub instances: Vec<InstanceSnapshot>,
    /// The transition records of each instance so far, as printed lines; `None` if reading
    /// them panicked.
    pub transitions: Vec<Option<Vec<String>>>,
    /// Every instance's records in the order the harness first saw them; with more than
    /// one instance, each starts with `#N ` (its instance). Reports show it as a timeline.
    pub journal: Vec<String>,
}

/// One dependency after an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DependencySnapshot {
    /// `shipping` or `catalog`.
    pub name: String,
    /// Calls that reached it.
    pub calls: u64,
    /// Calls in progress at it (held ones, including those whose caller gave up).
    pub in_flight: u64,
    /// The most calls ever in progress at once.
    pub peak: u64,
    /// Finished calls per answer.
    pub answered: BTreeMap<String, u64>,
}

/// One shop instance after an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceSnapshot {
    /// Each dependency as this instance sees it, in plan order.
    pub lanes: Vec<LaneSnapshot>,
}

/// One dependency, as one shop instance sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneSnapshot {
    /// `shipping` or `catalog`.
    pub name: String,
    /// The circuit state the shop reports; `None` if asking panicked or it said `None`.
    pub state: Option<String>,
    /// The shop's metrics for it (`timeout`, `no_capacity`, `queue_expired`,
    /// `circuit_open`, `no_tariff`); `None` if asking panicked or it said `None`.
    pub metrics: Option<BTreeMap<String, u64>>,
    /// Requests of this instance to this dependency waiting for an answer right now.
    pub held: u64,
    /// ... waiting in the admission queue.
    pub queued: u64,
    /// ... pausing before a retry.
    pub pausing: u64,
}

impl LaneSnapshot {
    /// One dependency as one instance sees it: its circuit `state` and `metrics` (as the
    /// shop reported them), and its requests that wait on the clock, each by the word of
    /// what it waits for (`held`, `queued`, `pausing`).
    pub fn new<'a>(
        name: &str,
        state: Option<String>,
        metrics: Option<BTreeMap<String, u64>>,
        waiting: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut lane = LaneSnapshot {
            name: name.to_owned(),
            state,
            metrics,
            held: 0,
            queued: 0,
            pausing: 0,
        };
        for word in waiting {
            match word {
                "held" => lane.held += 1,
                "queued" => lane.queued += 1,
                "pausing" => lane.pausing += 1,
                _ => {}
            }
        }
        lane
    }
}

/// The metric names, in the order reports list them.
pub const METRICS: [&str; 5] = [
    "timeout",
    "no_capacity",
    "queue_expired",
    "circuit_open",
    "no_tariff",
];

/// A shop's metrics by name, from their values in [`METRICS`]' order.
pub fn metric_counts(values: [u64; 5]) -> BTreeMap<String, u64> {
    METRICS
        .iter()
        .zip(values)
        .map(|(name, n)| ((*name).to_owned(), n))
        .collect()
}

/// Adds each instance's new records (`transitions`, per instance; `seen[i]` of
/// instance `i`'s are in already) to `journal`, in instance order, marked with their
/// instance when there is more than one; returns the journal so far.
pub fn journal(
    seen: &mut [usize],
    journal: &mut Vec<String>,
    transitions: &[Option<Vec<String>>],
) -> Vec<String> {
    let many = transitions.len() > 1;
    for (i, records) in transitions.iter().enumerate() {
        let records = records.as_deref().unwrap_or_default();
        let Some(seen) = seen.get_mut(i) else {
            continue;
        };
        for record in records.iter().skip(*seen) {
            journal.push(if many {
                format!("#{} {record}", i + 1)
            } else {
                record.clone()
            });
        }
        *seen = (*seen).max(records.len());
    }
    journal.clone()
}

/// What lab 6's harness saw while requests were blocked (`StuckRecord::seen`): whether
/// the dependency's circuit state could still be read, which tells whether they wait for
/// the breaker's lock or for something else.
pub mod seen {
    /// `Shop::circuit_state` returned: the breaker's lock is free.
    pub const STATE_READABLE: &str = "state_readable";
    /// `Shop::circuit_state` blocked too: the breaker's lock is held.
    pub const STATE_BLOCKED: &str = "state_blocked";
    /// `Shop::circuit_state` panicked: nothing can be told.
    pub const STATE_PANICKED: &str = "state_panicked";
    /// Asking the shops after a step (`Shop::circuit_state`, `Shop::metrics` or
    /// `Shop::transitions`) blocked for good: the protocol's key.
    pub const READ_BLOCKED: &str = grader_protocol::StuckRecord::READ_BLOCKED;
}
