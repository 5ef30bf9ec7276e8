//! A stored object: a metric state or a geographic one, and the queries over a mix of both.
//! Metric and geographic objects live in different spaces, so pairs only form within each.

use std::borrow::Borrow;

use crate::error::{QueryError, StateError};
use crate::filter::PairFilter;
use crate::geo::{GeoState, GeoStateInput, geo_collisions};
use crate::meta::Meta;
use crate::query::{Answer, QueryParams, collisions_filtered, collisions_of, sort_pairs};
use crate::state::{ObjectState, StateInput};

/// One object: its latest state in either form.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    /// Position and velocity in metres (or any consistent unit).
    Metric(ObjectState),
    /// Latitude/longitude, speed and course (boxed: it is twice a metric state's size).
    Geo(Box<GeoState>),
}

/// The input form of either kind of state; serialized, it is the JSON a client writes.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum ObjectInput {
    /// `{"id", "t", "p", "v", ...}`.
    Metric(StateInput),
    /// `{"id", "t", "lat", "lon", "speed", "course", ...}`.
    Geo(GeoStateInput),
}

impl ObjectInput {
    /// Validates into an [`Object`].
    pub fn validate(&self) -> Result<Object, StateError> {
        match self {
            ObjectInput::Metric(s) => s.validate().map(Object::Metric),
            ObjectInput::Geo(g) => g.validate().map(Object::from),
        }
    }
}

impl From<ObjectState> for Object {
    fn from(s: ObjectState) -> Self {
        Object::Metric(s)
    }
}

impl From<GeoState> for Object {
    fn from(g: GeoState) -> Self {
        Object::Geo(Box::new(g))
    }
}

impl Object {
    /// The id.
    pub fn id(&self) -> &str {
        match self {
            Object::Metric(s) => s.id(),
            Object::Geo(g) => g.id(),
        }
    }
    /// Time of the state.
    pub fn t(&self) -> f64 {
        match self {
            Object::Metric(s) => s.t(),
            Object::Geo(g) => g.t(),
        }
    }
    /// Name, kind, group and status.
    pub fn meta(&self) -> &Meta {
        match self {
            Object::Metric(s) => s.meta(),
            Object::Geo(g) => g.meta(),
        }
    }
    /// The input form it was built from.
    pub fn to_input(&self) -> ObjectInput {
        match self {
            Object::Metric(s) => ObjectInput::Metric(s.to_input()),
            Object::Geo(g) => ObjectInput::Geo(g.to_input()),
        }
    }
}

fn split<S: Borrow<Object>>(objects: &[S]) -> (Vec<&ObjectState>, Vec<&GeoState>) {
    let (mut metric, mut geo) = (Vec::new(), Vec::new());
    for o in objects {
        match o.borrow() {
            Object::Metric(s) => metric.push(s),
            Object::Geo(g) => geo.push(&**g),
        }
    }
    (metric, geo)
}

/// Every pair (metric with metric, geographic with geographic) in contact within the
/// horizon that `filter` keeps.
pub fn query_objects<S: Borrow<Object> + Sync>(
    objects: &[S],
    params: &QueryParams,
    filter: &PairFilter,
) -> Result<Answer, QueryError> {
    let (metric, geo) = split(objects);
    if geo.is_empty() {
        return collisions_filtered(&metric, params, filter);
    }
    let geo_answer = geo_collisions(&geo, params, filter)?;
    if metric.is_empty() {
        return Ok(geo_answer);
    }
    let mut answer = collisions_filtered(&metric, params, filter)?;
    answer.stats.absorb(&geo_answer.stats);
    answer.pairs.extend(geo_answer.pairs);
    sort_pairs(&mut answer.pairs);
    Ok(answer)
}

/// The pairs involving object `id`, or `None` if there is no such object.
pub fn collisions_of_object<S: Borrow<Object> + Sync>(
    objects: &[S],
    id: &str,
    params: &QueryParams,
    filter: &PairFilter,
) -> Result<Option<Answer>, QueryError> {
    let (metric, geo) = split(objects);
    if let Some(target) = metric.iter().position(|s| s.id() == id) {
        return collisions_of(&metric, target, params, filter).map(Some);
    }
    if !geo.iter().any(|g| g.id() == id) {
        return Ok(None);
    }
    // Geographic frames are built per query; answer all pairs and keep this object's.
    let mut answer = geo_collisions(&geo, params, filter)?;
    answer.pairs.retain(|p| p.a == id || p.b == id);
    answer.stats.pairs_found = answer.pairs.len() as u64;
    Ok(Some(answer))
}
