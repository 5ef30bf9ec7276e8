//! API errors: `{"error":{"code":"...","message":"..."}}` with the right status.
//!
//! Client mistakes are 4xx with a message naming the problem; server failures are 5xx with
//! a generic message (the details go to the log, not to the client).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use horizon_store::StoreError;
use serde_json::json;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }
    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    fn logged(self, e: &StoreError) -> Self {
        tracing::error!(error = %e, "{}", self.message);
        self
    }
    pub fn internal(what: &str, detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "{what}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("{what}; see the server log"),
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        // No `_` arm: a new store error must choose its status here.
        match e {
            StoreError::Io { .. } => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "storage_unavailable",
                "the write could not be made durable; nothing was acknowledged",
            )
            .logged(&e),
            StoreError::Corrupt { .. } | StoreError::Locked(_) => {
                ApiError::internal("storage failure", e)
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}
