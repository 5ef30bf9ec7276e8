use std::io::Write;

use horizon_core::{GeoStateInput, Hull, StateInput};

use super::*;

fn st(id: &str, t: f64, x: f64) -> Object {
    StateInput::new(id, t, &[x, 0.0, 1.0], &[1.0, 2.0, 0.5])
        .with_box(&[0.5, 0.5, 1.0])
        .validate()
        .unwrap()
        .into()
}

fn x_of(o: &Object) -> f64 {
    match o {
        Object::Metric(s) => s.position()[0],
        Object::Geo(g) => g.lat_lon().1,
    }
}

fn open(dir: &Path) -> Store {
    Store::open(dir, StoreConfig::default()).unwrap().0
}

fn all(store: &Store) -> Vec<Object> {
    store
        .snapshot()
        .states
        .iter()
        .map(|s| (**s).clone())
        .collect()
}

#[test]
fn writes_reads_and_clock() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(dir.path());
    assert_eq!(s.clock(), None);
    let ack = s
        .upsert(vec![st("b", 5.0, 1.0), st("a", 3.0, 2.0)])
        .unwrap();
    assert_eq!(
        ack,
        WriteAck {
            accepted: 2,
            clock: Some(5.0)
        }
    );
    s.upsert(vec![st("a", 4.0, 9.0)]).unwrap();
    assert_eq!(x_of(&s.get("a").unwrap()), 9.0);
    assert_eq!(s.clock(), Some(5.0), "the clock never goes back");
    let ids: Vec<_> = s
        .list(None, 10)
        .iter()
        .map(|x| x.id().to_string())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(s.list(Some("a"), 10).len(), 1);
    assert_eq!(s.list(None, 1).len(), 1);
    assert!(s.delete("a").unwrap());
    assert!(!s.delete("a").unwrap());
    assert!(s.get("a").is_none());
    assert_eq!(s.stats().objects, 1);
}

#[test]
fn everything_acknowledged_survives_reopen_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let want = {
        let s = open(dir.path());
        for i in 0..50 {
            s.upsert(
                (0..20)
                    .map(|k| st(&format!("o{i}-{k}"), i as f64, k as f64 * 0.1))
                    .collect(),
            )
            .unwrap();
        }
        s.delete("o3-4").unwrap();
        all(&s)
    };
    let (s, rec) = Store::open(dir.path(), StoreConfig::default()).unwrap();
    assert_eq!(rec.objects, 999);
    assert_eq!(rec.records_replayed, 51);
    assert_eq!(all(&s), want);
    assert!(s.get("o3-4").is_none(), "deletes stay deleted");
    assert_eq!(s.clock(), Some(49.0));
}

#[test]
fn a_torn_final_record_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = open(dir.path());
        s.upsert(vec![st("a", 1.0, 1.0)]).unwrap();
        s.upsert(vec![st("b", 2.0, 2.0)]).unwrap();
    }
    let seg = segment_path(dir.path(), 1);
    let good = fs::metadata(&seg).unwrap().len();
    // Half of a third record: the process died mid-append.
    let rec = encode_op(&Op::Upsert {
        received_at: 0.0,
        states: vec![st("c", 3.0, 3.0)],
    });
    let mut f = OpenOptions::new().append(true).open(&seg).unwrap();
    f.write_all(&rec[..rec.len() / 2]).unwrap();
    drop(f);
    let (s, rec2) = Store::open(dir.path(), StoreConfig::default()).unwrap();
    assert_eq!(rec2.torn_bytes_dropped, (rec.len() / 2) as u64);
    assert_eq!(fs::metadata(&seg).unwrap().len(), good);
    assert!(s.get("a").is_some() && s.get("b").is_some() && s.get("c").is_none());
    // And writing goes on after the cut.
    s.upsert(vec![st("d", 4.0, 4.0)]).unwrap();
    drop(s);
    assert_eq!(open(dir.path()).snapshot().states.len(), 3);
}

#[test]
fn corruption_in_the_middle_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = open(dir.path());
        s.upsert(vec![st("a", 1.0, 1.0)]).unwrap();
        s.upsert(vec![st("b", 2.0, 2.0)]).unwrap();
    }
    let seg = segment_path(dir.path(), 1);
    let mut bytes = fs::read(&seg).unwrap();
    bytes[12] ^= 0xff; // inside the first record's payload
    fs::write(&seg, &bytes).unwrap();
    let err = Store::open(dir.path(), StoreConfig::default())
        .err()
        .unwrap();
    assert!(
        matches!(err, StoreError::Corrupt { offset: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("Refusing to start"));
    // The file is left as it was for someone to inspect.
    assert_eq!(fs::read(&seg).unwrap(), bytes);
}

#[test]
fn snapshots_bound_the_log_and_restore_the_same_state() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = StoreConfig {
        snapshot_bytes: 10_000,
        ..Default::default()
    };
    let want = {
        let (s, _) = Store::open(dir.path(), cfg.clone()).unwrap();
        for i in 0..200 {
            s.upsert(vec![st(&format!("o{}", i % 70), i as f64, i as f64)])
                .unwrap();
        }
        s.delete("o5").unwrap();
        s.checkpoint().unwrap();
        s.upsert(vec![st("after", 500.0, 1.0)]).unwrap();
        assert!(s.stats().snapshots_written >= 1);
        all(&s)
    };
    let snaps = list_seqs(dir.path(), "snap-", ".bin").unwrap();
    let segs = list_seqs(dir.path(), "wal-", ".log").unwrap();
    assert_eq!(snaps.len(), 1, "older snapshots are deleted");
    assert!(
        segs.iter().all(|&s| s > snaps[0]),
        "covered segments are deleted: {segs:?}"
    );
    let (s, rec) = Store::open(dir.path(), cfg).unwrap();
    assert_eq!(all(&s), want);
    assert_eq!(rec.records_replayed, 1);
    assert_eq!(s.clock(), Some(500.0));
}

