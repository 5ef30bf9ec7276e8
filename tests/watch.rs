//! `GET /v1/watch` over HTTP: the initial set, then changes that add up to a fresh query.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{Server, get, horizondb, stdout};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/ais/marinecadastre_nyharbor_20200630_1h.csv"
);

/// Reads server-sent events on a thread of its own: (event name, JSON data).
fn events(url: &str) -> mpsc::Receiver<(String, Value)> {
    let (tx, rx) = mpsc::channel();
    let url = url.to_string();
    std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let resp = agent.get(&url).call().unwrap();
        assert_eq!(resp.status(), 200);
        let reader = BufReader::new(resp.into_body().into_reader());
        let mut name = String::new();
        for line in reader.lines() {
            let Ok(line) = line else { return };
            if let Some(n) = line.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                let v: Value = serde_json::from_str(d).unwrap();
                if tx.send((name.clone(), v)).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

fn key(v: &Value) -> (String, String) {
    (
        v["a"].as_str().unwrap().into(),
        v["b"].as_str().unwrap().into(),
    )
}

#[test]
fn watch_stream_adds_up_to_a_fresh_query() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    let replay = |until: &str| {
        let out = horizondb(&[
            "replay", FILE, "--url", &srv.url, "--speed", "0", "--until", until,
        ]);
        stdout(&out);
    };
    replay("2020-06-30T00:10:00");
    let q = "horizon=600&margin=50&min_speed=0.5";
    let rx = events(&format!("{}/v1/watch?{q}&hold=0", srv.url));
    let mut view: BTreeMap<(String, String), Value> = BTreeMap::new();
    // The current set first, then `synced`.
    loop {
        let (name, v) = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("initial events");
        match name.as_str() {
            "predicted" => {
                view.insert(key(&v), v);
            }
            "synced" => {
                assert_eq!(v["pairs"], view.len());
                break;
            }
            other => panic!("{other} before synced"),
        }
    }
    let (_, now) = get(&format!("{}/v1/collisions?{q}", srv.url));
    assert_eq!(now["total_pairs"], view.len(), "initial set != query");
    assert!(!view.is_empty());

    // Ten more recorded minutes; every change is applied to the view.
    replay("2020-06-30T00:20:00");
    let (mut seen, deadline) = (
        BTreeMap::<String, usize>::new(),
        Instant::now() + Duration::from_secs(30),
    );
    loop {
        while let Ok((name, v)) = rx.recv_timeout(Duration::from_millis(300)) {
            *seen.entry(name.clone()).or_default() += 1;
            match name.as_str() {
                "predicted" | "updated" => {
                    view.insert(key(&v), v);
                }
                "cleared" | "passed" => {
                    assert!(view.remove(&key(&v)).is_some(), "{name} of an unknown pair");
                }
                other => panic!("unexpected {other}"),
            }
        }
        let (_, fresh) = get(&format!("{}/v1/collisions?{q}", srv.url));
        let want: Vec<(String, String)> =
            fresh["pairs"].as_array().unwrap().iter().map(key).collect();
        let mut want = want;
        want.sort();
        let got: Vec<(String, String)> = view.keys().cloned().collect();
        if got == want {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "watch view {got:?} != query {want:?}"
        );
    }
    let n = |k: &str| seen.get(k).copied().unwrap_or(0);
    assert!(
        n("predicted") > 0 && n("cleared") + n("passed") > 0,
        "{seen:?}"
    );
}

#[test]
fn bad_watch_parameters_are_400() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    for bad in [
        "",
        "horizon=-1",
        "horizon=5&hold=-2",
        "horizon=5&min_speed=x",
        "horizon=5&colour=red",
    ] {
        let (s, v) = get(&format!("{}/v1/watch?{bad}", srv.url));
        assert_eq!(s, 400, "{bad}: {v}");
    }
}
