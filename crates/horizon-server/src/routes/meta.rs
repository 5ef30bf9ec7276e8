//! Health, metrics, the API contract, and JSON answers for unknown routes and panics.

use std::sync::OnceLock;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;

/// The contract, as committed in `api/openapi.yaml`.
pub const OPENAPI_YAML: &str = include_str!("../../../../api/openapi.yaml");

/// The contract as JSON, converted once.
pub fn openapi_value() -> &'static Value {
    static JSON: OnceLock<Value> = OnceLock::new();
    JSON.get_or_init(|| {
        serde_norway::from_str(OPENAPI_YAML).unwrap_or_else(|e| {
            tracing::error!(error = %e, "api/openapi.yaml does not parse");
            Value::Null
        })
    })
}

/// `GET /`: the monitor page, self-contained (no CDN: control rooms may have no internet).
pub async fn monitor_page() -> axum::response::Html<&'static str> {
    axum::response::Html(include_str!("../../assets/monitor.html"))
}

pub async fn healthz(State(app): State<AppState>) -> Json<Value> {
    Json(json!({"status": "ok", "objects": app.store.stats().objects, "clock": app.store.clock()}))
}

pub async fn metrics(State(app): State<AppState>) -> Response {
    let text = app.metrics.render(app.store.stats());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

pub async fn openapi_yaml() -> Response {
    ([(header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML).into_response()
}

pub async fn openapi_json() -> Json<Value> {
    Json(openapi_value().clone())
}

pub async fn not_found() -> ApiError {
    ApiError::not_found("no such route; see /openapi.json")
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method; see /openapi.json",
    )
}

pub fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a request handler panicked", "panic").into_response()
}
