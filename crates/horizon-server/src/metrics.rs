//! Prometheus text metrics: counters and latency histograms, lock-free.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use horizon_store::StoreStats;

/// Latency bucket bounds, seconds.
const BOUNDS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// A fixed-bucket histogram.
#[derive(Default)]
pub struct Histogram {
    buckets: [AtomicU64; BOUNDS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        for (b, bound) in self.buckets.iter().zip(BOUNDS) {
            if s <= bound {
                b.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add(d.as_micros() as u64, Ordering::Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        for (b, bound) in self.buckets.iter().zip(BOUNDS) {
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}le=\"{bound}\"}} {}",
                b.load(Ordering::Relaxed)
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}le=\"+Inf\"}} {count}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let plain = labels.trim_end_matches(',');
        let _ = writeln!(out, "{name}_sum{{{plain}}} {sum}");
        let _ = writeln!(out, "{name}_count{{{plain}}} {count}");
    }
}

/// Everything `/metrics` reports besides the store's own numbers.
#[derive(Default)]
pub struct Metrics {
    pub ingest_requests: AtomicU64,
    pub ingest_states: AtomicU64,
    pub ingest_rejected: AtomicU64,
    pub ingest_latency: Histogram,
    pub query_requests: AtomicU64,
    pub query_latency: Histogram,
}

impl Metrics {
    pub fn render(&self, store: StoreStats) -> String {
        let mut out = String::new();
        let mut gauge = |name: &str, help: &str, kind: &str, v: f64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        };
        gauge(
            "horizondb_objects",
            "Objects stored.",
            "gauge",
            store.objects as f64,
        );
        gauge(
            "horizondb_log_bytes",
            "Bytes of write-ahead log on disk.",
            "gauge",
            store.log_bytes as f64,
        );
        gauge(
            "horizondb_snapshots_written_total",
            "Snapshots written since start.",
            "counter",
            store.snapshots_written as f64,
        );
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64;
        gauge(
            "horizondb_ingest_requests_total",
            "Accepted write requests.",
            "counter",
            load(&self.ingest_requests),
        );
        gauge(
            "horizondb_ingest_states_total",
            "States written.",
            "counter",
            load(&self.ingest_states),
        );
        gauge(
            "horizondb_ingest_rejected_total",
            "Write requests rejected as invalid.",
            "counter",
            load(&self.ingest_rejected),
        );
        gauge(
            "horizondb_query_requests_total",
            "Collision and window queries answered.",
            "counter",
            load(&self.query_requests),
        );
        let _ = writeln!(
            out,
            "# HELP horizondb_request_seconds Request latency.\n# TYPE horizondb_request_seconds histogram"
        );
        self.ingest_latency
            .render(&mut out, "horizondb_request_seconds", "kind=\"ingest\",");
        self.query_latency
            .render(&mut out, "horizondb_request_seconds", "kind=\"query\",");
        out
    }
}