#[test]
fn a_damaged_snapshot_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let seq = {
        let s = open(dir.path());
        s.upsert(vec![st("a", 1.0, 1.0)]).unwrap();
        s.checkpoint().unwrap()
    };
    let path = snapshot::snapshot_path(dir.path(), seq);
    let mut bytes = fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 1;
    fs::write(&path, bytes).unwrap();
    let err = Store::open(dir.path(), StoreConfig::default())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("snapshot checksum mismatch"),
        "{err}"
    );
}

#[test]
fn ttl_expires_and_expired_objects_stay_gone() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = StoreConfig {
        ttl: Some(2.0), // wide: "new" must still be fresh when the store reopens
        ..Default::default()
    };
    {
        let (s, _) = Store::open(dir.path(), cfg.clone()).unwrap();
        s.upsert(vec![st("old", 1.0, 1.0)]).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2200));
        s.upsert(vec![st("new", 2.0, 1.0)]).unwrap();
        assert!(s.get("old").is_none(), "reads hide expired objects at once");
        assert_eq!(s.snapshot().states.len(), 1);
        assert_eq!(s.expire(), 1);
        assert_eq!(s.clock(), Some(2.0));
    }
    let (s, _) = Store::open(dir.path(), cfg).unwrap();
    assert!(s.get("old").is_none());
    assert!(s.get("new").is_some());
}

#[test]
fn one_process_per_directory() {
    let dir = tempfile::tempdir().unwrap();
    let _s = open(dir.path());
    let err = Store::open(dir.path(), StoreConfig::default())
        .err()
        .unwrap();
    assert!(matches!(err, StoreError::Locked(_)), "{err}");
}

#[test]
fn every_fsync_mode_round_trips() {
    for fsync in [FsyncMode::Always, FsyncMode::Batch, FsyncMode::Never] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = StoreConfig {
            fsync,
            ..Default::default()
        };
        {
            let (s, _) = Store::open(dir.path(), cfg.clone()).unwrap();
            std::thread::scope(|sc| {
                for w in 0..4 {
                    let s = &s;
                    sc.spawn(move || {
                        for i in 0..25 {
                            s.upsert(vec![st(&format!("w{w}-{i}"), 0.0, 0.0)]).unwrap();
                        }
                    });
                }
            });
        }
        assert_eq!(
            Store::open(dir.path(), cfg)
                .unwrap()
                .0
                .snapshot()
                .states
                .len(),
            100
        );
    }
    assert_eq!("batch".parse::<FsyncMode>(), Ok(FsyncMode::Batch));
    assert!(
        "sometimes"
            .parse::<FsyncMode>()
            .unwrap_err()
            .contains("always, batch or never")
    );
}

#[test]
fn geographic_objects_and_metadata_survive_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = GeoStateInput::new("367000001", 1.6e9, 40.6, -74.05, 5.5, 271.5);
    g.hull = Some(Hull {
        to_bow: 100.0,
        to_stern: 20.0,
        to_port: 10.0,
        to_starboard: 12.0,
    });
    g.heading = Some(270.0);
    g.alt = Some(-0.0);
    g.name = Some("EVER GIVEN".into());
    g.status = Some("under_way_using_engine".into());
    let mut m = StateInput::new("m", 1.0, &[1.0, 2.0], &[0.0, 1.0]);
    m.group = Some("fleet".into());
    let objects: Vec<Object> = vec![
        g.validate().unwrap().into(),
        m.validate().unwrap().into(),
        GeoStateInput::new("plain", 3.0, -89.0, 179.0, 0.0, 0.0)
            .validate()
            .unwrap()
            .into(),
    ];
    {
        let s = open(dir.path());
        s.upsert(objects.clone()).unwrap();
    }
    let mut want = objects.clone();
    want.sort_by(|a, b| a.id().cmp(b.id()));
    let s = open(dir.path());
    assert_eq!(all(&s), want, "replayed from the log");
    s.checkpoint().unwrap();
    drop(s);
    assert_eq!(all(&open(dir.path())), want, "loaded from a snapshot");
}
