//! In-process tests of the router (no socket): the contract, errors, and round trips.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use horizon_store::{Store, StoreConfig};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    state: AppState,
    cfg: ServerConfig,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path(), StoreConfig::default()).unwrap();
    Fixture {
        _dir: dir,
        state: AppState::new(Arc::new(store)).unwrap(),
        cfg: ServerConfig {
            max_body_bytes: 4096,
        },
    }
}

impl Fixture {
    async fn call(
        &self,
        method: &str,
        uri: &str,
        ct: Option<&str>,
        body: &str,
    ) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(ct) = ct {
            req = req.header("content-type", ct);
        }
        let resp = app(self.state.clone(), self.cfg)
            .oneshot(req.body(Body::from(body.to_string())).unwrap())
            .await
            .unwrap();
        let status = resp.status();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        let v = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, v)
    }
    async fn get(&self, uri: &str) -> (StatusCode, Value) {
        self.call("GET", uri, None, "").await
    }
    async fn post_json(&self, uri: &str, body: &str) -> (StatusCode, Value) {
        self.call("POST", uri, Some("application/json"), body).await
    }
    fn count(&self) -> usize {
        self.state.store.stats().objects
    }
}

const TWO: &str = r#"[{"id":"a","t":0,"p":[0,0],"v":[1,0],"shape":{"radius":1}},
                      {"id":"b","t":0,"p":[10,0],"v":[-1,0],"shape":{"radius":1}}]"#;

#[test]
fn routes_and_the_openapi_contract_agree() {
    let spec = routes::meta::openapi_value();
    let mut in_spec = BTreeSet::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for method in ["get", "put", "post", "delete", "patch"] {
            if item.get(method).is_some() {
                in_spec.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    let served: BTreeSet<_> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(served, in_spec);
}

#[tokio::test]
async fn every_listed_route_is_served() {
    let f = fixture();
    for (method, path) in ROUTES {
        let uri = path.replace("{id}", "nobody");
        let (status, body) = f.call(method, &uri, Some("application/json"), "").await;
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert!(
            !(status == StatusCode::NOT_FOUND && body.to_string().contains("no such route")),
            "{method} {path} is not routed"
        );
    }
    let (status, body) = f.get("/v2/nothing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "not_found");
    let (status, body) = f.call("PATCH", "/v1/collisions", None, "").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(body["error"]["code"], "method_not_allowed");
}

#[tokio::test]
async fn write_read_list_delete() {
    let f = fixture();
    let (s, v) = f.post_json("/v1/objects", TWO).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v, json!({"accepted": 2, "clock": 0.0}));
    let nd =
        "{\"id\":\"c\",\"t\":5,\"p\":[0,50],\"v\":[0,0]}\n\n{\"id\":\"d\",\"t\":4,\"p\":[3,50]}\n";
    let (s, v) = f
        .call(
            "POST",
            "/v1/objects",
            Some("application/x-ndjson; charset=utf-8"),
            nd,
        )
        .await;
    assert_eq!(
        (s, v["accepted"].clone(), v["clock"].clone()),
        (StatusCode::OK, json!(2), json!(5.0))
    );
    let (s, v) = f.get("/v1/objects/a?at=2").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["state"]["p"], json!([0.0, 0.0]));
    assert_eq!(v["predicted"]["position"], json!([2.0, 0.0]));
    let (_, v) = f.get("/v1/objects?limit=3").await;
    let ids: Vec<_> = v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].clone())
        .collect();
    assert_eq!(ids, [json!("a"), json!("b"), json!("c")]);
    assert_eq!(v["next_after"], "c");
    let (_, v) = f.get("/v1/objects?limit=3&after=c").await;
    assert_eq!(v["objects"].as_array().unwrap().len(), 1);
    assert_eq!(v["next_after"], Value::Null);
    let (s, v) = f
        .call(
            "PUT",
            "/v1/objects/e",
            Some("application/json"),
            r#"{"t":1,"p":[1,2,3]}"#,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        f.get("/v1/objects/e").await.1["state"]["p"],
        json!([1.0, 2.0, 3.0])
    );
    assert_eq!(
        f.call("DELETE", "/v1/objects/e", None, "").await.0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        f.call("DELETE", "/v1/objects/e", None, "").await.0,
        StatusCode::NOT_FOUND
    );
    let (s, v) = f.get("/v1/objects/e").await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found"))
    );
}

