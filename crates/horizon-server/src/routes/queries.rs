//! Predictive queries: all pairs, one object's pairs, and the window query.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use horizon_core::{
    ContactOptions, QueryParams, WindowError, collisions as all_pairs, collisions_of, window_query,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::objects::body_error;
use super::{blocking, query_error};
use crate::AppState;
use crate::error::ApiError;
use crate::params::Params;

fn count(app: &AppState, t0: Instant) {
    app.metrics.query_requests.fetch_add(1, Ordering::Relaxed);
    app.metrics.query_latency.observe(t0.elapsed());
}

/// Time, horizon and margin from the query string; `at` defaults to the database clock.
fn contact_params(p: &Params, clock: Option<f64>) -> Result<QueryParams, ApiError> {
    let horizon = p.required_f64("horizon")?;
    let at = p.f64("at")?.or(clock).unwrap_or(0.0);
    let margin = p.f64("margin")?.unwrap_or(0.0);
    let params = QueryParams::new(at, horizon).with_margin(margin);
    params.contact.validate().map_err(query_error)?;
    Ok(params)
}

/// `GET /v1/collisions`: every pair, over one consistent snapshot.
pub async fn collisions(
    State(app): State<AppState>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    let p = Params::new(q, &["horizon", "at", "margin", "algorithm", "limit"])?;
    let snap = app.store.snapshot();
    let params = contact_params(&p, snap.clock)?.with_algorithm(p.algorithm()?);
    let limit = p.usize("limit")?;
    let answer = blocking(move || all_pairs(&snap.states, &params).map_err(query_error)).await?;
    let total = answer.pairs.len();
    let mut v = serde_json::to_value(&answer)
        .map_err(|e| ApiError::internal("could not encode the answer", e))?;
    if let Some(limit) = limit {
        if let Some(pairs) = v["pairs"].as_array_mut() {
            pairs.truncate(limit);
        }
        v["limit"] = json!(limit);
    }
    v["total_pairs"] = json!(total);
    v["truncated"] = json!(limit.is_some_and(|l| l < total));
    count(&app, t0);
    Ok(Json(v))
}

/// `GET /v1/objects/{id}/collisions`: the pairs involving one object.
pub async fn object_collisions(
    State(app): State<AppState>,
    Path(id): Path<String>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    let p = Params::new(q, &["horizon", "at", "margin"])?;
    let snap = app.store.snapshot();
    let params = contact_params(&p, snap.clock)?;
    // The snapshot is in id order.
    let target = snap
        .states
        .binary_search_by(|s| s.id().cmp(&id))
        .map_err(|_| ApiError::not_found(format!("no object with id `{id}`")))?;
    let answer =
        blocking(move || collisions_of(&snap.states, target, &params).map_err(query_error)).await?;
    count(&app, t0);
    Ok(Json(json!({
        "id": id,
        "at": answer.at,
        "horizon": answer.horizon,
        "margin": answer.margin,
        "pairs": answer.pairs,
        "stats": answer.stats,
    })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowBody {
    min: Vec<f64>,
    max: Vec<f64>,
    horizon: f64,
    at: Option<f64>,
    #[serde(default)]
    margin: f64,
}

/// `POST /v1/queries/window`: objects whose shape enters a box within the horizon.
pub async fn window(
    State(app): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let t0 = Instant::now();
    let body = body.map_err(body_error)?;
    let w: WindowBody = serde_json::from_slice(&body).map_err(|e| {
        if e.classify() == serde_json::error::Category::Data {
            ApiError::unprocessable("invalid_query", e.to_string())
        } else {
            ApiError::bad_request("malformed_json", e.to_string())
        }
    })?;
    let snap = app.store.snapshot();
    let opts =
        ContactOptions::new(w.at.or(snap.clock).unwrap_or(0.0), w.horizon).with_margin(w.margin);
    let (min, max) = (w.min.clone(), w.max.clone());
    let hits = blocking(move || {
        window_query(&snap.states, &min, &max, &opts).map_err(|e| match e {
            WindowError::Query(q) => query_error(q),
            other => ApiError::unprocessable("invalid_query", other.to_string()),
        })
    })
    .await?;
    count(&app, t0);
    Ok(Json(json!({
        "at": opts.at,
        "horizon": opts.horizon,
        "margin": opts.margin,
        "min": w.min,
        "max": w.max,
        "objects": hits,
    })))
}
