//! The page's charts, drawn as SVG by plotters from what the lab describes: lines over
//! time on shaded bands, stacked areas, and rows of states. The canvas, frame, legend and
//! colours are shared with the class page's charts (`crate::class::charts`), so every
//! page of the kit draws alike.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use grader_lab::plot::{
    Band, Chart, Color as LabColor, Plot, Scale, StackedChart, StateChart, TimeChart,
};

/// Width and height of every chart, in pixels.
pub(crate) const SIZE: (u32, u32) = (900, 300);

/// A chart drawn: its id, what to look for, and the SVG.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// An id for the HTML element.
    pub id: String,
    /// What to look for, in a sentence or two.
    pub look_for: String,
    /// The SVG.
    pub svg: String,
}

/// Draws every chart over `duration_s` seconds, or says why one failed to draw.
pub fn draw(charts: &[Chart], duration_s: f64) -> Result<Vec<Drawn>> {
    charts
        .iter()
        .map(|c| {
            let svg = match &c.plot {
                Plot::Time(chart) => time_chart(chart, duration_s)?,
                Plot::Stacked(chart) => stacked_chart(chart, duration_s)?,
                Plot::States(chart) => state_chart(chart, duration_s)?,
            };
            Ok(Drawn {
                id: c.id.clone(),
                look_for: c.look_for.clone(),
                svg,
            })
        })
        .collect()
}

/// A lab's colour as plotters spells it.
pub(crate) fn rgb(c: LabColor) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

pub(crate) type Result<T> = std::result::Result<T, String>;

pub(crate) fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A white canvas of `size` pixels that draws into `svg`.
pub(crate) fn canvas(
    svg: &mut String,
    size: (u32, u32),
) -> Result<DrawingArea<SVGBackend<'_>, Shift>> {
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    Ok(root)
}

/// A chart on `root` titled `title`: `duration_s` seconds across, `y` up, with `y_area`
/// pixels for the y labels.
pub(crate) fn frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    y: std::ops::Range<f64>,
    duration_s: f64,
    y_area: u32,
) -> Result<ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>> {
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(y_area)
        .build_cartesian_2d(0.0..duration_s, y)
        .map_err(err)
}

/// Adds the legend and writes the SVG out.
pub(crate) fn finish<'a, 'b: 'a>(
    ctx: &mut ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    root: &DrawingArea<SVGBackend<'b>, Shift>,
) -> Result<()> {
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// A legend entry: a square of `color`.
pub(crate) fn swatch(color: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
}

/// Draws `chart` over `duration_s` seconds.
fn time_chart(chart: &TimeChart, duration_s: f64) -> Result<String> {
    let log = chart.scale == Scale::LogMs;
    let values = chart
        .lines
        .iter()
        .flat_map(|l| l.points.iter().filter_map(|p| p.1))
        .chain(chart.limit.as_ref().map(|l| l.0));
    let top = values.fold(0.0f64, f64::max);
    let (y0, y1) = if log {
        (-1.0, top.max(10.0).log10().ceil())
    } else {
        (0.0, (top * 1.15).max(1.0))
    };
    let y = |v: f64| if log { v.max(0.1).log10() } else { v };
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, SIZE)?;
        let mut ctx = frame(&root, &chart.title, y0..y1, duration_s, 64)?;
        let label_ms = |v: &f64| {
            let ms = 10f64.powf(*v);
            if ms >= 1000.0 {
                format!("{} s", ms / 1000.0)
            } else {
                format!("{ms} ms")
            }
        };
        let label_plain = |v: &f64| format!("{v}");
        let formatter: &dyn Fn(&f64) -> String = if log { &label_ms } else { &label_plain };
        ctx.configure_mesh()
            .x_desc("seconds since the start")
            .y_desc(chart.y_desc.as_str())
            .y_labels(if log { (y1 - y0) as usize + 1 } else { 6 })
            .y_label_formatter(formatter)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        for b in &chart.bands {
            let color = rgb(b.color);
            let (from, to) = visible(b, duration_s);
            ctx.draw_series(std::iter::once(Rectangle::new(
                [(from, y0), (to, y1)],
                color.mix(0.18).filled(),
            )))
            .map_err(err)?;
            if let Some(label) = b.label.as_ref().filter(|_| to - from > duration_s / 40.0) {
                ctx.draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (from + duration_s / 200.0, y1),
                    ("sans-serif", 13).into_font().color(&RGBColor(90, 90, 90)),
                )))
                .map_err(err)?;
            }
        }
        if let Some((value, label)) = &chart.limit {
            let style = ShapeStyle::from(&BLACK.mix(0.6)).stroke_width(1);
            ctx.draw_series(DashedLineSeries::new(
                vec![(0.0, y(*value)), (duration_s, y(*value))],
                6,
                4,
                style,
            ))
            .map_err(err)?
            .label(label.clone())
            .legend(move |(x, yy)| PathElement::new(vec![(x, yy), (x + 20, yy)], style));
        }
        for line in &chart.lines {
            let style = ShapeStyle::from(&rgb(line.color)).stroke_width(2);
            let mut first = true;
            for segment in segments(&line.points) {
                let points: Vec<(f64, f64)> = segment.iter().map(|&(t, v)| (t, y(v))).collect();
                let drawn = if line.dashed {
                    ctx.draw_series(DashedLineSeries::new(points, 7, 4, style))
                        .map_err(err)?
                } else if points.len() == 1 {
                    ctx.draw_series(points.iter().map(|&p| Circle::new(p, 2, style.filled())))
                        .map_err(err)?
                } else {
                    ctx.draw_series(LineSeries::new(points, style))
                        .map_err(err)?
                };
                if first {
                    let dashed = line.dashed;
                    drawn.label(line.label.clone()).legend(move |(x, yy)| {
                        let gap = if dashed { 6 } else { 0 };
                        EmptyElement::at((x, yy))
                            + PathElement::new(vec![(0, 0), (7, 0)], style)
                            + PathElement::new(vec![(7 + gap, 0), (20, 0)], style)
                    });
                    first = false;
                }
            }
        }
        finish(&mut ctx, &root)?;
    }
    Ok(svg)
}

