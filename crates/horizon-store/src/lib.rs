//! # horizon-store
//!
//! HorizonDB's durable object table. One state per id, a database clock (the latest `t`
//! ingested), optional TTL, and crash safety:
//!
//! - every write is one checksummed record appended to the log (`wal-N.log`) before it is
//!   acknowledged; concurrent writers share fsyncs (group commit, [`FsyncMode`]);
//! - when a log segment passes [`StoreConfig::snapshot_bytes`], the log rotates and a
//!   snapshot of every live object (`snap-N.bin`) is written in the background; older
//!   segments and snapshots are then deleted, which bounds both disk use and restart time;
//! - [`Store::open`] loads the newest snapshot and replays the newer segments. A torn final
//!   record (a crash mid-append) is cut off with a warning; anything else that fails its
//!   checksum or does not decode stops the open with [`StoreError::Corrupt`], naming the file
//!   and offset, rather than silently dropping data.
//!
//! The store knows nothing of HTTP.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod codec;
mod snapshot;
mod wal;

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use horizon_core::Object;
use thiserror::Error;

use codec::{Op, encode_op};
use wal::{Wal, list_seqs, read_segment, segment_path};

/// When an acknowledged write has reached the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FsyncMode {
    /// Every write request gets its own fsync before it is acknowledged.
    Always,
    /// Group commit (the default): a write is acknowledged after an fsync that covers it,
    /// and concurrent writes share one fsync. Survives power loss.
    #[default]
    Batch,
    /// No fsync: a write is acknowledged once the OS has it. Survives a crash of the
    /// process (`kill -9`), not a power loss.
    Never,
}

impl FromStr for FsyncMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "always" => Ok(FsyncMode::Always),
            "batch" => Ok(FsyncMode::Batch),
            "never" => Ok(FsyncMode::Never),
            _ => Err(format!(
                "unknown fsync mode `{s}`: expected always, batch or never"
            )),
        }
    }
}

/// How the store behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreConfig {
    /// Durability of acknowledged writes.
    pub fsync: FsyncMode,
    /// Objects not written for this many seconds (wall clock) expire; `None`: never.
    pub ttl: Option<f64>,
    /// Rotate the log and snapshot when a segment passes this size. Smaller means faster
    /// restarts and less disk, larger means fewer snapshot writes.
    pub snapshot_bytes: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            fsync: FsyncMode::Batch,
            ttl: None,
            snapshot_bytes: 64 << 20,
        }
    }
}

/// What went wrong in the store.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Data on disk is damaged in a way that is not a torn final write.
    #[error(
        "{path}: corrupt at byte {offset}: {reason}. Refusing to start rather than lose data; \
         restore the file or move it aside to start without it"
    )]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// Where the damage starts.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// Another process has the data directory open.
    #[error("{0}: in use by another HorizonDB process")]
    Locked(PathBuf),
}

impl StoreError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A stored object.
#[derive(Debug, Clone)]
pub struct Stored {
    /// Its latest state.
    pub state: Arc<Object>,
    /// Wall-clock unix seconds when that state was written (for the TTL).
    pub received_at: f64,
}

/// What a write did to the table: sent to the observer in the order writes were applied,
/// each with its sequence number.
#[derive(Debug, Clone)]
pub enum Applied {
    /// These objects were stored (replacing any older state of theirs).
    Upsert(Vec<Arc<Object>>),
    /// These ids were removed (deleted, or expired by the TTL).
    Remove(Vec<String>),
}

/// Called with every applied write, in order, under the table's lock: keep it quick (send
/// it somewhere).
pub type Observer = Box<dyn Fn(u64, Applied) + Send + Sync>;

#[derive(Default)]
struct Table {
    objects: BTreeMap<Arc<str>, Stored>,
    clock: Option<f64>,
    /// Writes applied so far.
    seq: u64,
    observer: Option<Observer>,
}

impl Table {
    /// Stores `s` as written at `received_at`, unless it has already expired.
    fn put(
        &mut self,
        s: Object,
        received_at: f64,
        ttl: Option<f64>,
        now: f64,
    ) -> Option<Arc<Object>> {
        if ttl.is_some_and(|ttl| now - received_at > ttl) {
            self.objects.remove(s.id());
            return None;
        }
        let state = Arc::new(s);
        self.objects.insert(
            Arc::from(state.id()),
            Stored {
                state: state.clone(),
                received_at,
            },
        );
        Some(state)
    }

