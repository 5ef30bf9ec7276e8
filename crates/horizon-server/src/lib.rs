//! # horizon-server
//!
//! HorizonDB's HTTP API (v1). [`app`] builds the axum router over a [`horizon_store::Store`];
//! it needs no socket, so tests drive it with `tower::ServiceExt::oneshot`. Handlers extract,
//! call the store or the engine, and map the result; collision queries run on the blocking
//! pool over one consistent snapshot, so a big query never stalls ingest.
//!
//! The server knows nothing of grids: it passes an algorithm name to the engine.
#![forbid(unsafe_code)]

mod error;
pub mod hooks;
pub mod hub;
mod metrics;
mod params;
mod routes;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use horizon_datasets::feeds::NmeaDecoder;
use horizon_store::Store;

pub use error::ApiError;
pub use metrics::Metrics;

/// Shared state of every handler.
#[derive(Clone)]
pub struct AppState {
    /// The object table.
    pub store: Arc<Store>,
    /// Request counters and latencies.
    pub metrics: Arc<Metrics>,
    /// AIS decoding state that spans requests: multi-part messages and static data.
    pub nmea: Arc<Mutex<NmeaDecoder>>,
    /// Standing watches (`/v1/watch`).
    pub hub: hub::Hub,
    /// Webhooks (`/v1/hooks`), saved in the data directory.
    pub hooks: hooks::Hooks,
}

impl AppState {
    /// Fresh state over a store; webhooks registered earlier are read back (call
    /// [`hooks::Hooks::resume`] inside the runtime to deliver them).
    pub fn new(store: Arc<Store>) -> Result<Self, String> {
        let hub = hub::Hub::start(&store);
        Ok(AppState {
            hooks: hooks::Hooks::load(store.dir(), hub.clone())?,
            hub,
            store,
            metrics: Arc::new(Metrics::default()),
            nmea: Arc::default(),
        })
    }
}

/// Server settings that are not the store's.
#[derive(Debug, Clone, Copy)]
pub struct ServerConfig {
    /// Largest accepted request body; bigger ones get 413.
    pub max_body_bytes: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_body_bytes: 64 << 20,
        }
    }
}

/// Every route, as `(method, path)` in OpenAPI's path syntax. `api/openapi.yaml` must list
/// exactly these (a test checks), and [`app`] must serve exactly these.
pub const ROUTES: &[(&str, &str)] = &[
    ("POST", "/v1/objects"),
    ("GET", "/v1/objects"),
    ("PUT", "/v1/objects/{id}"),
    ("GET", "/v1/objects/{id}"),
    ("DELETE", "/v1/objects/{id}"),
    ("GET", "/v1/objects/{id}/collisions"),
    ("GET", "/v1/collisions"),
    ("POST", "/v1/queries/window"),
    ("POST", "/v1/ingest/csv"),
    ("POST", "/v1/ingest/nmea"),
    ("GET", "/v1/watch"),
    ("POST", "/v1/hooks"),
    ("GET", "/v1/hooks"),
    ("GET", "/v1/hooks/{id}"),
    ("DELETE", "/v1/hooks/{id}"),
    ("GET", "/"),
    ("GET", "/healthz"),
    ("GET", "/metrics"),
    ("GET", "/openapi.json"),
    ("GET", "/openapi.yaml"),
];

/// The HTTP application.
pub fn app(state: AppState, cfg: ServerConfig) -> Router {
    use routes::{hooks, ingest, meta, objects, queries, watch};
    Router::new()
        .route("/v1/objects", post(objects::post_batch).get(objects::list))
        .route(
            "/v1/objects/{id}",
            get(objects::get_one)
                .put(objects::put_one)
                .delete(objects::delete_one),
        )
        .route(
            "/v1/objects/{id}/collisions",
            get(queries::object_collisions),
        )
        .route("/v1/collisions", get(queries::collisions))
        .route("/v1/queries/window", post(queries::window))
        .route("/v1/ingest/csv", post(ingest::csv))
        .route("/v1/ingest/nmea", post(ingest::nmea))
        .route("/v1/watch", get(watch::watch))
        .route("/v1/hooks", post(hooks::add).get(hooks::list))
        .route("/v1/hooks/{id}", get(hooks::get_one).delete(hooks::delete))
        .route("/", get(meta::monitor_page))
        .route("/healthz", get(meta::healthz))
        .route("/metrics", get(meta::metrics))
        .route("/openapi.json", get(meta::openapi_json))
        .route("/openapi.yaml", get(meta::openapi_yaml))
        .fallback(meta::not_found)
        .method_not_allowed_fallback(meta::method_not_allowed)
        .layer(DefaultBodyLimit::max(cfg.max_body_bytes))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            meta::panicked,
        ))
        .with_state(state)
}

#[cfg(test)]
mod test;
