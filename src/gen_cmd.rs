//! `horizondb gen`: write a GPCD paper scene as NDJSON.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use horizon_datasets::{Distribution, Motion, PaperScene, write_ndjson};

// Negative numbers are values (a query time, or a bad horizon to reject), not flags.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct GenArgs {
    /// Number of objects.
    #[arg(long, default_value_t = 2000)]
    n: usize,
    /// Maximum speed (m/s).
    #[arg(long, default_value_t = 3.0)]
    vmax: f64,
    /// Maximum acceleration (m/s²), with `--motion nonlinear`.
    #[arg(long, default_value_t = 0.5)]
    amax: f64,
    /// Constant velocity, or constant acceleration too.
    #[arg(long, value_enum, default_value_t = MotionArg::Linear)]
    motion: MotionArg,
    /// Placement: uniform, zipf (clusters of Zipf-distributed sizes) or city (streets).
    #[arg(long, value_enum, default_value_t = DistributionArg::Uniform)]
    distribution: DistributionArg,
    /// Seed: the same seed writes the same scene.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write here instead of stdout.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum MotionArg {
    Linear,
    Nonlinear,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DistributionArg {
    Uniform,
    Zipf,
    City,
}

pub fn run(args: GenArgs) -> Result<(), String> {
    if !(args.vmax.is_finite() && args.vmax >= 0.0) {
        return Err(format!(
            "--vmax must be a finite number >= 0, got {}",
            args.vmax
        ));
    }
    if !(args.amax.is_finite() && args.amax >= 0.0) {
        return Err(format!(
            "--amax must be a finite number >= 0, got {}",
            args.amax
        ));
    }
    let scene = PaperScene {
        n: args.n,
        vmax: args.vmax,
        amax: args.amax,
        motion: match args.motion {
            MotionArg::Linear => Motion::Linear,
            MotionArg::Nonlinear => Motion::Nonlinear,
        },
        distribution: match args.distribution {
            DistributionArg::Uniform => Distribution::Uniform,
            DistributionArg::Zipf => Distribution::Zipf,
            DistributionArg::City => Distribution::City,
        },
        seed: args.seed,
    };
    let (sink, name): (Box<dyn Write>, String) = match &args.output {
        Some(path) => (
            Box::new(std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?),
            path.display().to_string(),
        ),
        None => (Box::new(std::io::stdout().lock()), "stdout".into()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    // Chunks bound memory for very large scenes.
    const CHUNK: usize = 1 << 20;
    let mut start = 0;
    while start < scene.n {
        let end = (start + CHUNK).min(scene.n);
        write_ndjson(&mut out, &scene.generate_range(start..end))
            .map_err(|e| format!("writing {name}: {e}"))?;
        start = end;
    }
    out.flush().map_err(|e| format!("writing {name}: {e}"))?;
    if args.output.is_some() {
        eprintln!("wrote {} objects to {name}", scene.n);
    }
    Ok(())
}
