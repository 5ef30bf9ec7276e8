//! Webhooks: a standing watch whose events are POSTed to a URL, in order, with retries and
//! exponential backoff. Registrations live in `hooks.json` in the data directory (written
//! to a temporary file, fsynced, renamed), so they survive restarts.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use horizon_core::{PairFilter, WatchParams};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;

use crate::hub::{Event, Hub, WatchSpec};

/// Deliveries of one event: the first try and this many retries, backing off from
/// [`FIRST_BACKOFF`] and doubling.
const RETRIES: u32 = 5;
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

fn default_true() -> bool {
    true
}
fn default_hold() -> f64 {
    30.0
}

/// What a client registers: where to send events, and the watch's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    /// `http://host:port/path` that receives each event as a JSON POST.
    pub url: String,
    /// Horizon, seconds.
    pub horizon: f64,
    /// Safety margin.
    #[serde(default)]
    pub margin: f64,
    /// As in the collision queries.
    #[serde(default)]
    pub min_speed: f64,
    /// As in the collision queries.
    #[serde(default)]
    pub exclude_status: Vec<String>,
    /// As in the collision queries.
    #[serde(default)]
    pub max_age: Option<f64>,
    /// As in the collision queries.
    #[serde(default = "default_true")]
    pub same_group: bool,
    /// Seconds of the clock a cleared conflict stays shown.
    #[serde(default = "default_hold")]
    pub hold: f64,
}

impl HookSpec {
    /// The watch it needs, or why the spec is unusable.
    pub fn watch(&self) -> Result<WatchSpec, String> {
        if !self.url.starts_with("http://") {
            return Err(format!(
                "`url` must be an http:// URL, got `{}` (put a TLS relay in front for https)",
                self.url
            ));
        }
        if !(self.hold.is_finite() && self.hold >= 0.0) {
            return Err(format!("`hold` must be a number >= 0, got {}", self.hold));
        }
        let mut params = WatchParams::new(self.horizon, self.margin);
        params.filter = PairFilter {
            min_speed: self.min_speed,
            passive_status: self.exclude_status.clone(),
            same_group: self.same_group,
            max_age: self.max_age,
        };
        params.validate().map_err(|e| e.to_string())?;
        Ok(WatchSpec {
            params,
            hold: self.hold,
        })
    }
}

/// How deliveries went.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Delivery {
    /// Events delivered (2xx answer).
    pub delivered: u64,
    /// Events given up on after every retry.
    pub failed: u64,
    /// The last failure, if any.
    pub last_error: Option<String>,
}

/// A registered hook as `GET /v1/hooks` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct HookView {
    /// Its id.
    pub id: String,
    /// What it watches and where it sends.
    #[serde(flatten)]
    pub spec: HookSpec,
    /// How deliveries went since the server started.
    pub delivery: Delivery,
}

