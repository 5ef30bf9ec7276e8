//! # horizon-bench
//!
//! `horizondb bench`: the GPCD paper's Section 4 experiments (Table 1, one parameter at a
//! time), a scale sweep and a cell-scale sweep, measured for the grid, the R-tree baseline
//! and (up to 20k objects) brute force. Every point checks that the algorithms agree
//! exactly. Results: a Markdown table, a CSV file and SVG plots like the paper's Figures 5–8.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod plot;
mod report;
mod run;
mod sweep;

use std::path::Path;

pub use run::{BenchError, Measurement, RunOptions, run};
pub use sweep::{Plan, Point, SWEEP_NAMES, Sweep, sweeps};

/// What [`bench`] produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every measurement.
    pub measurements: Vec<Measurement>,
    /// The Markdown report.
    pub markdown: String,
    /// Files written.
    pub files: Vec<String>,
}

/// Runs the plan and writes `results.md`, `results.csv` and the SVG plots into `out`.
pub fn bench(plan: Plan, opts: RunOptions, out: &Path) -> Result<Outcome, BenchError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| BenchError::Io { path, source }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let sweeps = sweeps(&plan);
    if sweeps.is_empty() {
        return Err(BenchError::NoSweep(SWEEP_NAMES.join(", ")));
    }
    let measurements = run(&sweeps, opts)?;
    let markdown = report::markdown(&measurements, opts.runs);
    let mut files = Vec::new();
    for (name, text) in [
        ("results.md", &markdown),
        ("results.csv", &report::csv(&measurements)),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(io(&path))?;
        files.push(path.display().to_string());
    }
    let log_x = |name: &str| sweeps.iter().any(|s| s.name == name && s.log_x);
    files.extend(plot::all(&measurements, out, &log_x)?);
    Ok(Outcome {
        measurements,
        markdown,
        files,
    })
}
