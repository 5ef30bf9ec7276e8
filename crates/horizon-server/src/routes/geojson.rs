//! `format=geojson`: an answer as a GeoJSON FeatureCollection (RFC 7946) that opens in QGIS
//! or a web map. Only geographic objects have a place on a map; metric ones are left out.

use std::sync::Arc;

use axum::Json;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use horizon_core::{Answer, GeoState, LatLon, Object};
use serde_json::{Value, json};

/// Points per predicted track.
const TRACK_POINTS: usize = 16;

fn coord(p: LatLon) -> Value {
    json!([p.lon, p.lat])
}

fn feature(geometry: Value, properties: Value) -> Value {
    json!({"type": "Feature", "geometry": geometry, "properties": properties})
}

/// Each geographic object: its position at `T` and its predicted track over `[T, T + h]`;
/// then each pair: the two positions at first contact and at closest approach.
/// Objects older than `max_age` at `T` are left out, as the query left them out.
pub fn feature_collection(
    answer: &Answer,
    objects: &[Arc<Object>],
    max_age: Option<f64>,
) -> Response {
    let (at, h) = (answer.at, answer.horizon);
    let mut features = Vec::new();
    for o in objects {
        let Object::Geo(g) = &**o else { continue };
        if max_age.is_some_and(|m| at - g.t() > m) {
            continue;
        }
        features.push(object_point(g, at));
        let track: Vec<Value> = (0..=TRACK_POINTS)
            .map(|k| coord(g.position_at(at + h * k as f64 / TRACK_POINTS as f64)))
            .collect();
        features.push(feature(
            json!({"type": "LineString", "coordinates": track}),
            json!({"kind": "track", "id": g.id(), "from": at, "to": at + h}),
        ));
    }
    let mut metric_pairs = 0;
    for p in &answer.pairs {
        let Some(geo) = p.geo else {
            metric_pairs += 1;
            continue;
        };
        let props = |kind: &str, t: f64| {
            json!({
                "kind": kind,
                "a": p.a,
                "b": p.b,
                "t": t,
                "t_contact": p.contact.t_contact,
                "t_separation": p.contact.t_separation,
                "min_distance": p.contact.min_distance,
                "t_min_distance": p.contact.t_min_distance,
                "age_a": p.age_a,
                "age_b": p.age_b,
            })
        };
        features.push(feature(
            json!({"type": "MultiPoint", "coordinates": [coord(geo.contact.a), coord(geo.contact.b)]}),
            props("contact", p.contact.t_contact),
        ));
        features.push(feature(
            json!({"type": "LineString", "coordinates": [coord(geo.closest.a), coord(geo.closest.b)]}),
            props("closest_approach", p.contact.t_min_distance),
        ));
    }
    let body = json!({
        "type": "FeatureCollection",
        "features": features,
        "properties": {
            "at": at,
            "horizon": h,
            "margin": answer.margin,
            "pairs": answer.pairs.len(),
            "metric_pairs_not_shown": metric_pairs,
        },
    });
    ([(header::CONTENT_TYPE, "application/geo+json")], Json(body)).into_response()
}

fn object_point(g: &GeoState, at: f64) -> Value {
    let m = g.meta();
    feature(
        json!({"type": "Point", "coordinates": coord(g.position_at(at))}),
        json!({
            "kind": "object",
            "id": g.id(),
            "name": m.name,
            "group": m.group,
            "status": m.status,
            "speed": g.speed(),
            "t_report": g.t(),
            "age": at - g.t(),
        }),
    )
}
