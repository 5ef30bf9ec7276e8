//! Standing watches behind `GET /v1/watch`: one engine [`Watch`] per distinct set of
//! parameters, shared by its subscribers. A thread of its own applies the store's writes to
//! every watch in the order the store applied them, debounces the changes, and fans the
//! events out through bounded broadcast channels — a client that falls behind loses its
//! subscription, never the server its memory.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Weak};

use horizon_core::{Change, Debouncer, Watch, WatchParams};
use horizon_store::{Applied, Store};
use serde_json::json;
use tokio::sync::{broadcast, oneshot};

/// Events a subscriber may fall behind by before it is dropped.
pub const BACKLOG: usize = 4096;

/// What a client asked to watch.
#[derive(Debug, Clone)]
pub struct WatchSpec {
    /// Horizon, margin and alarm rules.
    pub params: WatchParams,
    /// Seconds of the clock a cleared conflict stays shown, in case it comes back.
    pub hold: f64,
}

impl WatchSpec {
    /// Subscribers with equal specs share one watch.
    fn key(&self) -> String {
        let p = &self.params;
        let f = &p.filter;
        format!(
            "{}|{}|{}|{:?}|{}|{:?}|{}",
            p.horizon, p.margin, f.min_speed, f.passive_status, f.same_group, f.max_age, self.hold
        )
    }
}

/// One server-sent event: its name and its JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `predicted`, `updated`, `cleared`, `passed`, `synced` or `dropped`.
    pub kind: &'static str,
    /// JSON.
    pub data: String,
}

fn change_event(c: &Change, clock: Option<f64>) -> Arc<Event> {
    let mut v = serde_json::to_value(c.pair()).unwrap_or_default();
    v["clock"] = json!(clock);
    Arc::new(Event {
        kind: c.kind(),
        data: v.to_string(),
    })
}

/// A new subscriber's start: the conflicts shown now, then the stream of changes.
pub struct Subscription {
    /// `predicted` for every conflict shown now, then `synced`.
    pub initial: Vec<Arc<Event>>,
    /// The changes from then on.
    pub changes: broadcast::Receiver<Arc<Event>>,
}

enum Command {
    Applied(u64, Applied),
    Subscribe(WatchSpec, oneshot::Sender<Result<Subscription, String>>),
}

struct Entry {
    watch: Watch,
    debouncer: Debouncer,
    /// Writes the watch's seed already holds.
    seeded: u64,
    tx: broadcast::Sender<Arc<Event>>,
}

/// The handle the routes hold.
#[derive(Clone)]
pub struct Hub {
    tx: mpsc::Sender<Command>,
}

impl Hub {
    /// Starts the hub's thread and makes the store report its writes to it.
    pub fn start(store: &Arc<Store>) -> Hub {
        let (tx, rx) = mpsc::channel::<Command>();
        let feed = tx.clone();
        store.observe(Box::new(move |seq, applied| {
            let _ = feed.send(Command::Applied(seq, applied));
        }));
        let weak = Arc::downgrade(store);
        std::thread::Builder::new()
            .name("horizondb-watch".into())
            .spawn(move || run(rx, weak))
            .expect("spawn the watch thread");
        Hub { tx }
    }

    /// Joins (or starts) the watch for `spec`.
    pub async fn subscribe(&self, spec: WatchSpec) -> Result<Subscription, String> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Command::Subscribe(spec, reply))
            .map_err(|_| "the watch thread has stopped".to_string())?;
        answer
            .await
            .map_err(|_| "the watch thread has stopped".to_string())?
    }
}

fn run(rx: mpsc::Receiver<Command>, store: Weak<Store>) {
    let mut watches: HashMap<String, Entry> = HashMap::new();
    for cmd in rx {
        match cmd {
            Command::Applied(seq, applied) => {
                for e in watches.values_mut() {
                    if seq <= e.seeded {
                        continue;
                    }
                    let changes = match &applied {
                        Applied::Upsert(objects) => e.watch.upsert(objects),
                        Applied::Remove(ids) => {
                            ids.iter().flat_map(|id| e.watch.delete(id).1).collect()
                        }
                    };
                    let clock = e.watch.clock();
                    for c in e.debouncer.filter(changes, clock.unwrap_or(0.0)) {
                        // No receiver left is fine: the entry goes below.
                        let _ = e.tx.send(change_event(&c, clock));
                    }
                }
            }
            Command::Subscribe(spec, reply) => {
                let Some(store) = store.upgrade() else {
                    return;
                };
                let entry = match watches.entry(spec.key()) {
                    std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        let mut watch = match Watch::new(spec.params.clone()) {
                            Ok(w) => w,
                            Err(e) => {
                                let _ = reply.send(Err(e.to_string()));
                                continue;
                            }
                        };
                        let snap = store.snapshot();
                        let mut debouncer = Debouncer::new(spec.hold);
                        let first = watch.upsert(&snap.states);
                        debouncer.filter(first, watch.clock().unwrap_or(0.0));
                        v.insert(Entry {
                            watch,
                            debouncer,
                            seeded: snap.seq,
                            tx: broadcast::channel(BACKLOG).0,
                        })
                    }
                };
                let clock = entry.watch.clock();
                let shown = entry.debouncer.shown();
                let mut initial: Vec<Arc<Event>> = shown
                    .iter()
                    .map(|p| change_event(&Change::Predicted(p.clone()), clock))
                    .collect();
                initial.push(Arc::new(Event {
                    kind: "synced",
                    data:
                        json!({"clock": clock, "pairs": shown.len(), "objects": entry.watch.len()})
                            .to_string(),
                }));
                let _ = reply.send(Ok(Subscription {
                    initial,
                    changes: entry.tx.subscribe(),
                }));
            }
        }
        watches.retain(|_, e| e.tx.receiver_count() > 0);
    }
}
