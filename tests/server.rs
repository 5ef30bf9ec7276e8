//! End-to-end: the real `horizondb serve` binary on a free port with a temp data dir.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use horizon_core::{QueryParams, query_objects};
use horizon_datasets::{Distribution, Motion, PaperScene, parse_states, write_ndjson};
use serde_json::{Value, json};

use crate::util::{Server, get, send};

/// Every object, page by page.
fn all_objects(base: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let url = match &after {
            Some(a) => format!("{base}/v1/objects?limit=500&after={a}"),
            None => format!("{base}/v1/objects?limit=500"),
        };
        let (s, v) = get(&url);
        assert_eq!(s, 200, "{v}");
        out.extend(v["objects"].as_array().unwrap().iter().cloned());
        match v["next_after"].as_str() {
            Some(n) => after = Some(n.to_string()),
            None => return out,
        }
    }
}

fn scene(n: usize, seed: u64) -> String {
    let s = PaperScene {
        n,
        distribution: Distribution::Zipf,
        motion: Motion::Nonlinear,
        seed,
        ..Default::default()
    }
    .generate();
    let mut buf = Vec::new();
    write_ndjson(&mut buf, &s).unwrap();
    String::from_utf8(buf).unwrap()
}

fn as_array(ndjson: &str) -> String {
    format!("[{}]", ndjson.lines().collect::<Vec<_>>().join(","))
}

#[test]
fn ingest_then_queries_match_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    let a = scene(3000, 1);
    // Other ids for the second batch.
    let b = scene(2000, 2).replace("\"id\":\"o", "\"id\":\"p");
    let (s, v) = send(
        "POST",
        &format!("{}/v1/objects", srv.url),
        "application/json",
        &as_array(&a),
    );
    assert_eq!((s, &v["accepted"]), (200, &json!(3000)), "{v}");
    let (s, v) = send(
        "POST",
        &format!("{}/v1/objects", srv.url),
        "application/x-ndjson",
        &b,
    );
    assert_eq!((s, &v["accepted"]), (200, &json!(2000)), "{v}");
    let states = parse_states(&format!("{a}{b}")).unwrap().states;
    for (query, params) in [
        (
            "horizon=5&margin=1",
            QueryParams::new(0.0, 5.0).with_margin(1.0),
        ),
        ("horizon=3&at=1&algorithm=rtree", QueryParams::new(1.0, 3.0)),
    ] {
        let (s, v) = get(&format!("{}/v1/collisions?{query}", srv.url));
        assert_eq!(s, 200, "{v}");
        let want = query_objects(&states, &params, &Default::default()).unwrap();
        assert!(!want.pairs.is_empty());
        assert_eq!(
            v["pairs"],
            serde_json::to_value(&want.pairs).unwrap(),
            "{query}"
        );
        let id = &want.pairs[0].a;
        let (_, mine) = get(&format!("{}/v1/objects/{id}/collisions?{query}", srv.url)
            .replace("&algorithm=rtree", ""));
        let expect: Vec<_> = want
            .pairs
            .iter()
            .filter(|p| &p.a == id || &p.b == id)
            .collect();
        assert_eq!(mine["pairs"], serde_json::to_value(&expect).unwrap());
    }
    assert_eq!(all_objects(&srv.url).len(), 5000);
}

#[test]
fn errors_over_http_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &["--max-body-bytes", "2000"]);
    let url = format!("{}/v1/objects", srv.url);
    send(
        "POST",
        &url,
        "application/json",
        r#"[{"id":"a","t":0,"p":[0,0]}]"#,
    );
    for (ct, body, status) in [
        (
            "application/json",
            "[{\"id\":\"b\",\"t\":0,\"p\":[0,0]},{\"id\":\"c\",\"t\":0,\"p\":[0]}]".to_string(),
            422,
        ),
        (
            "application/json",
            "[{\"id\":\"b\",\"t\":0,\"p\":[0,0]},".to_string(),
            400,
        ),
        ("text/csv", "id,t".to_string(), 415),
        (
            "application/x-ndjson",
            format!(
                "{{\"id\":\"b\",\"t\":0,\"p\":[0,0],\"pad\":\"{}\"}}",
                "x".repeat(3000)
            ),
            413,
        ),
    ] {
        let (s, v) = send("POST", &url, ct, &body);
        assert_eq!(s, status, "{v}");
        assert!(v["error"]["message"].is_string(), "{v}");
    }
    let (s, _) = get(&format!("{}/v1/collisions?horizon=-3", srv.url));
    assert_eq!(s, 400);
    assert_eq!(all_objects(&srv.url).len(), 1);
}

