//! What lab 6's timeline pictures show: each checkout or page view on the lane of its
//! dependency and shop instance, coloured by how it ended, and where it waited: held by
//! the dependency, queued for a slot, or pausing between attempts; a tick where its budget
//! ran out; a band per instance and dependency for its breaker; each dependency's calls in
//! flight, and each instance's queue and pauses, as counts; the transition records as
//! marks.

use grader_lab::picture::{self, BandLook, Fate, Gauge, Lane, Look, Mark, Picture, Traits};
use lab6_harness::wire::{Observation, Settings};

use crate::Lab6;
use crate::steps::Step;

/// The band of `dependency` as shop instance `instance` (from 1) sees it.
fn band(dependency: &str, instance: usize) -> String {
    if instance <= 1 {
        dependency.to_owned()
    } else {
        format!("{dependency} on instance {instance}")
    }
}

impl Picture<Step, Observation, Settings> for Lab6 {
    fn lane(&self, step: &Step) -> Option<Lane> {
        let (target, instance) = match step {
            Step::Send(x) => (&x.target, x.instance),
            Step::SendConcurrent(x) => (&x.target, x.instance),
            _ => return None,
        };
        Some(Lane {
            band: band(target, instance.unwrap_or(1) as usize),
            target: target.clone(),
        })
    }

    fn fate(&self, outcome: &str) -> Fate {
        match outcome {
            "confirmed" | "shown" | "no_tariff" => Fate::Answered,
            price if price.starts_with("confirmed_at_") => Fate::Answered,
            "unavailable" | "refused" => Fate::Failed,
            "timeout" => Fate::Timeout,
            "no_capacity" => Fate::NoCapacity,
            "queue_expired" => Fate::QueueExpired,
            "circuit_open" => Fate::OpenCircuit,
            "held" => Fate::Held,
            "queued" => Fate::Queued,
            "pausing" => Fate::Pausing,
            "panicked" => Fate::Panicked,
            _ => Fate::Other,
        }
    }

    fn look(&self, observation: &Observation) -> Look {
        let mut look = Look::default();
        for (i, instance) in observation.instances.iter().enumerate() {
            for lane in &instance.lanes {
                look.bands.push(BandLook::of(
                    &band(&lane.name, i + 1),
                    lane.state.as_deref(),
                ));
            }
        }
        for d in &observation.dependencies {
            look.gauges
                .push(Gauge::in_flight(&d.name, d.in_flight, d.peak));
        }
        for (i, instance) in observation.instances.iter().enumerate() {
            for lane in &instance.lanes {
                let name = band(&lane.name, i + 1);
                look.gauges.push(Gauge {
                    name: format!("{name}: queued"),
                    value: lane.queued,
                    peak: None,
                });
                look.gauges.push(Gauge {
                    name: format!("{name}: pausing"),
                    value: lane.pausing,
                    peak: None,
                });
            }
        }
        for (i, records) in observation.transitions.iter().enumerate() {
            let marks = picture::transition_marks(records.as_deref().unwrap_or(&[]));
            look.marks.extend(marks.into_iter().map(|m| Mark {
                band: band(&m.band, i + 1),
                ..m
            }));
        }
        look.marks.sort_by_key(|m| m.at_ms);
        look
    }

    fn traits(&self, settings: &Settings) -> Traits {
        Traits {
            budget_ms: Some(settings.budget_ms),
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
    fn every_outcome_word_has_its_colour() {
        for word in crate::steps::OUTCOME_WORDS {
            assert_ne!(Lab6.fate(word), Fate::Other, "{word}");
        }
        assert_eq!(Lab6.fate("confirmed_at_7"), Fate::Answered);
    }

    #[test]
    fn instances_after_the_first_have_bands_of_their_own() {
        assert_eq!(band("shipping", 1), "shipping");
        assert_eq!(band("shipping", 2), "shipping on instance 2");
    }
}
