//! SVG plots in the style of the GPCD paper's Figures 5–8.

use std::path::Path;

use horizon_core::Algorithm;
use plotters::prelude::*;

use crate::run::{BenchError, Measurement};

const SIZE: (u32, u32) = (720, 440);

fn color(a: Algorithm) -> RGBColor {
    match a {
        Algorithm::Grid => RGBColor(31, 119, 180),
        Algorithm::Rtree => RGBColor(214, 39, 40),
        Algorithm::Brute => RGBColor(127, 127, 127),
    }
}

/// Axis transform: plotted coordinate and label.
#[derive(Clone, Copy)]
enum Axis {
    Linear,
    Log,
}

impl Axis {
    fn to(self, v: f64) -> f64 {
        match self {
            Axis::Linear => v,
            Axis::Log => v.max(1e-12).log10(),
        }
    }
    fn label(self, v: f64) -> String {
        match self {
            Axis::Linear => trim(v),
            Axis::Log => si(10f64.powf(v)),
        }
    }
}

/// Two significant digits with an SI suffix: 0.0025, 16k, 1M.
fn si(x: f64) -> String {
    let digits = |v: f64| {
        let e = v.abs().log10().floor() as i32;
        let q = 10f64.powi(e - 1);
        trim((v / q).round() * q)
    };
    match x.abs() {
        a if a >= 1e6 => format!("{}M", digits(x / 1e6)),
        a if a >= 1e3 => format!("{}k", digits(x / 1e3)),
        a if a > 0.0 => digits(x),
        _ => "0".into(),
    }
}

/// The name at integer position `v` of a categorical axis; blank between positions.
fn category_label(names: &[String], v: f64) -> String {
    let k = v.round();
    if (v - k).abs() < 1e-6 && k >= 0.0 {
        names.get(k as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

struct Series {
    name: String,
    color: RGBColor,
    points: Vec<(f64, f64)>,
}

struct LinePlot<'a> {
    title: String,
    x_desc: &'a str,
    y_desc: &'a str,
    x_axis: Axis,
    y_axis: Axis,
    /// Names for categorical x (0, 1, 2...).
    categories: Option<Vec<String>>,
}

fn plot_err(path: &Path) -> impl Fn(String) -> BenchError + '_ {
    move |message| BenchError::Plot {
        path: path.display().to_string(),
        message,
    }
}

impl LinePlot<'_> {
    fn draw(&self, path: &Path, series: &[Series]) -> Result<(), BenchError> {
        let err = plot_err(path);
        let pts: Vec<(f64, f64)> = series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .collect();
        if pts.is_empty() {
            return Ok(());
        }
        let tx = |x: f64| self.x_axis.to(x);
        let ty = |y: f64| self.y_axis.to(y);
        let (mut x0, mut x1) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(tx(p.0)), b.max(tx(p.0)))
            });
        let pad = ((x1 - x0) * 0.05).max(0.25);
        x0 -= pad;
        x1 += pad;
        let (mut y0, mut y1) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(ty(p.1)), b.max(ty(p.1)))
            });
        match self.y_axis {
            Axis::Linear => {
                y0 = 0.0;
                y1 = if y1 > 0.0 { y1 * 1.15 } else { 1.0 };
            }
            Axis::Log => {
                y0 -= 0.2;
                y1 += 0.3;
            }
        }
        let root = SVGBackend::new(path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(e.to_string()))?;
        let x_fmt = |v: &f64| match &self.categories {
            Some(names) => category_label(names, *v),
            None => self.x_axis.label(*v),
        };
        let y_fmt = |v: &f64| self.y_axis.label(*v);
        let n_labels = self.categories.as_ref().map_or(8, |c| c.len() * 4 + 1);
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .x_labels(n_labels)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for s in series {
            let c = s.color;
            let p: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (tx(x), ty(y))).collect();
            chart
                .draw_series(LineSeries::new(p.clone(), c.stroke_width(2)))
                .map_err(|e| err(e.to_string()))?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            chart
                .draw_series(p.iter().map(|&q| Circle::new(q, 3, c.filled())))
                .map_err(|e| err(e.to_string()))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))
    }
}

