//! `/v1/hooks`: register, list, inspect and remove webhooks.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::objects::body_error;
use crate::AppState;
use crate::error::ApiError;
use crate::hooks::HookSpec;

/// `POST /v1/hooks`: `{"url", "horizon", "margin", "min_speed", "exclude_status", "max_age",
/// "same_group", "hold"}`.
pub async fn add(
    State(app): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let body = body.map_err(body_error)?;
    let spec: HookSpec = serde_json::from_slice(&body).map_err(|e| {
        if e.classify() == serde_json::error::Category::Data {
            ApiError::unprocessable("invalid_hook", e.to_string())
        } else {
            ApiError::bad_request("malformed_json", e.to_string())
        }
    })?;
    spec.watch()
        .map_err(|e| ApiError::unprocessable("invalid_hook", e))?;
    let view = app
        .hooks
        .add(spec)
        .map_err(|e| ApiError::internal("the hook could not be saved", e))?;
    Ok((StatusCode::CREATED, Json(json!(view))))
}

/// `GET /v1/hooks`.
pub async fn list(State(app): State<AppState>) -> Json<Value> {
    Json(json!({"hooks": app.hooks.list()}))
}

/// `GET /v1/hooks/{id}`.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    app.hooks
        .list()
        .into_iter()
        .find(|h| h.id == id)
        .map(|h| Json(json!(h)))
        .ok_or_else(|| ApiError::not_found(format!("no hook with id `{id}`")))
}

/// `DELETE /v1/hooks/{id}`.
pub async fn delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    match app.hooks.remove(&id) {
        Ok(true) => Ok(StatusCode::NO_CONTENT),
        Ok(false) => Err(ApiError::not_found(format!("no hook with id `{id}`"))),
        Err(e) => Err(ApiError::internal("the hook could not be removed", e)),
    }
}
