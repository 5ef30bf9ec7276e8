//! `horizondb serve`: the database server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use horizon_server::{AppState, ServerConfig, app};
use horizon_store::{FsyncMode, Store, StoreConfig};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where the log and snapshots live (created if missing).
    #[arg(long, default_value = "./horizondb-data")]
    data_dir: PathBuf,
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
    let (store, rec) = Store::open(&args.data_dir, cfg).map_err(|e| e.to_string())?;
    tracing::info!(
        dir = %args.data_dir.display(),
        objects = rec.objects,
        records_replayed = rec.records_replayed,
        torn_bytes_dropped = rec.torn_bytes_dropped,
        seconds = rec.seconds,
        "store recovered"
    );
    let store = Arc::new(store);
    let state = AppState::new(store.clone());
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
