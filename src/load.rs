//! `horizondb load`: a load generator for a running server. Posts a generated scene in
//! NDJSON batches over several connections, then times collision queries.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::Args;
use horizon_datasets::{PaperScene, write_ndjson};

use crate::client::Client;

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// The server.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    url: String,
    /// States to ingest (the GPCD paper scene).
    #[arg(long, default_value_t = 100_000)]
    n: usize,
    /// States per request.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Concurrent connections.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Scene seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Collision queries to time after ingest (0: none).
    #[arg(long, default_value_t = 5)]
    queries: usize,
    /// Horizon of those queries.
    #[arg(long, default_value_t = 3.0)]
    horizon: f64,
}

pub fn run(args: LoadArgs) -> Result<(), String> {
    if args.batch == 0 || args.concurrency == 0 {
        return Err("--batch and --concurrency must be > 0".into());
    }
    let scene = PaperScene {
        n: args.n,
        seed: args.seed,
        ..Default::default()
    }
    .generate();
    // Bodies are encoded before the clock starts: this measures the server.
    let bodies: Vec<Vec<u8>> = scene
        .chunks(args.batch)
        .map(|c| {
            let mut buf = Vec::new();
            write_ndjson(&mut buf, c).map(|()| buf)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let client = Client::new(&args.url);
    let next = AtomicUsize::new(0);
    let t0 = Instant::now();
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..args.concurrency)
            .map(|_| {
                s.spawn(|| -> Result<(), String> {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(body) = bodies.get(k) else {
                            return Ok(());
                        };
                        client.post("/v1/objects", "application/x-ndjson", body)?;
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .filter_map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err("worker panicked".into()))
                    .err()
            })
            .collect()
    });
    if let Some(f) = failures.first() {
        return Err(f.clone());
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "ingested {} states in {:.2} s: {:.0} states/s ({} per request, {} connections)",
        args.n,
        secs,
        args.n as f64 / secs,
        args.batch,
        args.concurrency
    );
    let mut times = Vec::new();
    for _ in 0..args.queries {
        let t = Instant::now();
        let v = client.get(&format!("/v1/collisions?horizon={}&limit=0", args.horizon))?;
        let wall = t.elapsed().as_secs_f64();
        times.push((
            wall,
            v["stats"]["query_seconds"].as_f64().unwrap_or(f64::NAN),
            v["total_pairs"].clone(),
            v["stats"]["objects"].clone(),
        ));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let Some(m) = times.get(times.len() / 2) {
        println!(
            "collision query over {} objects (h = {}): median {:.3} s end to end ({:.3} s in the engine), {} pairs; fastest {:.3} s, slowest {:.3} s",
            m.3,
            args.horizon,
            m.0,
            m.1,
            m.2,
            times[0].0,
            times[times.len() - 1].0
        );
    }
    Ok(())
}