#[tokio::test]
async fn queries() {
    let f = fixture();
    f.post_json("/v1/objects", TWO).await;
    let (s, v) = f.get("/v1/collisions?horizon=10").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["pairs"][0]["t_contact"], 4.0);
    assert_eq!(v["algorithm"], "grid");
    assert_eq!(v["total_pairs"], 1);
    assert_eq!(v["truncated"], false);
    for alg in ["rtree", "brute"] {
        let (_, w) = f
            .get(&format!("/v1/collisions?horizon=10&algorithm={alg}"))
            .await;
        assert_eq!(w["pairs"], v["pairs"]);
    }
    let (_, v) = f.get("/v1/collisions?horizon=10&limit=0").await;
    assert_eq!(
        (v["pairs"].as_array().unwrap().len(), &v["truncated"]),
        (0, &json!(true))
    );
    let (_, v) = f.get("/v1/collisions?horizon=3").await;
    assert!(v["pairs"].as_array().unwrap().is_empty());
    let (_, v) = f.get("/v1/collisions?horizon=1&at=3.5&margin=1").await;
    assert_eq!(v["pairs"][0]["t_contact"], 3.5);
    let (s, v) = f.get("/v1/objects/a/collisions?horizon=10").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["pairs"][0]["b"], "b");
    assert_eq!(
        f.get("/v1/objects/zz/collisions?horizon=10").await.0,
        StatusCode::NOT_FOUND
    );
    let (s, v) = f
        .post_json(
            "/v1/queries/window",
            r#"{"min":[4,-1],"max":[6,1],"horizon":10}"#,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ids: Vec<_> = v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].clone())
        .collect();
    assert_eq!(ids, [json!("a"), json!("b")]);
    assert_eq!(v["objects"][0]["t_enter"], 3.0);
    let (s, body) = f.get("/metrics").await;
    assert_eq!(s, StatusCode::OK);
    let text = body.as_str().unwrap();
    assert!(text.contains("horizondb_objects 2"));
    assert!(text.contains("horizondb_query_requests_total"));
    assert!(text.contains("horizondb_request_seconds_bucket{kind=\"ingest\",le=\"+Inf\"} 1"));
    let (s, v) = f.get("/healthz").await;
    assert_eq!((s, &v["status"]), (StatusCode::OK, &json!("ok")));
    let (s, v) = f.get("/openapi.json").await;
    assert_eq!((s, &v["openapi"]), (StatusCode::OK, &json!("3.0.3")));
    assert!(
        f.get("/openapi.yaml")
            .await
            .1
            .as_str()
            .unwrap()
            .starts_with("openapi: 3.0.3")
    );
}

type ErrorCase<'a> = (
    &'a str,
    &'a str,
    Option<&'a str>,
    String,
    StatusCode,
    &'a str,
    &'a str,
);

