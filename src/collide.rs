//! `horizondb collide`: one query over a file of states.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use horizon_core::{Algorithm, Answer, GridParams, PairFilter, QueryParams, query_objects};

use crate::table;

// Negative numbers are values (a query time, or a bad horizon to reject), not flags.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct CollideArgs {
    /// NDJSON (one state per line) or a JSON array of states; `-` reads stdin.
    #[arg(long, short)]
    input: PathBuf,
    /// Horizon h in seconds: contacts in [T, T + h] are reported.
    #[arg(long)]
    horizon: f64,
    /// Query time T [default: the latest `t` in the file].
    #[arg(long)]
    at: Option<f64>,
    /// Safety margin: shapes closer than this count as in contact.
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// Broad phase: grid (GPCD), rtree (baseline) or brute (all pairs).
    #[arg(long, default_value = "grid")]
    algorithm: Algorithm,
    /// Grid cell size as a multiple of the mean swept-box length: one number or `cx,cy,cz`
    /// [default: 2, see `horizondb bench --only cell-scale`].
    #[arg(long, value_parser = parse_cell_scale)]
    cell_scale: Option<CellScale>,
    /// Ignore pairs in which both objects are slower than this (units per second).
    #[arg(long, default_value_t = 0.0)]
    min_speed: f64,
    /// Statuses (comma-separated) that count as slow, e.g. `moored,at_anchor`.
    #[arg(long, value_delimiter = ',')]
    exclude_status: Vec<String>,
    /// Leave out states older than this many seconds at the query time.
    #[arg(long)]
    max_age: Option<f64>,
    /// Report pairs within one group (`--same-group false` to ignore them).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    same_group: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// `{"at", "horizon", "margin", "algorithm", "pairs", "stats"}` on one line.
    Json,
    /// An aligned table for people.
    Table,
}

#[derive(Debug, Clone, Copy)]
struct CellScale([f64; 3]);

fn parse_cell_scale(s: &str) -> Result<CellScale, String> {
    let xs: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>().map_err(|e| format!("`{x}`: {e}")))
        .collect::<Result<_, _>>()?;
    let c = match xs.as_slice() {
        [c] => [*c; 3],
        [x, y, z] => [*x, *y, *z],
        _ => return Err("give one number or three (`cx,cy,cz`)".into()),
    };
    if c.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err("cell scales must be finite numbers > 0".into());
    }
    Ok(CellScale(c))
}

pub fn run(args: CollideArgs) -> Result<(), String> {
    let name = args.input.display().to_string();
    let mut text = String::new();
    if name == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("reading stdin: {e}"))?;
    } else {
        text = std::fs::read_to_string(&args.input).map_err(|e| format!("{name}: {e}"))?;
    }
    let loaded = horizon_datasets::parse_states(&text).map_err(|e| format!("{name}: {e}"))?;
    drop(text);
    if loaded.replaced > 0 {
        eprintln!(
            "note: {} states replaced by later states with the same id",
            loaded.replaced
        );
    }
    let states = loaded.states;
    let at = match args.at {
        Some(at) => at,
        None => states
            .iter()
            .map(|s| s.t())
            .reduce(f64::max)
            .ok_or_else(|| format!("{name}: no states, so --at has no default"))?,
    };
    let params = QueryParams::new(at, args.horizon)
        .with_margin(args.margin)
        .with_algorithm(args.algorithm)
        .with_grid(GridParams {
            cell_scale: args
                .cell_scale
                .map_or(GridParams::default().cell_scale, |c| c.0),
            ..GridParams::default()
        });
    let filter = PairFilter {
        min_speed: args.min_speed,
        passive_status: args.exclude_status,
        same_group: args.same_group,
        max_age: args.max_age,
    };
    let answer: Answer = query_objects(&states, &params, &filter).map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Json => serde_json::to_writer(&mut out, &answer)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        Format::Table => table::write(&mut out, &params, &answer),
    };
    match written.and_then(|()| out.flush()) {
        // The reader stopped early (`| head`): not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| format!("writing the answer: {e}")),
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn cell_scale_parsing() {
        assert_eq!(parse_cell_scale("2").unwrap().0, [2.0; 3]);
        assert_eq!(parse_cell_scale("1, 2,0.5").unwrap().0, [1.0, 2.0, 0.5]);
        assert!(parse_cell_scale("1,2").is_err());
        assert!(parse_cell_scale("0").is_err());
        assert!(parse_cell_scale("x").is_err());
    }
}