    /// Applies an operation, taking its states (no copies).
    fn apply(&mut self, op: Op, ttl: Option<f64>, now: f64) {
        self.seq += 1;
        let applied = match op {
            Op::Upsert {
                received_at,
                states,
            } => {
                let mut stored = Vec::with_capacity(states.len());
                for s in states {
                    self.clock = Some(self.clock.map_or(s.t(), |c| c.max(s.t())));
                    stored.extend(self.put(s, received_at, ttl, now));
                }
                Applied::Upsert(stored)
            }
            Op::Delete { id, .. } => {
                self.objects.remove(id.as_str());
                Applied::Remove(vec![id])
            }
        };
        self.notify(applied);
    }

    fn notify(&mut self, applied: Applied) {
        if let Some(f) = &self.observer {
            f(self.seq, applied);
        }
    }
}

/// A consistent view of every live object, in id order.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The states.
    pub states: Vec<Arc<Object>>,
    /// The database clock: the latest `t` ever ingested.
    pub clock: Option<f64>,
    /// Writes applied when it was taken (see [`Store::observe`]).
    pub seq: u64,
}

/// The answer to a write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WriteAck {
    /// States written.
    pub accepted: usize,
    /// The database clock after the write.
    pub clock: Option<f64>,
}

/// What [`Store::open`] found and did.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// Objects live after recovery.
    pub objects: usize,
    /// Log records replayed after the snapshot.
    pub records_replayed: usize,
    /// Bytes of a torn final record that were cut off.
    pub torn_bytes_dropped: u64,
    /// Time the recovery took.
    pub seconds: f64,
}

/// Counters for metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoreStats {
    /// Live objects.
    pub objects: usize,
    /// Bytes in log segments on disk.
    pub log_bytes: u64,
    /// Snapshots written since open.
    pub snapshots_written: u64,
}

/// Every live object at the end of log segment `seq`, with the clock: a snapshot to write.
struct Capture {
    seq: u64,
    items: Vec<(f64, Arc<Object>)>,
    clock: Option<f64>,
}

/// What a background checkpoint shares with the store.
struct Files {
    dir: PathBuf,
    checkpointing: AtomicBool,
    log_bytes: AtomicU64,
    snapshots: AtomicU64,
}

impl Files {
    /// Writes the snapshot for segment `seq`, then deletes what it covers.
    fn finish_checkpoint(
        &self,
        seq: u64,
        items: &[(f64, Arc<Object>)],
        clock: Option<f64>,
    ) -> Result<(), StoreError> {
        snapshot::write(&self.dir, seq, clock, items)?;
        self.snapshots.fetch_add(1, Ordering::Relaxed);
        // The snapshot covers every segment up to `seq` and every older snapshot.
        for s in list_seqs(&self.dir, "wal-", ".log")?
            .into_iter()
            .filter(|&s| s <= seq)
        {
            let _ = fs::remove_file(segment_path(&self.dir, s));
        }
        for s in list_seqs(&self.dir, "snap-", ".bin")?
            .into_iter()
            .filter(|&s| s < seq)
        {
            let _ = fs::remove_file(snapshot::snapshot_path(&self.dir, s));
        }
        self.refresh_log_bytes();
        Ok(())
    }

    fn refresh_log_bytes(&self) {
        let total = list_seqs(&self.dir, "wal-", ".log")
            .unwrap_or_default()
            .into_iter()
            .filter_map(|s| fs::metadata(segment_path(&self.dir, s)).ok())
            .map(|m| m.len())
            .sum();
        self.log_bytes.store(total, Ordering::Relaxed);
    }
}

