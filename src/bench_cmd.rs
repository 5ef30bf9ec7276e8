//! `horizondb bench`: the GPCD paper's experiments on this machine.

use std::path::PathBuf;

use clap::Args;
use horizon_bench::{Plan, RunOptions, SWEEP_NAMES, bench};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A reduced sweep that finishes in well under a minute (a smoke test).
    #[arg(long)]
    quick: bool,
    /// Add n = 10,000,000 to the scale sweep (several GB of memory).
    #[arg(long)]
    ten_million: bool,
    /// Runs per algorithm and point; the median is reported [default: 5, or 1 with --quick].
    #[arg(long)]
    runs: Option<usize>,
    /// Run brute force only up to this many objects.
    #[arg(long, default_value_t = 20_000)]
    brute_limit: usize,
    /// Run only these sweeps (comma-separated): horizon, vmax, amax, n, distribution,
    /// motion, scale, cell-scale, cell-scale-short-h.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Where results.md, results.csv and the SVG plots go.
    #[arg(long, default_value = "bench-results")]
    out: PathBuf,
}

pub fn run(args: BenchArgs) -> Result<(), String> {
    if let Some(bad) = args
        .only
        .iter()
        .find(|o| !SWEEP_NAMES.contains(&o.as_str()))
    {
        return Err(format!(
            "--only: no sweep `{bad}`; the sweeps are: {}",
            SWEEP_NAMES.join(", ")
        ));
    }
    let runs = args.runs.unwrap_or(if args.quick { 1 } else { 5 });
    if runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let outcome = bench(
        Plan {
            quick: args.quick,
            ten_million: args.ten_million,
            only: args.only,
        },
        RunOptions {
            runs,
            brute_limit: args.brute_limit,
        },
        &args.out,
    )
    .map_err(|e| e.to_string())?;
    print!("{}", outcome.markdown);
    eprintln!("wrote {}", outcome.files.join(", "));
    Ok(())
}
