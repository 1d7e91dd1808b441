//! Which charts the page shows, what each one plots and what to look for in it. The
//! grader draws them.

use grader_lab::plot::{
    Band, Chart, Color, Layer, Line, Plot, Scale, StackedChart, StateChart, TimeChart,
};
use lab4_rehearsal_protocol::{Outcome, Record, RelayRecord, Sample, Script};

use super::figures::{Figures, RelayFigures, Span, Window};

/// The relay under test.
const PROTECTED: Color = Color(27, 140, 100);
/// The blind relay.
const UNPROTECTED: Color = Color(217, 95, 2);

/// The colour of a phase or a breaker state.
fn band_color(what: &str) -> Color {
    match what {
        "slow" => Color(255, 205, 60),
        "refusing" | "OPEN" => Color(220, 60, 60),
        "failing" => Color(150, 90, 200),
        "HALF_OPEN" => Color(255, 150, 0),
        "CLOSED" => Color(60, 160, 60),
        _ => Color(200, 200, 200),
    }
}

/// The colour of an outcome in stacked charts.
fn outcome_color(outcome: Outcome) -> Color {
    match outcome.as_str() {
        "OK" => Color(44, 160, 44),
        "B201" => Color(152, 223, 138),
        "E500" => Color(148, 103, 189),
        "E901" => Color(140, 86, 75),
        "E902" => Color(214, 39, 40),
        "E904" => Color(31, 119, 180),
        "E905" => Color(23, 190, 207),
        "PANIC" => Color(0, 0, 0),
        "NO_ANSWER" => Color(127, 127, 127),
        _ => Color(199, 199, 199),
    }
}

/// Spans as shaded, named bands; a healthy phase and a CLOSED circuit are left clear.
fn bands(spans: &[Span]) -> Vec<Band> {
    spans
        .iter()
        .filter(|s| s.what != "healthy" && s.what != "CLOSED")
        .map(|s| Band {
            from_s: s.from_ms / 1000.0,
            to_s: s.to_ms / 1000.0,
            label: Some(s.what.clone()),
            color: band_color(&s.what),
        })
        .collect()
}

/// A breaker's states as one row of a state chart: every state named.
fn states(spans: &[Span]) -> Vec<Band> {
    spans
        .iter()
        .map(|s| Band {
            from_s: s.from_ms / 1000.0,
            to_s: s.to_ms / 1000.0,
            label: Some(s.what.clone()),
            color: band_color(&s.what),
        })
        .collect()
}

/// Every chart of a rehearsal of `script` (fitted to the run), or why one failed to draw.
pub fn all(script: &Script, record: &Record, figures: &Figures) -> Vec<Chart> {
    let [protected, unprotected, ..] = figures.relays.as_slice() else {
        return Vec::new();
    };
    let window_s = figures.window_ms / 1000.0;
    let phases = figures
        .story
        .as_ref()
        .map(|s| s.phases.clone())
        .unwrap_or_default();
    let sick = figures.story.as_ref().map(|s| s.sick.clone());
    let sick_name = sick.clone().unwrap_or_else(|| "the sick dependency".into());
    let mut charts = Vec::new();
    for t in &script.targets {
        let is_sick = sick.as_deref() == Some(t.name.as_str());
        let look_for = if is_sick {
            format!(
                "Behind your relay, requests to {} that cannot be served are rejected at once (E905, E904): the green line drops while it is sick. Behind the unprotected relay they take as long as {} does, or longer.",
                t.name, t.name
            )
        } else {
            format!(
                "{} never falls sick. Behind your relay its line stays flat at a few milliseconds; behind the unprotected one it climbs to seconds while {sick_name} is slow: its requests wait for a worker thread behind the stuck ones.",
                t.name
            )
        };
        let mut lines = Vec::new();
        for (r, who, color) in [
            (protected, "your relay", PROTECTED),
            (unprotected, "unprotected", UNPROTECTED),
        ] {
            let windows = r
                .targets
                .get(&t.name)
                .map(|f| f.windows.as_slice())
                .unwrap_or_default();
            for (name, dashed, pick) in [
                ("p99", false, (|w| w.p99_ms) as fn(&Window) -> Option<f64>),
                ("p50", true, |w| w.p50_ms),
            ] {
                lines.push(Line {
                    label: format!("{name}, {who}"),
                    color,
                    dashed,
                    points: windows
                        .iter()
                        .map(|w| (w.from_ms / 1000.0 + window_s / 2.0, pick(w)))
                        .collect(),
                });
            }
        }
        let chart = TimeChart {
            title: format!(
                "{}: latency of the requests sent in each {:.2} s (p99 solid, p50 dashed)",
                t.name, window_s
            ),
            y_desc: "latency".into(),
            scale: Scale::LogMs,
            bands: bands(&phases),
            lines,
            limit: None,
        };
        charts.push(Chart {
            id: format!("latency-{}", t.name),
            look_for,
            plot: Plot::Time(chart),
        });
    }
    charts.push(throughput(
        script,
        protected,
        unprotected,
        &phases,
        window_s,
    ));
    if let Some(sick) = &sick {
        let limit = script.target(sick).map_or(0, |t| t.max_concurrent);
        charts.push(in_progress_at(sick, limit, script, record, &phases));
    }
    charts.push(threads(script, record, &phases));
    if let Some(sick) = &sick {
        charts.push(calls_per_s(sick, protected, unprotected, window_s));
    }
    if !protected.breaker.is_empty() {
        let rows: Vec<(String, Vec<Band>)> = script
            .targets
            .iter()
            .filter_map(|t| Some((t.name.clone(), states(protected.breaker.get(&t.name)?))))
            .collect();
        charts.push(Chart {
            id: "breaker-states".into(),
            look_for: format!(
                "Only {sick_name}'s circuit opens; every other target stays CLOSED. While OPEN, a short HALF_OPEN sliver every retry wait is the trial call; the last one closes the circuit after {sick_name} recovers."
            ),
            plot: Plot::States(StateChart {
                title: "Breaker states behind your relay".into(),
                rows,
            }),
        });
    }
    if let Some(sick) = &sick {
        for (r, who) in [
            (protected, "your relay"),
            (unprotected, "the unprotected relay"),
        ] {
            charts.push(outcomes(sick, r, who, &phases, window_s));
        }
    }
    charts
}