struct Running {
    spec: HookSpec,
    delivery: Arc<Mutex<Delivery>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// The registered hooks.
#[derive(Clone)]
pub struct Hooks {
    path: PathBuf,
    hub: Hub,
    hooks: Arc<Mutex<BTreeMap<String, Running>>>,
}

impl Hooks {
    /// Reads the registrations in `dir/hooks.json` (none if the file is absent). Deliveries
    /// start with [`Hooks::resume`], inside the runtime.
    pub fn load(dir: &std::path::Path, hub: Hub) -> Result<Hooks, String> {
        let path = dir.join("hooks.json");
        let saved: BTreeMap<String, HookSpec> = match std::fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let hooks = saved
            .into_iter()
            .map(|(id, spec)| {
                (
                    id,
                    Running {
                        spec,
                        delivery: Arc::default(),
                        task: None,
                    },
                )
            })
            .collect();
        Ok(Hooks {
            path,
            hub,
            hooks: Arc::new(Mutex::new(hooks)),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Running>> {
        self.hooks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts delivering for every loaded hook that is not running yet.
    pub fn resume(&self) {
        let mut hooks = self.lock();
        for (id, r) in hooks.iter_mut() {
            if r.task.is_none() {
                r.task = self.spawn(id.clone(), &r.spec, r.delivery.clone());
            }
        }
    }

    fn spawn(
        &self,
        id: String,
        spec: &HookSpec,
        delivery: Arc<Mutex<Delivery>>,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let watch = spec.watch().ok()?;
        let (hub, url) = (self.hub.clone(), spec.url.clone());
        Some(tokio::spawn(deliver(id, hub, watch, url, delivery)))
    }

    fn save(&self, hooks: &BTreeMap<String, Running>) -> Result<(), String> {
        let specs: BTreeMap<&String, &HookSpec> = hooks.iter().map(|(k, r)| (k, &r.spec)).collect();
        let bytes = serde_json::to_vec_pretty(&specs).map_err(|e| e.to_string())?;
        let tmp = self.path.with_extension("json.tmp");
        let io = |e: std::io::Error| format!("{}: {e}", tmp.display());
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp).map_err(io)?;
            f.write_all(&bytes).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, &self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
        if let Some(dir) = self.path.parent()
            && let Ok(d) = std::fs::File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Registers a hook, durably, and starts delivering to it.
    pub fn add(&self, spec: HookSpec) -> Result<HookView, String> {
        spec.watch()?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut hooks = self.lock();
        let id = format!("h{nanos:x}");
        let delivery: Arc<Mutex<Delivery>> = Arc::default();
        hooks.insert(
            id.clone(),
            Running {
                spec: spec.clone(),
                delivery: delivery.clone(),
                task: None,
            },
        );
        if let Err(e) = self.save(&hooks) {
            hooks.remove(&id);
            return Err(e);
        }
        let task = self.spawn(id.clone(), &spec, delivery);
        if let Some(r) = hooks.get_mut(&id) {
            r.task = task;
        }
        Ok(HookView {
            id,
            spec,
            delivery: Delivery::default(),
        })
    }

    /// Every hook.
    pub fn list(&self) -> Vec<HookView> {
        self.lock()
            .iter()
            .map(|(id, r)| HookView {
                id: id.clone(),
                spec: r.spec.clone(),
                delivery: r.delivery.lock().map(|d| d.clone()).unwrap_or_default(),
            })
            .collect()
    }

    /// Unregisters a hook; `Ok(false)` if there is none with this id.
    pub fn remove(&self, id: &str) -> Result<bool, String> {
        let mut hooks = self.lock();
        let Some(r) = hooks.remove(id) else {
            return Ok(false);
        };
        if let Err(e) = self.save(&hooks) {
            hooks.insert(id.to_string(), r);
            return Err(e);
        }
        if let Some(t) = r.task {
            t.abort();
        }
        Ok(true)
    }
}

/// Subscribes and POSTs every event, in order; resubscribes (getting the current set again)
/// if it fell too far behind.
async fn deliver(
    id: String,
    hub: Hub,
    watch: WatchSpec,
    url: String,
    delivery: Arc<Mutex<Delivery>>,
) {
    loop {
        let sub = match hub.subscribe(watch.clone()).await {
            Ok(s) => s,
            Err(e) => return tracing::error!(hook = %id, error = %e, "webhook stopped"),
        };
        for e in &sub.initial {
            if e.kind != "synced" {
                post(&id, &url, e, &delivery).await;
            }
        }
        let mut rx = sub.changes;
        loop {
            match rx.recv().await {
                Ok(e) => post(&id, &url, &e, &delivery).await,
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(hook = %id, behind = n, "webhook fell behind; resubscribing");
                    break;
                }
                Err(RecvError::Closed) => return,
            }
        }
    }
}

async fn post(id: &str, url: &str, e: &Event, delivery: &Mutex<Delivery>) {
    let body = format!("{{\"event\":\"{}\",\"data\":{}}}", e.kind, e.data);
    let mut backoff = FIRST_BACKOFF;
    for attempt in 0..=RETRIES {
        let (url2, body2) = (url.to_string(), body.clone());
        let sent = tokio::task::spawn_blocking(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(10)))
                .build()
                .into();
            agent
                .post(&url2)
                .header("Content-Type", "application/json")
                .send(body2.as_bytes())
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    let s = r.status();
                    if s.is_success() {
                        Ok(())
                    } else {
                        Err(format!("HTTP {s}"))
                    }
                })
        })
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
        let done = {
            let mut d = delivery.lock().unwrap_or_else(|p| p.into_inner());
            match sent {
                Ok(()) => {
                    d.delivered += 1;
                    true
                }
                Err(err) if attempt == RETRIES => {
                    tracing::warn!(hook = %id, error = %err, "webhook: giving up on an event");
                    d.failed += 1;
                    d.last_error = Some(err);
                    true
                }
                Err(err) => {
                    d.last_error = Some(err);
                    false
                }
            }
        };
        if done {
            return;
        }
        tokio::time::sleep(backoff).await;
        backoff *= 2;
    }
}