#[tokio::test]
async fn client_errors_are_4xx_json_and_change_nothing() {
    let f = fixture();
    f.post_json("/v1/objects", TWO).await;
    let good = r#"{"id":"x","t":0,"p":[0,0]}"#;
    // (method, uri, content type, body, status, error code, text the message must contain)
    let cases: Vec<ErrorCase> = vec![
        (
            "POST",
            "/v1/objects",
            Some("application/json"),
            "[{\"id\":".into(),
            StatusCode::BAD_REQUEST,
            "malformed_json",
            "",
        ),
        (
            "POST",
            "/v1/objects",
            Some("application/json"),
            good.into(),
            StatusCode::BAD_REQUEST,
            "malformed_json",
            "array",
        ),
        (
            "POST",
            "/v1/objects",
            Some("text/plain"),
            format!("[{good}]"),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "text/plain",
        ),
        (
            "POST",
            "/v1/objects",
            None,
            format!("[{good}]"),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "",
        ),
        (
            "POST",
            "/v1/objects",
            Some("application/json"),
            format!("[{good},{{\"id\":\"y\",\"t\":0,\"p\":[0,NaN]}}]"),
            StatusCode::BAD_REQUEST,
            "malformed_json",
            "states[1]",
        ),
        (
            "POST",
            "/v1/objects",
            Some("application/json"),
            format!("[{good},{{\"id\":\"y\",\"t\":0,\"p\":[0,1e999]}}]"),
            StatusCode::BAD_REQUEST,
            "malformed_json",
            "states[1]: field `p[1]`: number out of range",
        ),
        (
            "POST",
            "/v1/objects",
            Some("application/json"),
            format!("[{good},{{\"id\":\"y\",\"t\":0,\"p\":[0,1],\"v\":[1]}}]"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_state",
            "states[1]: field `v`",
        ),
        (
            "POST",
            "/v1/objects",
            Some("application/x-ndjson"),
            format!("{good}\n{{\"id\":\"y\",\"t\":0,\"p\":[0,1],\"shape\":{{\"radius\":-2}}}}"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_state",
            "states[1]: field `shape.radius`",
        ),
        (
            "POST",
            "/v1/objects",
            Some("application/json"),
            format!("[{}]", "x".repeat(5000)),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "",
        ),
        (
            "PUT",
            "/v1/objects/q",
            Some("application/json"),
            r#"{"id":"other","t":0,"p":[0,0]}"#.into(),
            StatusCode::BAD_REQUEST,
            "id_mismatch",
            "other",
        ),
        (
            "PUT",
            "/v1/objects/q",
            Some("application/json"),
            r#"{"t":0,"p":[0,0],"mass":1}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_state",
            "`force`",
        ),
        (
            "GET",
            "/v1/collisions?horizon=-1",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "horizon",
        ),
        (
            "GET",
            "/v1/collisions?horizon=1&margin=-1",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "margin",
        ),
        (
            "GET",
            "/v1/collisions?horizon=NaN",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "horizon",
        ),
        (
            "GET",
            "/v1/collisions?horizon=inf",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "horizon",
        ),
        (
            "GET",
            "/v1/collisions",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "missing_parameter",
            "horizon",
        ),
        (
            "GET",
            "/v1/collisions?horizon=1&algorithm=quadtree",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "quadtree",
        ),
        (
            "GET",
            "/v1/collisions?horizn=1",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "unknown_parameter",
            "horizn",
        ),
        (
            "GET",
            "/v1/objects?limit=0",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "limit",
        ),
        (
            "GET",
            "/v1/objects/a?at=abc",
            None,
            String::new(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "at",
        ),
        (
            "POST",
            "/v1/queries/window",
            Some("application/json"),
            r#"{"min":[0],"max":[1],"horizon":1}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_query",
            "2 or 3",
        ),
        (
            "POST",
            "/v1/queries/window",
            Some("application/json"),
            r#"{"min":[0,0],"max":[1,1],"horizon":-1}"#.into(),
            StatusCode::BAD_REQUEST,
            "bad_parameter",
            "horizon",
        ),
        (
            "POST",
            "/v1/queries/window",
            Some("application/json"),
            r#"{"min":[0,0],"max":[1,1]}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_query",
            "horizon",
        ),
        (
            "POST",
            "/v1/queries/window",
            Some("application/json"),
            "{".into(),
            StatusCode::BAD_REQUEST,
            "malformed_json",
            "",
        ),
    ];
    for (method, uri, ct, body, status, code, needle) in cases {
        let (s, v) = f.call(method, uri, ct, &body).await;
        assert_eq!(s, status, "{method} {uri} {body:.80}: {v}");
        assert_eq!(v["error"]["code"], code, "{method} {uri}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains(needle),
            "{method} {uri}: `{msg}` lacks `{needle}`"
        );
        assert_eq!(f.count(), 2, "{method} {uri} changed the store");
    }
    assert!(f.state.store.get("x").is_none());
}

#[tokio::test]
async fn a_watch_client_that_falls_behind_gets_a_last_dropped_event() {
    let f = fixture();
    let req = Request::builder()
        .uri("/v1/watch?horizon=10&hold=0")
        .body(Body::empty())
        .unwrap();
    let resp = app(f.state.clone(), f.cfg).oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    // More conflicts at once than a client may fall behind by, and the client reads nothing
    // until they are all out.
    let n = crate::hub::BACKLOG + 500;
    let objects: Vec<horizon_core::Object> = (0..n)
        .flat_map(|i| {
            let x = 1000.0 * i as f64;
            [("a", x), ("b", x + 1.0)].map(|(s, x)| {
                horizon_core::StateInput::new(format!("p{i}{s}"), 0.0, &[x, 0.0], &[])
                    .with_radius(1.0)
                    .validate()
                    .unwrap()
                    .into()
            })
        })
        .collect();
    f.state.store.upsert(objects).unwrap();
    // A second subscriber to the same watch is answered only after the watch thread has
    // applied that write (one queue, in order): by then the first client is far behind.
    let mut params = horizon_core::WatchParams::new(10.0, 0.0);
    params.lookahead = 10.0;
    let spec = crate::hub::WatchSpec { params, hold: 0.0 };
    let second = f.state.hub.subscribe(spec).await.unwrap();
    assert!(second.initial.len() > crate::hub::BACKLOG);
    let text = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        resp.into_body().collect(),
    )
    .await
    .expect("the stream ends")
    .unwrap()
    .to_bytes();
    let text = String::from_utf8_lossy(&text);
    let last = text.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("event: dropped"), "{last}");
    assert!(
        last.contains("fell") && last.contains("reconnect"),
        "{last}"
    );
    assert!(text.starts_with("event: synced"), "{}", &text[..80]);
}