fn throughput(
    script: &Script,
    protected: &RelayFigures,
    unprotected: &RelayFigures,
    phases: &[Span],
    window_s: f64,
) -> Chart {
    let mut lines = Vec::new();
    for (r, who, color) in [
        (protected, "your relay", PROTECTED),
        (unprotected, "unprotected", UNPROTECTED),
    ] {
        for (i, t) in script.targets.iter().enumerate() {
            let Some(f) = r.targets.get(&t.name) else {
                continue;
            };
            lines.push(Line {
                label: format!("{}, {who}", t.name),
                color,
                dashed: i > 0,
                points: f
                    .windows
                    .iter()
                    .map(|w| {
                        let answers: u32 = w
                            .outcomes
                            .iter()
                            .filter(|(o, _)| o.is_answer())
                            .map(|(_, n)| n)
                            .sum();
                        (
                            w.from_ms / 1000.0 + window_s / 2.0,
                            Some(f64::from(answers) / window_s),
                        )
                    })
                    .collect(),
            });
        }
    }
    let chart = TimeChart {
        title: "Throughput: answers (OK, B201) per second, by target".into(),
        y_desc: "answers per second".into(),
        scale: Scale::Linear,
        bands: bands(phases),
        lines,
        limit: None,
    };
    Chart {
        id: "throughput".into(),
        look_for: "Behind your relay, every target but the sick one keeps its throughput all along. Behind the unprotected relay, every target's throughput collapses while one of them is slow.".into(),
        plot: Plot::Time(chart),
    }
}

fn samples<'a>(record: &'a Record, relay: &str) -> &'a [Sample] {
    record
        .relays
        .iter()
        .find(|r| r.name == relay)
        .map_or(&[], |r: &RelayRecord| r.samples.as_slice())
}

fn in_progress_at(
    sick: &str,
    limit: usize,
    script: &Script,
    record: &Record,
    phases: &[Span],
) -> Chart {
    let mut lines = Vec::new();
    for (relay, who, color) in [
        ("protected", "your relay", PROTECTED),
        ("unprotected", "unprotected", UNPROTECTED),
    ] {
        for t in &script.targets {
            lines.push(Line {
                label: format!("at {}, {who}", t.name),
                color,
                dashed: t.name != sick,
                points: samples(record, relay)
                    .iter()
                    .map(|s| {
                        let v = s
                            .targets
                            .get(&t.name)
                            .map(|x| f64::from(x.at_dependency.peak));
                        (s.t_ms / 1000.0, v)
                    })
                    .collect(),
            });
        }
    }
    let chart = TimeChart {
        title: "Calls in progress at each dependency (the most in each sample)".into(),
        y_desc: "calls in progress".into(),
        scale: Scale::Linear,
        bands: bands(phases),
        lines,
        limit: Some((limit as f64, format!("max_concurrent of {sick} = {limit}"))),
    };
    Chart {
        id: "in-progress".into(),
        look_for: format!(
            "Your relay never has more than max_concurrent calls at {sick}, even while it is slow: the bulkhead rejects the rest with E905. The unprotected relay has as many as it has worker threads, and its calls to the healthy dependencies (dashed) dry up meanwhile: no thread is free to make them."
        ),
        plot: Plot::Time(chart),
    }
}

