//! The append-only log: numbered segment files of checksummed records, group commit, and
//! recovery that tells a torn tail (dropped) from real corruption (refused).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::codec::{Op, decode_op};
use crate::{FsyncMode, StoreError};

pub(crate) fn segment_path(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("wal-{seq:020}.log"))
}

/// Fsyncs a directory so a created or renamed file's name is durable too.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

struct Tail {
    file: File,
    /// A second handle to the same file, so fsync can run without holding the write lock.
    sync: Arc<File>,
    seq: u64,
    /// Bytes appended since the store opened (a log sequence number).
    written: u64,
    segment_bytes: u64,
}

pub(crate) struct Wal {
    dir: PathBuf,
    mode: FsyncMode,
    tail: Mutex<Tail>,
    /// The LSN known to be on disk; held while an fsync runs, which is what makes
    /// concurrent writers share one fsync (group commit).
    durable: Mutex<u64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not wedge the log; the data under the lock stays consistent
    // because every mutation below is completed or rolled back before it can panic.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Wal {
    /// Continues segment `seq` (creating it if needed), whose valid length is `len`.
    pub fn open(dir: &Path, seq: u64, len: u64, mode: FsyncMode) -> Result<Wal, StoreError> {
        let path = segment_path(dir, seq);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        sync_dir(dir).map_err(|e| StoreError::io(dir, e))?;
        let sync = Arc::new(file.try_clone().map_err(|e| StoreError::io(&path, e))?);
        Ok(Wal {
            dir: dir.to_path_buf(),
            mode,
            tail: Mutex::new(Tail {
                file,
                sync,
                seq,
                written: 0,
                segment_bytes: len,
            }),
            durable: Mutex::new(0),
        })
    }

    /// Appends one record and runs `apply` under the log lock, so the table sees writes in
    /// log order. Returns the record's LSN and the current segment's size.
    pub fn append(&self, rec: &[u8], apply: impl FnOnce()) -> Result<(u64, u64), StoreError> {
        let mut t = lock(&self.tail);
        if let Err(e) = t.file.write_all(rec) {
            // Never leave half a record in the middle of the log: cut it off again.
            let keep = t.segment_bytes;
            let _ = t.file.set_len(keep);
            return Err(StoreError::io(&segment_path(&self.dir, t.seq), e));
        }
        t.written += rec.len() as u64;
        t.segment_bytes += rec.len() as u64;
        apply();
        Ok((t.written, t.segment_bytes))
    }

    /// Returns once the record ending at `lsn` is as durable as the fsync mode promises.
    pub fn sync_to(&self, lsn: u64) -> Result<(), StoreError> {
        match self.mode {
            FsyncMode::Never => Ok(()),
            FsyncMode::Always => {
                // Its own fsync for every request.
                let (file, seq) = {
                    let t = lock(&self.tail);
                    (t.sync.clone(), t.seq)
                };
                file.sync_data()
                    .map_err(|e| StoreError::io(&segment_path(&self.dir, seq), e))
            }
            FsyncMode::Batch => {
                let mut durable = lock(&self.durable);
                if *durable >= lsn {
                    return Ok(()); // someone else's fsync covered this record
                }
                let (file, seq, target) = {
                    let t = lock(&self.tail);
                    (t.sync.clone(), t.seq, t.written)
                };
                file.sync_data()
                    .map_err(|e| StoreError::io(&segment_path(&self.dir, seq), e))?;
                *durable = target;
                Ok(())
            }
        }
    }

    /// Closes the current segment (fsynced) and starts the next one. `capture` runs with
    /// writes blocked, so what it reads is exactly the state at the end of the old segment.
    pub fn rotate<T>(&self, capture: impl FnOnce() -> T) -> Result<(u64, T), StoreError> {
        let mut t = lock(&self.tail);
        let old = t.seq;
        t.file
            .sync_data()
            .map_err(|e| StoreError::io(&segment_path(&self.dir, old), e))?;
        let path = segment_path(&self.dir, old + 1);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        sync_dir(&self.dir).map_err(|e| StoreError::io(&self.dir, e))?;
        t.sync = Arc::new(file.try_clone().map_err(|e| StoreError::io(&path, e))?);
        t.file = file;
        t.seq = old + 1;
        t.segment_bytes = 0;
        Ok((old, capture()))
    }
}

/// What reading one segment found.
pub(crate) struct SegmentRead {
    pub ops: Vec<Op>,
    /// Length of the valid prefix.
    pub valid_len: u64,
    /// Bytes after it that were a torn final record (only ever in the last segment).
    pub torn_bytes: u64,
}

/// Reads every record of a segment. A damaged record is a torn tail only when it is the last
/// thing in the newest segment (a crash mid-append); anything else is corruption.
pub(crate) fn read_segment(path: &Path, is_last: bool) -> Result<SegmentRead, StoreError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| StoreError::io(path, e))?;
    let mut ops = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let problem = if rest.len() < 8 {
            Some("incomplete record header".to_string())
        } else {
            let len = u32::from_le_bytes(rest[0..4].try_into().expect("4")) as usize;
            let crc = u32::from_le_bytes(rest[4..8].try_into().expect("4"));
            if len == 0 || rest.len() - 8 < len {
                Some(format!(
                    "record of {len} bytes runs past the end of the file"
                ))
            } else if crc32fast::hash(&rest[8..8 + len]) != crc {
                if rest.len() - 8 > len {
                    // Valid-looking data follows a bad checksum: not a torn append.
                    return Err(StoreError::Corrupt {
                        path: path.to_path_buf(),
                        offset: pos as u64,
                        reason: "checksum mismatch in the middle of the log".into(),
                    });
                }
                Some("checksum mismatch in the final record".to_string())
            } else {
                match decode_op(&rest[8..8 + len]) {
                    Ok(op) => {
                        ops.push(op);
                        pos += 8 + len;
                        None
                    }
                    Err(reason) => {
                        return Err(StoreError::Corrupt {
                            path: path.to_path_buf(),
                            offset: pos as u64,
                            reason: format!(
                                "record passes its checksum but does not decode: {reason}"
                            ),
                        });
                    }
                }
            }
        };
        if let Some(reason) = problem {
            if !is_last {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    offset: pos as u64,
                    reason: format!("{reason}, in a segment that is not the newest"),
                });
            }
            return Ok(SegmentRead {
                ops,
                valid_len: pos as u64,
                torn_bytes: (bytes.len() - pos) as u64,
            });
        }
    }
    Ok(SegmentRead {
        ops,
        valid_len: pos as u64,
        torn_bytes: 0,
    })
}

/// Sequence numbers of files named `{prefix}{seq:020}{suffix}` in `dir`, ascending.
pub(crate) fn list_seqs(dir: &Path, prefix: &str, suffix: &str) -> Result<Vec<u64>, StoreError> {
    let mut seqs = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))? {
        let name = entry.map_err(|e| StoreError::io(dir, e))?.file_name();
        let name = name.to_string_lossy();
        if let Some(mid) = name
            .strip_prefix(prefix)
            .and_then(|n| n.strip_suffix(suffix))
            && let Ok(seq) = mid.parse::<u64>()
        {
            seqs.push(seq);
        }
    }
    seqs.sort_unstable();
    Ok(seqs)
}
