//! Snapshots: every live object at the end of a log segment, so restart reads one file
//! instead of the whole history, and old segments can be deleted.
//!
//! ```text
//! "HZSNAP02" seq:u64 clock:f64 (NaN: none) count:u64 (received_at:f64 object)×count crc32:u32
//! ```
//! (`HZSNAP01`, from before metadata, holds metric states and is still read.)
//! Written to a temporary name, fsynced, then renamed: a snapshot is whole or absent.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use horizon_core::Object;

use crate::StoreError;
use crate::codec::{Reader, put_f64, put_object};
use crate::wal::sync_dir;

const MAGIC: &[u8; 8] = b"HZSNAP02";
const MAGIC_V1: &[u8; 8] = b"HZSNAP01";

pub(crate) fn snapshot_path(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("snap-{seq:020}.bin"))
}

/// Writes the snapshot covering segments up to and including `seq`.
pub(crate) fn write(
    dir: &Path,
    seq: u64,
    clock: Option<f64>,
    items: &[(f64, Arc<Object>)],
) -> Result<(), StoreError> {
    let path = snapshot_path(dir, seq);
    let tmp = path.with_extension("tmp");
    let io = |e| StoreError::io(&tmp, e);
    let mut hasher = crc32fast::Hasher::new();
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp).map_err(io)?);
    let mut buf = Vec::with_capacity(1 << 16);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&seq.to_le_bytes());
    put_f64(&mut buf, clock.unwrap_or(f64::NAN));
    buf.extend_from_slice(&(items.len() as u64).to_le_bytes());
    for (received_at, s) in items {
        put_f64(&mut buf, *received_at);
        put_object(&mut buf, s);
        if buf.len() > 1 << 15 {
            hasher.update(&buf);
            out.write_all(&buf).map_err(io)?;
            buf.clear();
        }
    }
    hasher.update(&buf);
    out.write_all(&buf).map_err(io)?;
    out.write_all(&hasher.finalize().to_le_bytes())
        .map_err(io)?;
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    drop(file);
    fs::rename(&tmp, &path).map_err(|e| StoreError::io(&path, e))?;
    sync_dir(dir).map_err(|e| StoreError::io(dir, e))
}

/// What a snapshot holds.
pub(crate) struct Loaded {
    pub clock: Option<f64>,
    pub items: Vec<(f64, Object)>,
}

pub(crate) fn read(path: &Path) -> Result<Loaded, StoreError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| StoreError::io(path, e))?;
    let corrupt = |reason: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        offset: 0,
        reason,
    };
    let v1 = bytes.get(..8) == Some(MAGIC_V1);
    if bytes.len() < MAGIC.len() + 28 || !(v1 || &bytes[..8] == MAGIC) {
        return Err(corrupt("not a HorizonDB snapshot (bad header)".into()));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4")) {
        return Err(corrupt("snapshot checksum mismatch".into()));
    }
    let mut r = Reader::new(&body[8..]);
    let parse = |r: &mut Reader| -> Result<Loaded, String> {
        let _seq = r.u64()?;
        let clock = r.f64()?;
        let n = r.u64()? as usize;
        let mut items = Vec::with_capacity(n.min(1 << 24));
        for _ in 0..n {
            let received_at = r.f64()?;
            let object = if v1 { r.state()?.into() } else { r.object()? };
            items.push((received_at, object));
        }
        if !r.is_empty() {
            return Err("trailing bytes".into());
        }
        Ok(Loaded {
            clock: (!clock.is_nan()).then_some(clock),
            items,
        })
    };
    parse(&mut r).map_err(corrupt)
}
