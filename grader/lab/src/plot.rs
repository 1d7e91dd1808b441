//! Charts a lab asks the grader to draw: what to plot, never how. The grader draws every
//! chart the same way (SVG, one frame and legend style), so a lab describes its data and
//! colours and nothing else.

/// A colour: red, green, blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Color(pub u8, pub u8, pub u8);

/// A stretch of time shaded behind a chart, or one cell of a row of states.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// Start, in seconds since the rehearsal started.
    pub from_s: f64,
    /// End.
    pub to_s: f64,
    /// Its name: written at its top in time charts, and in the legend of state charts;
    /// `None` leaves a time chart's band unnamed.
    pub label: Option<String>,
    /// Its colour.
    pub color: Color,
}

/// How a chart's y axis is scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// From 0 up to a little above the highest value (or the limit line).
    Linear,
    /// Milliseconds on a logarithmic axis, from 0.1 ms.
    LogMs,
}

/// A line over time; `None` values leave a gap.
#[derive(Clone, Debug)]
pub struct Line {
    /// Its name in the legend.
    pub label: String,
    /// Its colour.
    pub color: Color,
    /// Drawn dashed.
    pub dashed: bool,
    /// (seconds, value).
    pub points: Vec<(f64, Option<f64>)>,
}

/// Lines over time, on shaded bands.
#[derive(Clone, Debug)]
pub struct TimeChart {
    /// The caption.
    pub title: String,
    /// What the y axis measures.
    pub y_desc: String,
    /// Its scale.
    pub scale: Scale,
    /// Shaded stretches behind the lines.
    pub bands: Vec<Band>,
    /// The lines.
    pub lines: Vec<Line>,
    /// A dashed horizontal line and its label (a limit).
    pub limit: Option<(f64, String)>,
}

/// One layer of a stacked chart.
#[derive(Clone, Debug)]
pub struct Layer {
    /// Its name in the legend.
    pub label: String,
    /// Its colour.
    pub color: Color,
    /// (seconds, value), the same times in every layer.
    pub values: Vec<(f64, f64)>,
}

/// Areas stacked over time, bottom layer first, on shaded bands.
#[derive(Clone, Debug)]
pub struct StackedChart {
    /// The caption.
    pub title: String,
    /// What the y axis measures.
    pub y_desc: String,
    /// The layers, bottom first.
    pub layers: Vec<Layer>,
    /// Shaded stretches behind the areas.
    pub bands: Vec<Band>,
}

/// One row of coloured stretches per name (a state over time); the bands' labels make the
/// legend.
#[derive(Clone, Debug)]
pub struct StateChart {
    /// The caption.
    pub title: String,
    /// (row name, its bands).
    pub rows: Vec<(String, Vec<Band>)>,
}

/// What one chart plots.
#[derive(Clone, Debug)]
pub enum Plot {
    /// Lines over time.
    Time(TimeChart),
    /// Stacked areas over time.
    Stacked(StackedChart),
    /// States over time.
    States(StateChart),
}

/// One chart of the page.
#[derive(Clone, Debug)]
pub struct Chart {
    /// An id for the page's HTML element (letters, digits, `-`, `_`).
    pub id: String,
    /// What to look for in it, in a sentence or two.
    pub look_for: String,
    /// What it plots.
    pub plot: Plot,
}
