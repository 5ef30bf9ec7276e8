//! `GET /v1/watch`: a standing collision query as Server-Sent Events.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use horizon_core::WatchParams;
use tokio::sync::broadcast::error::RecvError;

use super::query_error;
use crate::AppState;
use crate::error::ApiError;
use crate::hub::{BACKLOG, Event, WatchSpec};
use crate::params::{Params, filter_params};

/// Default seconds a cleared conflict stays shown in case it comes back.
const DEFAULT_HOLD: f64 = 30.0;

fn sse(e: &Event) -> SseEvent {
    SseEvent::default().event(e.kind).data(&e.data)
}

/// The current conflicts as `predicted` events, `synced`, then `predicted`, `updated`,
/// `cleared` and `passed` as they happen. A client more than [`BACKLOG`] events behind
/// gets a last `dropped` event and is disconnected.
pub async fn watch(
    State(app): State<AppState>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let p = Params::new(
        q,
        &[
            "horizon",
            "margin",
            "min_speed",
            "exclude_status",
            "max_age",
            "same_group",
            "hold",
        ],
    )?;
    let mut params = WatchParams::new(p.required_f64("horizon")?, p.f64("margin")?.unwrap_or(0.0));
    params.filter = filter_params(&p)?;
    params.validate().map_err(query_error)?;
    let hold = p.f64("hold")?.unwrap_or(DEFAULT_HOLD);
    if hold < 0.0 {
        return Err(ApiError::bad_request(
            "bad_parameter",
            format!("`hold` must be a number >= 0, got {hold}"),
        ));
    }
    let sub = app
        .hub
        .subscribe(WatchSpec { params, hold })
        .await
        .map_err(|e| ApiError::internal("the watch could not start", e))?;
    let initial = stream::iter(sub.initial.into_iter().map(|e| Ok(sse(&e))));
    let changes = stream::unfold(Some(sub.changes), |rx| async move {
        let mut rx = rx?;
        match rx.recv().await {
            Ok(e) => Some((Ok(sse(&e)), Some(rx))),
            Err(RecvError::Lagged(n)) => {
                let last = Event {
                    kind: "dropped",
                    data: serde_json::json!({
                        "reason": format!(
                            "this client fell {n} events behind (more than {BACKLOG}); reconnect to get the current set"
                        )
                    })
                    .to_string(),
                };
                Some((Ok(sse(&Arc::new(last))), None))
            }
            Err(RecvError::Closed) => None,
        }
    });
    Ok(Sse::new(initial.chain(changes)).keep_alive(KeepAlive::default()))
}
