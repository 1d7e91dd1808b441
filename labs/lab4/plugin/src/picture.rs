//! What lab 4's timeline pictures show: each request on the lane of its target, coloured by
//! the code it got; a band per target for its breaker; each mock's calls in flight and
//! their peak; the transition records as marks.

use grader_lab::picture::{self, BandLook, Fate, Gauge, Lane, Look, Picture};
use lab4_harness::wire::{Observation, Settings};

use crate::Lab4;
use crate::steps::Step;

impl Picture<Step, Observation, Settings> for Lab4 {
    fn lane(&self, step: &Step) -> Option<Lane> {
        let target = match step {
            Step::Send(x) => &x.target,
            Step::SendConcurrent(x) => &x.target,
            _ => return None,
        };
        Some(Lane {
            band: target.clone(),
            target: target.clone(),
        })
    }

    fn fate(&self, outcome: &str) -> Fate {
        match outcome {
            "OK" | "B201" => Fate::Answered,
            "E500" | "E902" => Fate::Failed,
            "E901" => Fate::Timeout,
            "E904" => Fate::OpenCircuit,
            "E905" => Fate::NoCapacity,
            "held" => Fate::Held,
            "panicked" => Fate::Panicked,
            _ => Fate::Other,
        }
    }

    fn look(&self, observation: &Observation) -> Look {
        Look {
            bands: observation
                .targets
                .iter()
                .map(|t| BandLook::of(&t.name, t.state.as_deref()))
                .collect(),
            gauges: observation
                .targets
                .iter()
                .map(|t| Gauge::in_flight(&t.name, t.in_flight, t.peak))
                .collect(),
            marks: picture::transition_marks(observation.transitions.as_deref().unwrap_or(&[])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_word_has_its_colour() {
        for word in crate::steps::OUTCOMES {
            assert_ne!(Lab4.fate(word), Fate::Other, "{word}");
        }
    }
}
