//! One file per endpoint group.

pub mod geojson;
pub mod hooks;
pub mod ingest;
pub mod meta;
pub mod objects;
pub mod queries;
pub mod watch;

use horizon_core::QueryError;

use crate::error::ApiError;

/// Engine errors come from bad parameters (a negative horizon, a NaN time...).
pub fn query_error(e: QueryError) -> ApiError {
    // No `_` arm: a new engine error must choose its status here.
    match e {
        QueryError::BadHorizon(_)
        | QueryError::BadMargin(_)
        | QueryError::BadAt(_)
        | QueryError::BadCellScale(_)
        | QueryError::BadFilter(_) => ApiError::bad_request("bad_parameter", e.to_string()),
        QueryError::DuplicateId(_) | QueryError::TooManyObjects(_) => {
            ApiError::internal("the store handed the engine an impossible object set", e)
        }
    }
}

/// Runs CPU-heavy or fsync-bound work off the async executor.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal("a worker task failed", e))?
}
