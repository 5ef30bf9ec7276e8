//! `/v1/ingest/*`: feeds as their sources write them. Unlike `POST /v1/objects` (all or
//! nothing), a feed batch keeps its good records and reports the bad ones: one garbled
//! line must not cost a whole receiver's minute.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};
use horizon_core::{GeoStateInput, Object};
use horizon_datasets::feeds::{CsvLayout, FeedError, FeedRead, read_csv};
use serde_json::{Value, json};

use super::blocking;
use super::objects::body_error;
use crate::AppState;
use crate::error::ApiError;
use crate::params::Params;

fn text(body: &Bytes) -> Result<&str, ApiError> {
    std::str::from_utf8(body)
        .map_err(|e| ApiError::bad_request("bad_body", format!("body is not UTF-8: {e}")))
}

/// Stores what a feed read produced and answers with the counts and the first reasons.
fn store_feed(app: &AppState, read: FeedRead, t0: Instant) -> Result<Value, ApiError> {
    let objects: Vec<Object> = read
        .states
        .iter()
        .map(|s| s.validate().map(Object::from))
        .collect::<Result<_, _>>()
        .map_err(|e| ApiError::internal("a feed state failed validation twice", e))?;
    let accepted = objects.len();
    let ack = app.store.upsert(objects)?;
    let m = &app.metrics;
    m.ingest_requests.fetch_add(1, Ordering::Relaxed);
    m.ingest_states
        .fetch_add(accepted as u64, Ordering::Relaxed);
    m.ingest_latency.observe(t0.elapsed());
    Ok(json!({
        "accepted": accepted,
        "records": read.records,
        "skipped": read.skipped,
        "ignored": read.ignored,
        "reasons": read.reasons,
        "clock": ack.clock,
    }))
}

/// `POST /v1/ingest/csv?format=marinecadastre|generic` (default: detected from the header).
pub async fn csv(
    State(app): State<AppState>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    let p = Params::new(q, &["format"])?;
    let layout = p
        .str("format")
        .map(str::parse::<CsvLayout>)
        .transpose()
        .map_err(|e| ApiError::bad_request("bad_parameter", e))?;
    let body = body.map_err(body_error)?;
    let app2 = app.clone();
    let out = blocking(move || {
        let read = read_csv(text(&body)?, layout).map_err(|e| match e {
            FeedError::Malformed(_) => ApiError::bad_request("malformed_csv", e.to_string()),
            _ => ApiError::unprocessable("bad_csv_header", e.to_string()),
        })?;
        store_feed(&app2, read, t0)
    })
    .await;
    if out.is_err() {
        app.metrics.ingest_rejected.fetch_add(1, Ordering::Relaxed);
    }
    Ok(Json(out?))
}

/// Static fields the decoder has not seen (since a restart, say) come from the stored state
/// of the same vessel, so a position report never strips a known name or hull.
fn carry_static(app: &AppState, s: &mut GeoStateInput) {
    if s.hull.is_some() && s.name.is_some() {
        return;
    }
    if let Some(Object::Geo(old)) = app.store.get(&s.id).as_deref() {
        let old = old.to_input();
        s.hull = s.hull.or(old.hull);
        s.name = s.name.take().or(old.name);
        s.kind = s.kind.take().or(old.kind);
    }
}

/// `POST /v1/ingest/nmea`: AIS sentences, one per line, each with a time (a tag block
/// `\c:<unix time>*hh\`, or a unix time before the sentence or after its checksum).
pub async fn nmea(
    State(app): State<AppState>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    Params::new(q, &[])?;
    let body = body.map_err(body_error)?;
    let app2 = app.clone();
    let out = blocking(move || {
        let text = text(&body)?;
        let mut read = app2
            .nmea
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .decode(text);
        for s in &mut read.states {
            carry_static(&app2, s);
        }
        store_feed(&app2, read, t0)
    })
    .await;
    if out.is_err() {
        app.metrics.ingest_rejected.fetch_add(1, Ordering::Relaxed);
    }
    Ok(Json(out?))
}