/// The durable object table. Cheap to share (`Arc<Store>`); all methods take `&self`.
pub struct Store {
    cfg: StoreConfig,
    wal: Wal,
    table: RwLock<Table>,
    files: Arc<Files>,
    _lock: File,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Store {
    /// Opens (or creates) the store in `dir`, recovering its state.
    pub fn open(dir: &Path, cfg: StoreConfig) -> Result<(Store, Recovery), StoreError> {
        let t0 = Instant::now();
        fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
        let lock_path = dir.join("LOCK");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| StoreError::io(&lock_path, e))?;
        if lock.try_lock().is_err() {
            return Err(StoreError::Locked(dir.to_path_buf()));
        }
        for seq in list_seqs(dir, "snap-", ".tmp")? {
            // A snapshot that never finished: it was never used.
            let _ = fs::remove_file(snapshot::snapshot_path(dir, seq).with_extension("tmp"));
        }
        let now = now();
        let mut table = Table::default();
        let base = list_seqs(dir, "snap-", ".bin")?.last().copied();
        if let Some(seq) = base {
            let loaded = snapshot::read(&snapshot::snapshot_path(dir, seq))?;
            table.clock = loaded.clock;
            for (received_at, s) in loaded.items {
                table.put(s, received_at, cfg.ttl, now);
            }
        }
        let mut live = Vec::new();
        for seq in list_seqs(dir, "wal-", ".log")? {
            if base.is_some_and(|b| seq <= b) {
                // Covered by the snapshot; left over from an interrupted cleanup.
                let _ = fs::remove_file(segment_path(dir, seq));
            } else {
                live.push(seq);
            }
        }
        let mut replayed = 0;
        let mut torn = 0;
        let mut tail = (base.map_or(1, |b| b + 1), 0);
        for (k, &seq) in live.iter().enumerate() {
            let path = segment_path(dir, seq);
            let read = read_segment(&path, k + 1 == live.len())?;
            if read.torn_bytes > 0 {
                tracing::warn!(
                    file = %path.display(),
                    offset = read.valid_len,
                    bytes = read.torn_bytes,
                    "dropping a torn final log record (a write that was never acknowledged)"
                );
                OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| {
                        f.set_len(read.valid_len)?;
                        f.sync_all()
                    })
                    .map_err(|e| StoreError::io(&path, e))?;
                torn = read.torn_bytes;
            }
            replayed += read.ops.len();
            for op in read.ops {
                table.apply(op, cfg.ttl, now);
            }
            tail = (seq, read.valid_len);
        }
        let wal = Wal::open(dir, tail.0, tail.1, cfg.fsync)?;
        let objects = table.objects.len();
        let store = Store {
            wal,
            table: RwLock::new(table),
            files: Arc::new(Files {
                dir: dir.to_path_buf(),
                checkpointing: AtomicBool::new(false),
                log_bytes: AtomicU64::new(0),
                snapshots: AtomicU64::new(0),
            }),
            cfg,
            _lock: lock,
        };
        store.files.refresh_log_bytes();
        Ok((
            store,
            Recovery {
                objects,
                records_replayed: replayed,
                torn_bytes_dropped: torn,
                seconds: t0.elapsed().as_secs_f64(),
            },
        ))
    }

    fn read(&self) -> RwLockReadGuard<'_, Table> {
        self.table.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Table> {
        self.table.write().unwrap_or_else(|p| p.into_inner())
    }

    fn log(&self, op: Op) -> Result<(), StoreError> {
        let rec = encode_op(&op);
        let ttl = self.cfg.ttl;
        let (lsn, segment) = self
            .wal
            .append(&rec, || self.write().apply(op, ttl, now()))?;
        self.files
            .log_bytes
            .fetch_add(rec.len() as u64, Ordering::Relaxed);
        self.wal.sync_to(lsn)?;
        if segment > self.cfg.snapshot_bytes {
            self.checkpoint_in_background();
        }
        Ok(())
    }

    /// Inserts or replaces a batch, all or nothing; returns once durable (per fsync mode).
    pub fn upsert(&self, states: Vec<Object>) -> Result<WriteAck, StoreError> {
        let accepted = states.len();
        if accepted > 0 {
            self.log(Op::Upsert {
                received_at: now(),
                states,
            })?;
        }
        Ok(WriteAck {
            accepted,
            clock: self.clock(),
        })
    }

    /// Removes an object; `false` if there was none (nothing is written then).
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        if self.get(id).is_none() {
            return Ok(false);
        }
        self.log(Op::Delete {
            received_at: now(),
            id: id.to_string(),
        })?;
        Ok(true)
    }

    fn expired(&self, s: &Stored, now: f64) -> bool {
        self.cfg.ttl.is_some_and(|ttl| now - s.received_at > ttl)
    }

    /// The object's latest state, if it exists and has not expired.
    pub fn get(&self, id: &str) -> Option<Arc<Object>> {
        let now = now();
        let t = self.read();
        t.objects
            .get(id)
            .filter(|s| !self.expired(s, now))
            .map(|s| s.state.clone())
    }

    /// Up to `limit` objects with ids after `after`, in id order.
    pub fn list(&self, after: Option<&str>, limit: usize) -> Vec<Arc<Object>> {
        use std::ops::Bound;
        let now = now();
        let t = self.read();
        let lower = match after {
            Some(a) => Bound::Excluded(a),
            None => Bound::Unbounded,
        };
        t.objects
            .range::<str, _>((lower, Bound::Unbounded))
            .filter(|(_, s)| !self.expired(s, now))
            .take(limit)
            .map(|(_, s)| s.state.clone())
            .collect()
    }

    /// Every live object, as of one instant, in id order.
    pub fn snapshot(&self) -> Snapshot {
        let now = now();
        let t = self.read();
        Snapshot {
            states: t
                .objects
                .values()
                .filter(|s| !self.expired(s, now))
                .map(|s| s.state.clone())
                .collect(),
            clock: t.clock,
            seq: t.seq,
        }
    }

    /// From now on, every applied write is also sent to `observer`, in the order the table
    /// applied them (a snapshot's `seq` says which writes it already holds). One observer.
    pub fn observe(&self, observer: Observer) {
        self.write().observer = Some(observer);
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.files.dir
    }

    /// The database clock: the latest `t` ever ingested.
    pub fn clock(&self) -> Option<f64> {
        self.read().clock
    }

    /// Drops expired objects from memory (reads already hide them). Returns how many.
    pub fn expire(&self) -> usize {
        let Some(ttl) = self.cfg.ttl else { return 0 };
        let now = now();
        let mut t = self.write();
        let gone: Vec<String> = t
            .objects
            .iter()
            .filter(|(_, s)| now - s.received_at > ttl)
            .map(|(id, _)| id.to_string())
            .collect();
        for id in &gone {
            t.objects.remove(id.as_str());
        }
        if !gone.is_empty() {
            t.seq += 1;
            let n = gone.len();
            t.notify(Applied::Remove(gone));
            return n;
        }
        0
    }

    /// Counters for metrics.
    pub fn stats(&self) -> StoreStats {
        StoreStats {
            objects: self.read().objects.len(),
            log_bytes: self.files.log_bytes.load(Ordering::Relaxed),
            snapshots_written: self.files.snapshots.load(Ordering::Relaxed),
        }
    }

    /// Rotates the log and writes a snapshot now, waiting for it. Returns the snapshot's
    /// segment number.
    pub fn checkpoint(&self) -> Result<u64, StoreError> {
        let c = self.rotate_and_capture()?;
        self.files.finish_checkpoint(c.seq, &c.items, c.clock)?;
        Ok(c.seq)
    }

    /// Starts a new log segment and captures every live object as of the end of the old one.
    fn rotate_and_capture(&self) -> Result<Capture, StoreError> {
        let (seq, (items, clock)) = self.wal.rotate(|| {
            let t = self.read();
            let items: Vec<_> = t
                .objects
                .values()
                .map(|s| (s.received_at, s.state.clone()))
                .collect();
            (items, t.clock)
        })?;
        Ok(Capture { seq, items, clock })
    }

    fn checkpoint_in_background(&self) {
        if self.files.checkpointing.swap(true, Ordering::AcqRel) {
            return; // one at a time
        }
        match self.rotate_and_capture() {
            Ok(Capture { seq, items, clock }) => {
                // Encoding and writing a big snapshot takes a while: not on a writer's path.
                let files = self.files.clone();
                std::thread::spawn(move || {
                    match files.finish_checkpoint(seq, &items, clock) {
                        Ok(()) => tracing::info!(seq, objects = items.len(), "snapshot written"),
                        // The log still holds everything: a failed snapshot loses nothing.
                        Err(e) => tracing::error!(error = %e, "snapshot failed; the log is kept"),
                    }
                    files.checkpointing.store(false, Ordering::Release);
                });
            }
            Err(e) => {
                tracing::error!(error = %e, "log rotation failed");
                self.files.checkpointing.store(false, Ordering::Release);
            }
        }
    }
}

#[cfg(test)]
mod test;