/// For every sweep: `{sweep}-time.svg` and `{sweep}-pairs.svg`; plus prune-power bars.
/// Returns the files written.
pub fn all(
    ms: &[Measurement],
    dir: &Path,
    log_x: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>, BenchError> {
    let mut written = Vec::new();
    let mut sweeps: Vec<(&str, &str)> = Vec::new();
    for m in ms {
        if !sweeps.iter().any(|(s, _)| *s == m.sweep) {
            sweeps.push((m.sweep, m.parameter));
        }
    }
    for (sweep, parameter) in sweeps {
        let of: Vec<&Measurement> = ms.iter().filter(|m| m.sweep == sweep).collect();
        let categorical = of.iter().any(|m| m.label.parse::<f64>().is_err());
        let categories = categorical.then(|| {
            let mut names: Vec<(f64, String)> = Vec::new();
            for m in &of {
                if !names.iter().any(|(x, _)| *x == m.x) {
                    names.push((m.x, m.label.clone()));
                }
            }
            names.sort_by(|a, b| a.0.total_cmp(&b.0));
            names.into_iter().map(|(_, l)| l).collect()
        });
        let x_axis = if log_x(sweep) {
            Axis::Log
        } else {
            Axis::Linear
        };
        let series = |f: &dyn Fn(&Measurement) -> f64| -> Vec<Series> {
            Algorithm::ALL
                .iter()
                .filter_map(|&a| {
                    let points: Vec<(f64, f64)> = of
                        .iter()
                        .filter(|m| m.algorithm == a)
                        .map(|m| (m.x, f(m)))
                        .collect();
                    (!points.is_empty()).then(|| Series {
                        name: a.to_string(),
                        color: color(a),
                        points,
                    })
                })
                .collect()
        };
        let time = LinePlot {
            title: format!("Query time vs {parameter}"),
            x_desc: parameter,
            y_desc: "query seconds (median)",
            x_axis,
            y_axis: if x_axis_is_scale(sweep) {
                Axis::Log
            } else {
                Axis::Linear
            },
            categories: categories.clone(),
        };
        let path = dir.join(format!("{sweep}-time.svg"));
        time.draw(&path, &series(&|m| m.median()))?;
        written.push(path.display().to_string());
        let pairs = LinePlot {
            title: format!("Collision pairs vs {parameter}"),
            x_desc: parameter,
            y_desc: "pairs found",
            x_axis,
            y_axis: Axis::Linear,
            categories,
        };
        let path = dir.join(format!("{sweep}-pairs.svg"));
        // Every algorithm finds the same pairs: one line.
        let grid_only: Vec<Series> = series(&|m| m.pairs as f64).into_iter().take(1).collect();
        pairs.draw(&path, &grid_only)?;
        written.push(path.display().to_string());
    }
    let path = dir.join("prune-power.svg");
    prune_bars(ms, &path)?;
    written.push(path.display().to_string());
    Ok(written)
}

fn x_axis_is_scale(sweep: &str) -> bool {
    sweep == "scale"
}

/// GPCD Figure 8: prune power of the projection test and of the time-interval test (grid),
/// per horizon and per scene size.
fn prune_bars(ms: &[Measurement], path: &Path) -> Result<(), BenchError> {
    let err = plot_err(path);
    let items: Vec<(String, f64, f64)> = ms
        .iter()
        .filter(|m| m.algorithm == Algorithm::Grid && (m.sweep == "horizon" || m.sweep == "scale"))
        .map(|m| {
            let name = if m.sweep == "horizon" {
                format!("h={}", m.label)
            } else {
                format!("n={}", m.label)
            };
            (
                name,
                m.stats.prune_power.projection,
                m.stats.prune_power.time_interval,
            )
        })
        .collect();
    if items.is_empty() {
        return Ok(());
    }
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let n = items.len() as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption("Prune power (GPCD eq. 5), grid", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.6..n - 0.4, 0.0..110.0)
        .map_err(|e| err(e.to_string()))?;
    let names: Vec<String> = items.iter().map(|i| i.0.clone()).collect();
    let x_fmt = |v: &f64| category_label(&names, *v);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(items.len() * 4 + 1)
        .x_label_formatter(&x_fmt)
        .y_desc("% of pairs entering the stage removed")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let blue = RGBColor(31, 119, 180);
    let orange = RGBColor(255, 127, 14);
    chart
        .draw_series(items.iter().enumerate().map(|(i, it)| {
            let x = i as f64;
            Rectangle::new([(x - 0.38, 0.0), (x - 0.02, it.1)], blue.filled())
        }))
        .map_err(|e| err(e.to_string()))?
        .label("projection-overlap test")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], blue.filled()));
    chart
        .draw_series(items.iter().enumerate().map(|(i, it)| {
            let x = i as f64;
            Rectangle::new([(x + 0.02, 0.0), (x + 0.38, it.2)], orange.filled())
        }))
        .map_err(|e| err(e.to_string()))?
        .label("time-interval test")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], orange.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}
