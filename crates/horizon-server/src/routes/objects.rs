//! `/v1/objects`: batch upsert, one object (PUT / GET / DELETE), and listing.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use horizon_core::{Object, position_at, velocity_at};
use horizon_datasets::{LoadError, LoadErrorKind, Loaded, parse_array, parse_ndjson, parse_one};
use serde_json::{Value, json};

use super::blocking;
use crate::AppState;
use crate::error::ApiError;
use crate::params::Params;

/// How a batch body is written.
enum BatchFormat {
    Array,
    Ndjson,
}

fn batch_format(headers: &HeaderMap) -> Result<BatchFormat, ApiError> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match media.as_str() {
        "application/json" => Ok(BatchFormat::Array),
        "application/x-ndjson" | "application/ndjson" => Ok(BatchFormat::Ndjson),
        _ => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!(
                "Content-Type `{ct}`: send a JSON array as application/json or one state per \
                 line as application/x-ndjson"
            ),
        )),
    }
}

pub fn body_error(e: BytesRejection) -> ApiError {
    let status = e.status();
    let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
        "payload_too_large"
    } else {
        "bad_body"
    };
    ApiError::new(status, code, e.body_text())
}

fn utf8(body: &Bytes) -> Result<&str, ApiError> {
    std::str::from_utf8(body)
        .map_err(|e| ApiError::bad_request("malformed_json", format!("body is not UTF-8: {e}")))
}

fn load_error(e: LoadError) -> ApiError {
    let msg = format!("states[{}]: {} ({})", e.index, e.message, e.location);
    match e.kind {
        LoadErrorKind::Syntax => ApiError::bad_request("malformed_json", msg),
        LoadErrorKind::Invalid => ApiError::unprocessable("invalid_state", msg),
    }
}

/// The JSON form of a state, with its prediction at `at` if asked.
pub fn state_json(o: &Object, at: Option<f64>) -> Value {
    let mut v = json!({ "state": input_json(o) });
    if let Some(at) = at {
        v["predicted"] = match o {
            Object::Metric(s) => {
                let d = s.dims();
                json!({
                    "at": at,
                    "position": &position_at(s, at)[..d],
                    "velocity": &velocity_at(s, at)[..d],
                })
            }
            Object::Geo(g) => {
                let p = g.position_at(at);
                json!({"at": at, "lat": p.lat, "lon": p.lon, "alt": g.alt_at(at)})
            }
        };
    }
    v
}

/// A state in the form clients write it.
fn input_json(o: &Object) -> Value {
    serde_json::to_value(o.to_input()).unwrap_or(Value::Null)
}

/// `POST /v1/objects`: all or nothing, acknowledged once durable.
pub async fn post_batch(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    let result = async {
        let body = body.map_err(body_error)?;
        let format = batch_format(&headers)?;
        let store = app.store.clone();
        blocking(move || {
            let text = utf8(&body)?;
            let Loaded { states, replaced } = match format {
                BatchFormat::Array => parse_array(text),
                BatchFormat::Ndjson => parse_ndjson(text),
            }
            .map_err(load_error)?;
            let n = states.len() + replaced;
            let ack = store.upsert(states)?;
            Ok((n, ack.clock))
        })
        .await
    }
    .await;
    let m = &app.metrics;
    match result {
        Ok((n, clock)) => {
            m.ingest_requests.fetch_add(1, Ordering::Relaxed);
            m.ingest_states.fetch_add(n as u64, Ordering::Relaxed);
            m.ingest_latency.observe(t0.elapsed());
            Ok(Json(json!({"accepted": n, "clock": clock})))
        }
        Err(e) => {
            m.ingest_rejected.fetch_add(1, Ordering::Relaxed);
            Err(e)
        }
    }
}

/// `PUT /v1/objects/{id}`: one state; its `id` may be omitted, but must match if given.
pub async fn put_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    let body = body.map_err(body_error)?;
    let mut value: Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request("malformed_json", e.to_string()))?;
    let Some(obj) = value.as_object_mut() else {
        return Err(ApiError::bad_request(
            "malformed_json",
            "expected one state as a JSON object",
        ));
    };
    match obj.get("id") {
        None => {
            obj.insert("id".into(), Value::String(id.clone()));
        }
        Some(Value::String(given)) if *given == id => {}
        Some(other) => {
            return Err(ApiError::bad_request(
                "id_mismatch",
                format!("field `id` is {other} but the path says `{id}`"),
            ));
        }
    }
    let state = parse_one(&value.to_string()).map_err(|(kind, message)| {
        load_error(LoadError {
            location: "the body".into(),
            line: 1,
            index: 0,
            message,
            kind,
        })
    })?;
    let store = app.store.clone();
    let ack = blocking(move || Ok(store.upsert(vec![state])?)).await?;
    app.metrics.ingest_requests.fetch_add(1, Ordering::Relaxed);
    app.metrics.ingest_states.fetch_add(1, Ordering::Relaxed);
    app.metrics.ingest_latency.observe(t0.elapsed());
    Ok(Json(json!({"accepted": 1, "clock": ack.clock})))
}

/// `GET /v1/objects/{id}?at=s`.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["at"])?;
    let at = p.f64("at")?;
    let s = app
        .store
        .get(&id)
        .ok_or_else(|| ApiError::not_found(format!("no object with id `{id}`")))?;
    Ok(Json(state_json(&s, at)))
}

/// `DELETE /v1/objects/{id}`.
pub async fn delete_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let store = app.store.clone();
    let key = id.clone();
    if blocking(move || Ok(store.delete(&key)?)).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found(format!("no object with id `{id}`")))
    }
}

/// Largest page of `GET /v1/objects`.
const MAX_PAGE: usize = 10_000;

/// `GET /v1/objects?limit=&after=`: pages in id order.
pub async fn list(
    State(app): State<AppState>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["limit", "after"])?;
    let limit = p.usize("limit")?.unwrap_or(100);
    if limit == 0 || limit > MAX_PAGE {
        return Err(ApiError::bad_request(
            "bad_parameter",
            format!("`limit` must be 1..={MAX_PAGE}, got {limit}"),
        ));
    }
    let page = app.store.list(p.str("after"), limit);
    let next = (page.len() == limit).then(|| page[page.len() - 1].id().to_string());
    let objects: Vec<Value> = page.iter().map(|s| input_json(s)).collect();
    Ok(Json(json!({"objects": objects, "next_after": next})))
}
