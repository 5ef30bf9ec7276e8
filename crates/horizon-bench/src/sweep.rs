//! The sweeps: GPCD Table 1, one parameter at a time with the others at their defaults,
//! plus a scale sweep and a cell-scale sweep.

use horizon_datasets::{Distribution, Motion, PaperScene};

/// One measured configuration.
#[derive(Debug, Clone)]
pub struct Point {
    /// The x value, as plotted.
    pub x: f64,
    /// The x value as written in tables (a number or a name).
    pub label: String,
    /// The scene.
    pub scene: PaperScene,
    /// Horizon h.
    pub horizon: f64,
    /// Grid cell scale c_j (all axes).
    pub cell_scale: f64,
}

/// A parameter swept over several points.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Short name, used in file names: `horizon`, `vmax`...
    pub name: &'static str,
    /// What varies, for axis labels.
    pub parameter: &'static str,
    /// Plot x on a log scale.
    pub log_x: bool,
    /// The points.
    pub points: Vec<Point>,
}

/// Table 1 defaults: h = 3, vmax = 3, amax = 0.5, n = 2k, uniform, linear; c is ours (2).
const DEFAULT_H: f64 = 3.0;

fn point(x: f64, label: impl Into<String>, scene: PaperScene) -> Point {
    Point {
        x,
        label: label.into(),
        scene,
        horizon: DEFAULT_H,
        cell_scale: horizon_core::DEFAULT_CELL_SCALE,
    }
}

fn sweep(name: &'static str, parameter: &'static str, points: Vec<Point>) -> Sweep {
    Sweep {
        name,
        parameter,
        log_x: false,
        points,
    }
}

/// Which sweeps to run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// A reduced sweep that runs in well under a minute (CI smoke test).
    pub quick: bool,
    /// Add n = 10,000,000 to the scale sweep (needs several GB of memory).
    pub ten_million: bool,
    /// Run only the sweeps with these names (all when empty).
    pub only: Vec<String>,
}

/// Names of every sweep, in the order they run.
pub const SWEEP_NAMES: [&str; 9] = [
    "horizon",
    "vmax",
    "amax",
    "n",
    "distribution",
    "motion",
    "scale",
    "cell-scale",
    "cell-scale-short-h",
];

/// Every sweep of a plan.
pub fn sweeps(plan: &Plan) -> Vec<Sweep> {
    let mut all = every_sweep(plan);
    if !plan.only.is_empty() {
        all.retain(|s| plan.only.iter().any(|o| o == s.name));
    }
    all
}

fn every_sweep(plan: &Plan) -> Vec<Sweep> {
    let base = PaperScene::default();
    let pick = |full: &[f64], quick: &[f64]| -> Vec<f64> {
        if plan.quick {
            quick.to_vec()
        } else {
            full.to_vec()
        }
    };
    let mut out = Vec::new();
    out.push(sweep(
        "horizon",
        "horizon h (s)",
        pick(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 5.0])
            .into_iter()
            .map(|h| Point {
                horizon: h,
                ..point(h, format!("{h}"), base)
            })
            .collect(),
    ));
    if !plan.quick {
        out.push(sweep(
            "vmax",
            "maximum velocity (m/s)",
            [1.0, 2.0, 3.0, 4.0, 5.0]
                .into_iter()
                .map(|v| point(v, format!("{v}"), PaperScene { vmax: v, ..base }))
                .collect(),
        ));
        // Acceleration only acts with nonlinear motion.
        out.push(sweep(
            "amax",
            "maximum acceleration (m/s², nonlinear motion)",
            [0.0, 0.5, 1.0, 1.5, 2.0]
                .into_iter()
                .map(|a| {
                    let s = PaperScene {
                        amax: a,
                        motion: Motion::Nonlinear,
                        ..base
                    };
                    point(a, format!("{a}"), s)
                })
                .collect(),
        ));
        out.push(sweep(
            "n",
            "objects n",
            [1000, 2000, 3000, 4000, 5000]
                .into_iter()
                .map(|n| point(n as f64, format!("{n}"), PaperScene { n, ..base }))
                .collect(),
        ));
        out.push(sweep(
            "distribution",
            "distribution",
            [
                (Distribution::Uniform, "uniform"),
                (Distribution::Zipf, "zipf"),
                (Distribution::City, "city"),
            ]
            .into_iter()
            .enumerate()
            .map(|(k, (d, name))| {
                point(
                    k as f64,
                    name,
                    PaperScene {
                        distribution: d,
                        ..base
                    },
                )
            })
            .collect(),
        ));
        out.push(sweep(
            "motion",
            "motion",
            [(Motion::Linear, "linear"), (Motion::Nonlinear, "nonlinear")]
                .into_iter()
                .enumerate()
                .map(|(k, (m, name))| point(k as f64, name, PaperScene { motion: m, ..base }))
                .collect(),
        ));
    }
    let mut ns: Vec<usize> = if plan.quick {
        vec![10_000, 100_000]
    } else {
        vec![10_000, 100_000, 1_000_000]
    };
    if plan.ten_million {
        ns.push(10_000_000);
    }
    let mut scale = sweep(
        "scale",
        "objects n (same 10 km world)",
        ns.into_iter()
            .map(|n| point(n as f64, format!("{n}"), PaperScene { n, ..base }))
            .collect(),
    );
    scale.log_x = true;
    out.push(scale);
    // Cell size: the default c = 2 against finer and coarser grids, at the default horizon
    // and at a short one (the paper: small h with a fine grid hurts).
    let n = if plan.quick { 20_000 } else { 200_000 };
    for (name, h) in [("cell-scale", DEFAULT_H), ("cell-scale-short-h", 0.25)] {
        let mut s = sweep(
            name,
            if h == DEFAULT_H {
                "cell scale c (h = 3)"
            } else {
                "cell scale c (h = 0.25)"
            },
            pick(&[0.25, 0.5, 1.0, 2.0, 4.0], &[0.5, 1.0, 2.0])
                .into_iter()
                .map(|c| Point {
                    horizon: h,
                    cell_scale: c,
                    ..point(c, format!("{c}"), PaperScene { n, ..base })
                })
                .collect(),
        );
        s.log_x = true;
        out.push(s);
        if plan.quick {
            break;
        }
    }
    out
}
