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

/// A tiny HTTP receiver: answers 500 to the first request and 204 after; keeps the bodies.
fn receiver() -> (String, mpsc::Receiver<Value>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; len];
            // A request cut off (the server killed mid-send) is no delivery.
            if len == 0 || reader.read_exact(&mut body).is_err() {
                continue;
            }
            let status = if n == 0 {
                "500 Internal Server Error"
            } else {
                "204 No Content"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            if n > 0
                && let Ok(v) = serde_json::from_slice::<Value>(&body)
                && tx.send(v).is_err()
            {
                return;
            }
        }
    });
    (url, rx)
}

#[test]
fn webhooks_retry_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let srv = Server::start(&db, &[]);
    let replay = |url: &str, until: &str| {
        stdout(&horizondb(&[
            "replay", FILE, "--url", url, "--speed", "0", "--until", until,
        ]));
    };
    replay(&srv.url, "2020-06-30T00:10:00");
    let (hook_url, got) = receiver();
    let spec = serde_json::json!({"url": hook_url, "horizon": 600, "margin": 50, "min_speed": 0.5, "hold": 0});
    let (s, v) = crate::util::send(
        "POST",
        &format!("{}/v1/hooks", srv.url),
        "application/json",
        &spec.to_string(),
    );
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    // The first delivery gets a 500 and is retried.
    let first = got
        .recv_timeout(Duration::from_secs(20))
        .expect("an event after the retry");
    assert_eq!(first["event"], "predicted", "{first}");
    assert!(first["data"]["t_contact"].is_number());
    let (_, h) = get(&format!("{}/v1/hooks/{id}", srv.url));
    assert!(
        h["delivery"]["last_error"]
            .as_str()
            .unwrap()
            .contains("500"),
        "{h}"
    );

    // kill -9, restart: the hook is still there and still delivers.
    srv.kill9();
    let srv = Server::start(&db, &[]);
    let (_, list) = get(&format!("{}/v1/hooks", srv.url));
    assert_eq!(list["hooks"][0]["id"], id.as_str(), "{list}");
    while got.recv_timeout(Duration::from_millis(500)).is_ok() {}
    replay(&srv.url, "2020-06-30T00:20:00");
    let later = got
        .recv_timeout(Duration::from_secs(20))
        .expect("events after the restart");
    assert!(
        later["data"]["clock"].as_f64().unwrap() > 1_593_475_800.0,
        "{later}"
    );

    let (s, _) = crate::util::send("DELETE", &format!("{}/v1/hooks/{id}", srv.url), "", "");
    assert_eq!(s, 204);
    let (s, _) = get(&format!("{}/v1/hooks/{id}", srv.url));
    assert_eq!(s, 404);
    let (s, v) = crate::util::send(
        "POST",
        &format!("{}/v1/hooks", srv.url),
        "application/json",
        r#"{"url": "ftp://x", "horizon": 5}"#,
    );
    assert_eq!(s, 422, "{v}");
}

#[test]
fn ttl_expiry_clears_a_watched_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &["--ttl", "1"]);
    let body = r#"[{"id":"a","t":0,"p":[0,0],"v":[1,0],"shape":{"radius":1}},
                   {"id":"b","t":0,"p":[10,0],"v":[-1,0],"shape":{"radius":1}}]"#;
    let (s, v) = crate::util::send(
        "POST",
        &format!("{}/v1/objects", srv.url),
        "application/json",
        body,
    );
    assert_eq!(s, 200, "{v}");
    let rx = events(&format!("{}/v1/watch?horizon=60&hold=0", srv.url));
    let (first, v) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!((first.as_str(), v["a"].as_str()), ("predicted", Some("a")));
    // Nobody writes again: after the TTL both objects expire and the conflict clears.
    loop {
        let (name, v) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("a cleared event");
        if name == "cleared" {
            assert_eq!(v["b"], "b");
            break;
        }
    }
}