/// A span's start and end in seconds, at least a 300th of the chart wide so that a trial
/// call's few milliseconds of HALF_OPEN can be seen.
fn visible(band: &Band, duration_s: f64) -> (f64, f64) {
    (band.from_s, band.to_s.max(band.from_s + duration_s / 300.0))
}

/// Runs of consecutive points that have values.
fn segments(points: &[(f64, Option<f64>)]) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![Vec::new()];
    for &(t, v) in points {
        match v {
            Some(v) => out.last_mut().map(|s| s.push((t, v))).unwrap_or_default(),
            None if out.last().is_some_and(|s| !s.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Stacked areas over time: layers bottom first, on shaded bands.
fn stacked_chart(chart: &StackedChart, duration_s: f64) -> Result<String> {
    let StackedChart {
        title,
        y_desc,
        layers,
        bands,
    } = chart;
    let n = layers.first().map_or(0, |l| l.values.len());
    let mut tops: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut running = vec![0.0; n];
    for values in layers.iter().map(|l| &l.values) {
        for (i, (_, v)) in values.iter().enumerate().take(n) {
            running[i] += v;
        }
        tops.push(
            values
                .iter()
                .zip(&running)
                .map(|(&(t, _), &top)| (t, top))
                .collect(),
        );
    }
    // Room above the areas for the legend.
    let high = running.iter().copied().fold(0.0f64, f64::max).max(1.0) * 1.9;
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, SIZE)?;
        let mut ctx = frame(&root, title, 0.0..high, duration_s, 64)?;
        ctx.configure_mesh()
            .x_desc("seconds since the start")
            .y_desc(y_desc.as_str())
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        for b in bands {
            let (from, to) = visible(b, duration_s);
            ctx.draw_series(std::iter::once(Rectangle::new(
                [(from, 0.0), (to, high)],
                rgb(b.color).mix(0.12).filled(),
            )))
            .map_err(err)?;
        }
        // Top layer first: each lower layer is drawn over the ones above it.
        for (layer, top) in layers.iter().zip(&tops).rev() {
            if layer.values.iter().all(|p| p.1 <= 0.0) {
                continue;
            }
            let color = rgb(layer.color);
            ctx.draw_series(AreaSeries::new(top.clone(), 0.0, color.mix(0.85).filled()))
                .map_err(err)?
                .label(layer.label.clone())
                .legend(swatch(color));
        }
        finish(&mut ctx, &root)?;
    }
    Ok(svg)
}

/// One row of coloured bands per name: a state over time.
fn state_chart(chart: &StateChart, duration_s: f64) -> Result<String> {
    let (title, rows) = (&chart.title, &chart.rows);
    let n = rows.len().max(1) as f64;
    let mut svg = String::new();
    {
        let height = 170 + 40 * rows.len() as u32;
        let root = canvas(&mut svg, (SIZE.0, height))?;
        // Room above the rows for the legend.
        let mut ctx = frame(&root, title, 0.0..n + 1.5, duration_s, 110)?;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let row_name = move |v: &f64| {
            let i = v.floor() as usize;
            let centre = (v - v.floor() - 0.5).abs() < 0.01;
            match names.get(i) {
                Some(name) if centre => name.clone(),
                _ => String::new(),
            }
        };
        ctx.configure_mesh()
            .x_desc("seconds since the start")
            .disable_y_mesh()
            .y_labels(2 * rows.len() + 4)
            .y_label_formatter(&row_name)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        let mut seen: Vec<String> = Vec::new();
        for (i, (_, spans)) in rows.iter().enumerate() {
            let (lo, hi) = (i as f64 + 0.15, i as f64 + 0.85);
            for s in spans {
                let color = rgb(s.color);
                let label = s.label.clone().unwrap_or_default();
                let drawn = ctx
                    .draw_series(std::iter::once(Rectangle::new(
                        [
                            (visible(s, duration_s).0, lo),
                            (visible(s, duration_s).1, hi),
                        ],
                        color.filled(),
                    )))
                    .map_err(err)?;
                if !seen.contains(&label) {
                    seen.push(label.clone());
                    drawn.label(label).legend(swatch(color));
                }
            }
        }
        finish(&mut ctx, &root)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_lab::plot::Line;

    #[test]
    fn gaps_split_lines() {
        let pts = [
            (0.0, Some(1.0)),
            (1.0, None),
            (2.0, Some(2.0)),
            (3.0, Some(3.0)),
        ];
        assert_eq!(
            segments(&pts),
            vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]
        );
    }

    #[test]
    fn a_chart_is_one_svg_element() {
        let chart = TimeChart {
            title: "t".into(),
            y_desc: "ms".into(),
            scale: Scale::LogMs,
            bands: vec![Band {
                from_s: 1.0,
                to_s: 2.0,
                label: Some("slow".into()),
                color: LabColor(255, 205, 60),
            }],
            lines: vec![Line {
                label: "a".into(),
                color: LabColor(27, 140, 100),
                dashed: false,
                points: vec![(0.0, Some(5.0)), (1.5, Some(2000.0))],
            }],
            limit: Some((3.0, "limit".into())),
        };
        let svg = time_chart(&chart, 3.0).unwrap();
        assert!(svg.trim_start().starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("polyline") || svg.contains("path"));
    }
}
