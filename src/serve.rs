//! `horizondb serve`: the database server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use horizon_core::Object;
use horizon_server::{AppState, ServerConfig, app};
use horizon_store::{FsyncMode, Store, StoreConfig};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where the log and snapshots live (created if missing) [default: ./horizondb-data, or
    /// a fresh temporary directory with --demo].
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Address to listen on. Loopback by default; use 0.0.0.0:7878 to serve the network.
    #[arg(long, default_value = "127.0.0.1:7878")]
    bind: SocketAddr,
    /// Forget objects not written for this many seconds (wall clock). Default: never.
    #[arg(long)]
    ttl: Option<f64>,
    /// When writes are acknowledged: always (own fsync each), batch (group commit), never
    /// (once the OS has them: survives a crash of the process, not of the machine).
    #[arg(long, default_value = "batch")]
    fsync: FsyncMode,
    /// Largest accepted request body, bytes.
    #[arg(long, default_value_t = 64 << 20)]
    max_body_bytes: usize,
    /// Rotate the log and write a snapshot when a log segment passes this many bytes.
    #[arg(long, default_value_t = 64 << 20)]
    snapshot_bytes: u64,
    /// Also play a bundled recording into the server, over and over, so the monitor page at
    /// http://ADDR/ shows live predictions: `harbor` is the NY Harbor AIS hour.
    #[arg(long, value_enum)]
    demo: Option<Demo>,
    /// Recorded seconds per wall-clock second in --demo.
    #[arg(long, default_value_t = 30.0)]
    demo_speed: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Demo {
    /// The NY Harbor AIS hour of 2020-06-30 (datasets/ais).
    Harbor,
}

/// The bundled recording, in the binary so `--demo` works from any directory.
const HARBOR: &str = include_str!("../datasets/ais/marinecadastre_nyharbor_20200630_1h.csv");

/// Plays the harbor hour into the store at `speed`×, shifting each pass by an hour so the
/// clock keeps moving forward.
fn play_demo(store: Arc<Store>, speed: f64) {
    let read = match horizon_datasets::feeds::read_csv(HARBOR, None) {
        Ok(r) => r,
        Err(e) => return tracing::error!(error = %e, "the demo recording does not read"),
    };
    let mut states = read.states;
    states.sort_by(|a, b| a.t.total_cmp(&b.t));
    let Some(t0) = states.first().map(|s| s.t) else {
        return;
    };
    let start = Instant::now();
    for pass in 0u32.. {
        let shift = 3600.0 * f64::from(pass);
        let mut next = 0;
        while next < states.len() {
            let due = (states[next].t - t0 + shift) / speed;
            if let Some(wait) = Duration::from_secs_f64(due).checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
            let now = t0 - shift + start.elapsed().as_secs_f64() * speed;
            let end = next + states[next..].partition_point(|s| s.t <= now.max(states[next].t));
            let batch: Vec<Object> = states[next..end]
                .iter()
                .filter_map(|s| {
                    let mut s = s.clone();
                    s.t += shift;
                    s.validate().ok().map(Object::from)
                })
                .collect();
            if let Err(e) = store.upsert(batch) {
                return tracing::error!(error = %e, "demo: the store refused a write");
            }
            next = end;
        }
        tracing::info!(
            pass,
            "demo: the harbor hour played; starting again an hour later"
        );
    }
}

pub fn run(args: ServeArgs) -> Result<(), String> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    if let Some(ttl) = args.ttl
        && !(ttl.is_finite() && ttl > 0.0)
    {
        return Err(format!("--ttl must be a number of seconds > 0, got {ttl}"));
    }
    let cfg = StoreConfig {
        fsync: args.fsync,
        ttl: args.ttl,
        snapshot_bytes: args.snapshot_bytes,
    };
    if !(args.demo_speed.is_finite() && args.demo_speed > 0.0) {
        return Err(format!(
            "--demo-speed must be a number > 0, got {}",
            args.demo_speed
        ));
    }
    let data_dir = match (&args.data_dir, args.demo) {
        (Some(d), _) => d.clone(),
        (None, Some(_)) => {
            std::env::temp_dir().join(format!("horizondb-demo-{}", std::process::id()))
        }
        (None, None) => PathBuf::from("./horizondb-data"),
    };
    let (store, rec) = Store::open(&data_dir, cfg).map_err(|e| e.to_string())?;
    tracing::info!(
        dir = %data_dir.display(),
        objects = rec.objects,
        records_replayed = rec.records_replayed,
        torn_bytes_dropped = rec.torn_bytes_dropped,
        seconds = rec.seconds,
        "store recovered"
    );
    let store = Arc::new(store);
    let state = AppState::new(store.clone())?;
    let hooks = state.hooks.clone();
    let router = app(
        state,
        ServerConfig {
            max_body_bytes: args.max_body_bytes,
        },
    );
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.bind))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        // The one line on stdout: scripts and tests read the address from it.
        println!("HorizonDB listening on http://{addr}");
        tracing::info!(%addr, "listening");
        hooks.resume();
        if let Some(Demo::Harbor) = args.demo {
            tracing::info!(
                speed = args.demo_speed,
                "demo: playing the NY Harbor AIS hour; open http://{addr}/ for the monitor"
            );
            let (store, speed) = (store.clone(), args.demo_speed);
            std::thread::spawn(move || play_demo(store, speed));
        }
        if args.ttl.is_some() {
            let store = store.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(1));
                loop {
                    tick.tick().await;
                    let s = store.clone();
                    if let Ok(n) = tokio::task::spawn_blocking(move || s.expire()).await
                        && n > 0
                    {
                        tracing::info!(expired = n, "TTL expiry");
                    }
                }
            });
        }
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown())
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!("shut down cleanly");
        Ok(())
    })
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
