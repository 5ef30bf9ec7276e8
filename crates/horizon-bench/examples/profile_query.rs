//! Runs one grid query on an in-memory paper scene many times, for `perf record`:
//! `cargo run --release -p horizon-bench --example profile_query -- N RUNS C [grid|rtree]...`
//! (the algorithms alternate run by run, for side-by-side timings).

use horizon_core::{Algorithm, GridParams, ObjectState, QueryParams, collisions};
use horizon_datasets::PaperScene;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut arg = |d: f64| args.next().and_then(|a| a.parse().ok()).unwrap_or(d);
    let (n, runs, c) = (arg(1e6) as usize, arg(10.0) as usize, arg(2.0));
    let mut algorithms: Vec<Algorithm> = args
        .map(|a| a.parse().expect("grid, rtree or brute"))
        .collect();
    if algorithms.is_empty() {
        algorithms.push(Algorithm::Grid);
    }
    let states: Vec<ObjectState> = PaperScene {
        n,
        ..Default::default()
    }
    .generate()
    .iter()
    .map(|s| s.validate().expect("generated states are valid"))
    .collect();
    for _ in 0..runs {
        for &algorithm in &algorithms {
            let params = QueryParams::new(0.0, 3.0)
                .with_algorithm(algorithm)
                .with_grid(GridParams {
                    cell_scale: [c; 3],
                    ..Default::default()
                });
            let a = collisions(&states, &params).expect("valid query");
            let p = a.stats.phase_seconds;
            println!(
                "{algorithm} pairs {} candidates {} pruned {} {} prepare {:.4} index {:.4} join {:.4} total {:.4} bytes/object {}",
                a.pairs.len(),
                a.stats.candidate_pairs,
                a.stats.pruned_projection,
                a.stats.pruned_time_interval,
                p.prepare,
                p.index,
                p.join,
                a.stats.query_seconds,
                a.stats.working_bytes.unwrap_or(0) / n.max(1) as u64
            );
        }
    }
}