#[test]
fn kill_9_loses_nothing_acknowledged_and_deletes_stay_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let srv = Server::start(&db, &["--fsync", "batch"]);
    let data = scene(2000, 7);
    let lines: Vec<&str> = data.lines().collect();
    // Concurrent writers: group commit must still acknowledge only durable writes.
    std::thread::scope(|s| {
        for chunk in lines.chunks(250) {
            let url = format!("{}/v1/objects", srv.url);
            let body = chunk.join("\n");
            s.spawn(move || assert_eq!(send("POST", &url, "application/x-ndjson", &body).0, 200));
        }
    });
    assert_eq!(
        send("DELETE", &format!("{}/v1/objects/o17", srv.url), "", "").0,
        204
    );
    let (s, _) = send(
        "PUT",
        &format!("{}/v1/objects/o18", srv.url),
        "application/json",
        r#"{"t":9,"p":[1,2],"v":[3,4]}"#,
    );
    assert_eq!(s, 200);
    let before = all_objects(&srv.url);
    assert_eq!(before.len(), 1999);
    srv.kill9();
    let srv = Server::start(&db, &[]);
    assert_eq!(
        all_objects(&srv.url),
        before,
        "every acknowledged state, identical"
    );
    assert_eq!(get(&format!("{}/v1/objects/o17", srv.url)).0, 404);
    let (_, v) = get(&format!("{}/healthz", srv.url));
    assert_eq!(v["clock"], 9.0);
}

#[test]
fn a_torn_final_record_is_truncated_and_corruption_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let srv = Server::start(&db, &[]);
    let url = format!("{}/v1/objects", srv.url);
    send(
        "POST",
        &url,
        "application/json",
        r#"[{"id":"a","t":0,"p":[0,0]}]"#,
    );
    send(
        "POST",
        &url,
        "application/json",
        r#"[{"id":"b","t":1,"p":[5,0]}]"#,
    );
    srv.kill9();
    let wal = newest_wal(&db);
    let good = std::fs::read(&wal).unwrap();
    // A record header promising 500 bytes, and only 10 of them: a crash mid-append.
    let mut f = std::fs::OpenOptions::new().append(true).open(&wal).unwrap();
    f.write_all(&500u32.to_le_bytes()).unwrap();
    f.write_all(&[7u8; 14]).unwrap();
    drop(f);
    let srv = Server::start(&db, &[]);
    assert_eq!(all_objects(&srv.url).len(), 2);
    assert!(
        srv.log().contains("dropping a torn final log record"),
        "{}",
        srv.log()
    );
    assert_eq!(std::fs::read(&wal).unwrap(), good);
    srv.kill9();
    // Damage inside the first record, with a valid record after it: real corruption.
    let mut bytes = good.clone();
    bytes[10] ^= 0x55;
    std::fs::write(&wal, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_horizondb"))
        .args(["serve", "--bind", "127.0.0.1:0", "--data-dir"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("corrupt at byte 0") && err.contains("Refusing to start"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&wal).unwrap(),
        bytes,
        "nothing is dropped silently"
    );
}

fn newest_wal(db: &Path) -> PathBuf {
    let mut wals: Vec<PathBuf> = std::fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    wals.sort();
    wals.pop().unwrap()
}

#[test]
fn ttl_expiry_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // TTL 3 s: "new" must still be fresh after the restart below, even on a slow machine.
    let srv = Server::start(&db, &["--ttl", "3"]);
    let url = format!("{}/v1/objects", srv.url);
    send(
        "POST",
        &url,
        "application/json",
        r#"[{"id":"old","t":0,"p":[0,0]}]"#,
    );
    assert_eq!(get(&format!("{}/v1/objects/old", srv.url)).0, 200);
    std::thread::sleep(Duration::from_millis(3300));
    send(
        "POST",
        &url,
        "application/json",
        r#"[{"id":"new","t":1,"p":[0,0]}]"#,
    );
    assert_eq!(get(&format!("{}/v1/objects/old", srv.url)).0, 404);
    srv.kill9();
    let srv = Server::start(&db, &["--ttl", "3"]);
    assert_eq!(get(&format!("{}/v1/objects/old", srv.url)).0, 404);
    assert_eq!(get(&format!("{}/v1/objects/new", srv.url)).0, 200);
}

#[test]
fn snapshots_and_graceful_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let mut srv = Server::start(&db, &["--snapshot-bytes", "20000"]);
    let data = scene(1500, 3);
    for chunk in data.lines().collect::<Vec<_>>().chunks(100) {
        let (s, _) = send(
            "POST",
            &format!("{}/v1/objects", srv.url),
            "application/x-ndjson",
            &chunk.join("\n"),
        );
        assert_eq!(s, 200);
    }
    let before = all_objects(&srv.url);
    // SIGTERM: finish in-flight requests and exit cleanly.
    let pid = srv.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert!(srv.child.wait().unwrap().success());
    assert!(srv.log().contains("shut down cleanly"));
    let snaps = std::fs::read_dir(&db)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("snap-")
        })
        .count();
    assert!(snaps >= 1, "the log was rotated into a snapshot");
    let srv = Server::start(&db, &[]);
    assert_eq!(all_objects(&srv.url), before);
    let (_, metrics) = get(&format!("{}/metrics", srv.url));
    assert!(metrics.as_str().unwrap().contains("horizondb_objects 1500"));
}