fn threads(script: &Script, record: &Record, phases: &[Span]) -> Chart {
    let mut lines = Vec::new();
    for (relay, who, color) in [
        ("protected", "your relay", PROTECTED),
        ("unprotected", "unprotected", UNPROTECTED),
    ] {
        let s = samples(record, relay);
        lines.push(Line {
            label: format!("worker threads busy, {who}"),
            color,
            dashed: false,
            points: s
                .iter()
                .map(|x| (x.t_ms / 1000.0, Some(f64::from(x.busy.peak))))
                .collect(),
        });
        lines.push(Line {
            label: format!("requests inside the relay, {who}"),
            color,
            dashed: true,
            points: s
                .iter()
                .map(|x| {
                    let inside: u32 = x.targets.values().map(|t| t.in_relay.now).sum();
                    (x.t_ms / 1000.0, Some(f64::from(inside)))
                })
                .collect(),
        });
    }
    let workers = script.relay.workers;
    let chart = TimeChart {
        title: "Inside the relay: worker threads busy, and requests sent but not answered".into(),
        y_desc: "threads / requests".into(),
        scale: Scale::Linear,
        bands: bands(phases),
        lines,
        limit: Some((workers as f64, format!("{workers} worker threads"))),
    };
    Chart {
        id: "threads".into(),
        look_for: "The 300-threads story of the handout, in small: behind the unprotected relay every worker thread is busy while the dependency is slow, and requests pile up waiting for one. Behind your relay, only max_concurrent threads wait on the slow dependency; the others keep serving.".into(),
        plot: Plot::Time(chart),
    }
}

fn calls_per_s(
    sick: &str,
    protected: &RelayFigures,
    unprotected: &RelayFigures,
    window_s: f64,
) -> Chart {
    let line = |r: &RelayFigures, label: &str, color| Line {
        label: label.into(),
        color,
        dashed: false,
        points: r
            .targets
            .get(sick)
            .map(|f| {
                f.windows
                    .iter()
                    .map(|w| {
                        (
                            w.from_ms / 1000.0 + window_s / 2.0,
                            Some(f64::from(w.calls) / window_s),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    let bands = protected
        .breaker
        .get(sick)
        .map(|spans| bands(spans))
        .unwrap_or_default();
    let chart = TimeChart {
        title: format!(
            "Calls to {sick} per second; shaded: your relay's circuit OPEN or HALF_OPEN"
        ),
        y_desc: "calls per second".into(),
        scale: Scale::Linear,
        bands,
        lines: vec![
            line(protected, "your relay", PROTECTED),
            line(unprotected, "unprotected relay", UNPROTECTED),
        ],
        limit: None,
    };
    Chart {
        id: "calls".into(),
        look_for: format!(
            "While your relay's circuit is OPEN its calls to {sick} fall to about nothing: one trial call per retry wait. The unprotected relay keeps calling a dependency that refuses every connection."
        ),
        plot: Plot::Time(chart),
    }
}

fn outcomes(sick: &str, r: &RelayFigures, who: &str, phases: &[Span], window_s: f64) -> Chart {
    let windows = r
        .targets
        .get(sick)
        .map(|f| f.windows.as_slice())
        .unwrap_or_default();
    let layers: Vec<Layer> = Outcome::ALL
        .iter()
        .map(|o| {
            let values = windows
                .iter()
                .map(|w| {
                    let n = w.outcomes.get(o).copied().unwrap_or(0);
                    (w.from_ms / 1000.0 + window_s / 2.0, f64::from(n) / window_s)
                })
                .collect();
            Layer {
                label: format!("{} ({})", o.as_str(), o.cause()),
                color: outcome_color(*o),
                values,
            }
        })
        .collect();
    let look_for = if r.name == "protected" {
        format!(
            "Your relay answers every request to {sick}: E905 while the bulkhead is full, E904 while the circuit is open, a few E901 (answers later than the relay waits) and E902 (refused connections) as it opens, then OK again after recovery."
        )
    } else {
        format!(
            "The unprotected relay has no fast answer: requests to {sick} take as long as it does. While it is slow, most cannot even be sent (NOT_SENT: every request the load generator may keep waiting is stuck); while it refuses connections, they fail one by one with E902."
        )
    };
    Chart {
        id: format!("outcomes-{}", r.name),
        look_for,
        plot: Plot::Stacked(StackedChart {
            title: format!("How requests to {sick} ended behind {who}, per second (by send time)"),
            y_desc: "requests per second".into(),
            layers,
            bands: bands(phases),
        }),
    }
}
