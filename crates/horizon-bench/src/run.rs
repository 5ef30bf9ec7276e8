//! Running the sweeps: every algorithm on every point, medians, and the equality check.

use horizon_core::{
    Algorithm, CollisionPair, GridParams, ObjectState, QueryError, QueryParams, QueryStats,
    collisions,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::sweep::Sweep;

/// What a benchmark run can fail with.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Two algorithms disagreed: the one thing that must never happen.
    #[error("{sweep} = {label}: {algorithm} differs from {reference}: {detail}")]
    Mismatch {
        /// The sweep.
        sweep: String,
        /// The point.
        label: String,
        /// The algorithm that differed.
        algorithm: Algorithm,
        /// The algorithm it was compared with.
        reference: Algorithm,
        /// The first difference.
        detail: String,
    },
    /// The engine refused the query.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// `--only` selected nothing.
    #[error("no sweep selected; the sweeps are: {0}")]
    NoSweep(String),
    /// A generated state was invalid (a generator bug).
    #[error("generated state is invalid: {0}")]
    Scene(String),
    /// Writing results failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// Drawing a plot failed.
    #[error("plot {path}: {message}")]
    Plot {
        /// The file.
        path: String,
        /// The error.
        message: String,
    },
}

/// One algorithm on one point.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Sweep name.
    pub sweep: &'static str,
    /// What the sweep varies.
    pub parameter: &'static str,
    /// Plotted x.
    pub x: f64,
    /// Tabled x.
    pub label: String,
    /// Objects.
    pub n: usize,
    /// Horizon.
    pub horizon: f64,
    /// Cell scale.
    pub cell_scale: f64,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Query seconds of each run.
    pub seconds: Vec<f64>,
    /// Pairs found.
    pub pairs: usize,
    /// Statistics of the last run.
    pub stats: QueryStats,
    /// Largest growth of the process's resident memory during one run, in bytes (Linux;
    /// `None` elsewhere). Buffers over 32 MB are returned to the OS when freed, so this is
    /// close to what the query itself allocates.
    pub peak_extra_bytes: Option<u64>,
}

impl Measurement {
    /// Median query time.
    pub fn median(&self) -> f64 {
        let mut s = self.seconds.clone();
        s.sort_by(f64::total_cmp);
        let m = s.len() / 2;
        if s.len() % 2 == 1 {
            s[m]
        } else {
            0.5 * (s[m - 1] + s[m])
        }
    }
}

/// How to run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Runs per algorithm and point; the median is reported.
    pub runs: usize,
    /// Brute force only up to this many objects (it is O(n²)).
    pub brute_limit: usize,
}

/// Runs every point of every sweep. Stops at the first disagreement between algorithms.
pub fn run(sweeps: &[Sweep], opts: RunOptions) -> Result<Vec<Measurement>, BenchError> {
    let total: usize = sweeps.iter().map(|s| s.points.len()).sum();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} points, {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut out = Vec::new();
    for sweep in sweeps {
        for p in &sweep.points {
            bar.set_message(format!("{} = {} (n = {})", sweep.name, p.label, p.scene.n));
            let states: Vec<ObjectState> = p
                .scene
                .generate()
                .iter()
                .map(|s| s.validate().map_err(|e| BenchError::Scene(e.to_string())))
                .collect::<Result<_, _>>()?;
            let mut algorithms = vec![Algorithm::Grid, Algorithm::Rtree];
            if p.scene.n <= opts.brute_limit {
                algorithms.push(Algorithm::Brute);
            }
            let mut reference: Option<(Algorithm, Vec<CollisionPair>)> = None;
            for algorithm in algorithms {
                let params = QueryParams::new(0.0, p.horizon)
                    .with_algorithm(algorithm)
                    .with_grid(GridParams {
                        cell_scale: [p.cell_scale; 3],
                        ..GridParams::default()
                    });
                let mut seconds = Vec::with_capacity(opts.runs);
                let mut last = None;
                let mut peak: Option<u64> = None;
                for _ in 0..opts.runs.max(1) {
                    let before = memory::reset_peak();
                    let a = collisions(&states, &params)?;
                    if let (Some(b), Some(hwm)) = (before, memory::peak()) {
                        peak = Some(peak.unwrap_or(0).max(hwm.saturating_sub(b)));
                    }
                    seconds.push(a.stats.query_seconds);
                    drop(last.replace(a));
                }
                let answer = last.expect("at least one run");
                match &reference {
                    Some((r, pairs)) if *pairs != answer.pairs => {
                        return Err(BenchError::Mismatch {
                            sweep: sweep.name.into(),
                            label: p.label.clone(),
                            algorithm,
                            reference: *r,
                            detail: first_difference(pairs, &answer.pairs),
                        });
                    }
                    Some(_) => {}
                    None => reference = Some((algorithm, answer.pairs.clone())),
                }
                out.push(Measurement {
                    sweep: sweep.name,
                    parameter: sweep.parameter,
                    x: p.x,
                    label: p.label.clone(),
                    n: p.scene.n,
                    horizon: p.horizon,
                    cell_scale: p.cell_scale,
                    algorithm,
                    seconds,
                    pairs: answer.pairs.len(),
                    stats: answer.stats,
                    peak_extra_bytes: peak,
                });
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(out)
}

fn first_difference(a: &[CollisionPair], b: &[CollisionPair]) -> String {
    if a.len() != b.len() {
        return format!("{} pairs against {}", b.len(), a.len());
    }
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .map_or_else(String::new, |(x, y)| format!("{y:?} where expected {x:?}"))
}

/// Resident memory from `/proc/self/status` (Linux).
mod memory {
    fn status(field: &str) -> Option<u64> {
        let text = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = text.lines().find(|l| l.starts_with(field))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// Resets the peak-RSS mark and returns the current RSS.
    pub fn reset_peak() -> Option<u64> {
        std::fs::write("/proc/self/clear_refs", "5").ok()?;
        status("VmRSS:")
    }

    /// Peak RSS since the last reset.
    pub fn peak() -> Option<u64> {
        status("VmHWM:")
    }
}
