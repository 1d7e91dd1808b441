//! What lab 5's timeline pictures show: each message on the lane of its flow, coloured by
//! what it got (a status, a transport failure, the gateway's own rejection); a band per
//! flow for its circuit, with the probes of each `HALF_OPEN` round told apart; each flow
//! endpoint's calls in flight and their peak; transition records and the alerts sent to
//! the operators as marks of their own.

use grader_lab::picture::{self, BandLook, Fate, Gauge, Lane, Look, Mark, MarkKind, Picture};
use lab5_harness::wire::{Observation, Settings};

use crate::Lab5;
use crate::steps::Step;

impl Picture<Step, Observation, Settings> for Lab5 {
    fn lane(&self, step: &Step) -> Option<Lane> {
        let flow = match step {
            Step::Send(x) => &x.flow,
            Step::SendConcurrent(x) => &x.flow,
            _ => return None,
        };
        Some(Lane {
            band: flow.clone(),
            target: flow.clone(),
        })
    }

    fn fate(&self, outcome: &str) -> Fate {
        match outcome {
            "timeout" => Fate::Timeout,
            "refused" => Fate::Failed,
            "circuit_open" => Fate::OpenCircuit,
            "no_capacity" => Fate::NoCapacity,
            "held" => Fate::Held,
            "panicked" => Fate::Panicked,
            // 429 and every 5xx count as failures; every other status is an answer, a
            // business refusal included.
            status => match status.parse::<u16>() {
                Ok(429 | 500..=599) => Fate::Failed,
                Ok(100..=499) => Fate::Answered,
                _ => Fate::Other,
            },
        }
    }

    fn look(&self, observation: &Observation) -> Look {
        let mut marks =
            picture::transition_marks(observation.transitions.as_deref().unwrap_or(&[]));
        marks.extend(observation.alerts.iter().filter_map(|a| {
            Some(Mark {
                at_ms: picture::record_ms(a)?,
                band: a.split(' ').nth(1)?.to_owned(),
                text: a.clone(),
                kind: MarkKind::Alert,
                change: None,
            })
        }));
        Look {
            bands: observation
                .flows
                .iter()
                .map(|f| BandLook::of(&f.name, f.state.as_deref()))
                .collect(),
            gauges: observation
                .flows
                .iter()
                .map(|f| Gauge::in_flight(&f.name, f.in_flight, f.peak))
                .collect(),
            marks,
        }
    }

    fn probe_word(&self) -> &'static str {
        "probe"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_answers_or_failures_as_the_breaker_counts_them() {
        assert_eq!(Lab5.fate("200"), Fate::Answered);
        assert_eq!(Lab5.fate("422"), Fate::Answered);
        assert_eq!(Lab5.fate("429"), Fate::Failed);
        assert_eq!(Lab5.fate("503"), Fate::Failed);
        for word in crate::steps::OUTCOME_WORDS {
            assert_ne!(Lab5.fate(word), Fate::Other, "{word}");
        }
    }
}
