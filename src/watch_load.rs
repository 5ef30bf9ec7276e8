//! `horizondb load-watch`: how fast does a standing watch tell its subscriber? Loads a server
//! with a scene, subscribes to `/v1/watch`, then streams updates at a steady rate. Each
//! request also carries a *probe*: two new objects set to collide; the latency is the time
//! from the request's acknowledgement to the arrival of the probe's `predicted` event.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use horizon_core::StateInput;
use horizon_datasets::{SplitMix64, write_ndjson};

use crate::client::Client;

#[derive(Debug, Args)]
pub struct LoadWatchArgs {
    /// The server.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    url: String,
    /// Live objects.
    #[arg(long, default_value_t = 100_000)]
    n: usize,
    /// Updates per second.
    #[arg(long, default_value_t = 10_000)]
    rate: usize,
    /// Requests per second (each carries rate / requests updates and one probe).
    #[arg(long, default_value_t = 100)]
    requests: usize,
    /// Seconds of updates.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// Horizon of the watch, seconds.
    #[arg(long, default_value_t = 30.0)]
    horizon: f64,
    /// Scene seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The scene: `n` discs in a 100 km square, drifting at up to 10 m/s, at time `t`.
fn object(rng: &mut SplitMix64, i: usize, t: f64) -> StateInput {
    let p = [rng.range(0.0, 100_000.0), rng.range(0.0, 100_000.0)];
    let v = [rng.range(-10.0, 10.0), rng.range(-10.0, 10.0)];
    StateInput::new(format!("o{i}"), t, &p, &v).with_radius(5.0)
}

/// Two new objects far from the scene, closing head-on: they touch 5 s after `t`.
fn probe(k: usize, t: f64) -> [StateInput; 2] {
    let y = 150_000.0 + 100.0 * k as f64;
    [
        StateInput::new(format!("probe{k:06}a"), t, &[0.0, y], &[10.0, 0.0]).with_radius(5.0),
        StateInput::new(format!("probe{k:06}b"), t, &[110.0, y], &[-10.0, 0.0]).with_radius(5.0),
    ]
}

fn ndjson(states: &[StateInput]) -> Vec<u8> {
    let mut buf = Vec::new();
    write_ndjson(&mut buf, states).expect("writing to memory");
    buf
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub fn run(args: LoadWatchArgs) -> Result<(), String> {
    if args.requests == 0 || args.rate < args.requests || args.n == 0 {
        return Err("--n, --requests > 0 and --rate >= --requests".into());
    }
    let client = Client::new(&args.url);
    let mut rng = SplitMix64::new(args.seed);
    let scene: Vec<StateInput> = (0..args.n).map(|i| object(&mut rng, i, 0.0)).collect();
    for chunk in scene.chunks(10_000) {
        client.post("/v1/objects", "application/x-ndjson", &ndjson(chunk))?;
    }
    eprintln!("loaded {} objects", args.n);

    // The subscriber: records when each probe's `predicted` arrives.
    let arrived: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let (synced_tx, synced_rx) = std::sync::mpsc::channel();
    {
        let url = format!(
            "{}/v1/watch?horizon={}&hold=0",
            args.url.trim_end_matches('/'),
            args.horizon
        );
        let arrived = arrived.clone();
        std::thread::spawn(move || -> Result<(), String> {
            let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
            let resp = agent.get(&url).call().map_err(|e| e.to_string())?;
            let mut name = String::new();
            for line in BufReader::new(resp.into_body().into_reader()).lines() {
                let line = line.map_err(|e| e.to_string())?;
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    let now = Instant::now();
                    if name == "synced" {
                        let _ = synced_tx.send(d.to_string());
                    } else if name == "predicted" && d.contains("\"probe") {
                        let v: serde_json::Value =
                            serde_json::from_str(d).map_err(|e| e.to_string())?;
                        if let Some(a) = v["a"].as_str() {
                            arrived
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .insert(a.to_string(), now);
                        }
                    }
                }
            }
            Ok(())
        });
    }
    let t0 = Instant::now();
    let synced = synced_rx
        .recv_timeout(Duration::from_secs(600))
        .map_err(|_| "the watch never synced".to_string())?;
    eprintln!(
        "watch synced in {:.2} s: {synced}",
        t0.elapsed().as_secs_f64()
    );

    let per_request = args.rate / args.requests;
    let tick = Duration::from_secs_f64(1.0 / args.requests as f64);
    let total = (args.seconds * args.requests as f64) as usize;
    let mut acked: Vec<(String, Instant, f64)> = Vec::with_capacity(total);
    let start = Instant::now();
    let mut ack_secs = Vec::with_capacity(total);
    for k in 0..total {
        if let Some(wait) = (tick * k as u32).checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
        // The clock follows real time: every report is "now".
        let t = 1.0 + start.elapsed().as_secs_f64();
        let mut batch: Vec<StateInput> = (0..per_request)
            .map(|_| {
                let i = rng.below(args.n as u64) as usize;
                object(&mut rng, i, t)
            })
            .collect();
        let [a, b] = probe(k, t);
        let id = a.id.clone();
        batch.extend([a, b]);
        let body = ndjson(&batch);
        let sent = Instant::now();
        client.post("/v1/objects", "application/x-ndjson", &body)?;
        let ack = Instant::now();
        ack_secs.push((ack - sent).as_secs_f64());
        acked.push((id, ack, t));
    }
    let wall = start.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_secs(3));
    let arrived = arrived.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut lat: Vec<f64> = Vec::new();
    let mut missing = 0;
    for (id, ack, _) in &acked {
        match arrived.get(id) {
            // An event may beat the acknowledgement home: that counts as 0.
            Some(at) => lat.push(at.saturating_duration_since(*ack).as_secs_f64() * 1e3),
            None => missing += 1,
        }
    }
    lat.sort_by(f64::total_cmp);
    ack_secs.sort_by(f64::total_cmp);
    let updates = total * (per_request + 2);
    println!(
        "{} live objects, {updates} updates in {total} requests over {wall:.1} s = {:.0} updates/s \
         (target {}); write acknowledgement p50 {:.1} ms, p99 {:.1} ms",
        args.n + 2 * total,
        updates as f64 / wall,
        args.rate,
        percentile(&ack_secs, 0.5) * 1e3,
        percentile(&ack_secs, 0.99) * 1e3,
    );
    println!(
        "acknowledged update -> `predicted` event: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} of {} probes arrived",
        percentile(&lat, 0.5),
        percentile(&lat, 0.9),
        percentile(&lat, 0.99),
        lat.last().copied().unwrap_or(f64::NAN),
        lat.len(),
        total,
    );
    if missing > 0 {
        return Err(format!("{missing} probe conflicts never arrived"));
    }
    Ok(())
}
