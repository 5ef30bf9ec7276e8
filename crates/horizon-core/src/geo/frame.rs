//! Local metric frames for geographic objects, and the all-pairs query over them.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::state::GeoState;
use super::wgs84::{V3, add, dot, enu_basis, norm, scale, sub, to_ecef, to_geodetic};
use super::{PairGeo, PairPositions};
use crate::error::QueryError;
use crate::filter::PairFilter;
use crate::query::{Answer, QueryParams, QueryStats, all_pairs_owned, sort_pairs};
use crate::state::{ObjectState, Shape};

/// Smallest tile edge, metres. Larger tiles mean fewer frames and larger projection error.
pub(crate) const MIN_TILE: f64 = 200_000.0;

/// Slack on the guest test for the projection's shortening of distances (≤ 1% within any
/// frame a tile produces) and for roundoff.
pub(crate) const GUEST_SLACK: f64 = 1.02;

/// The tangent plane at one point: x east, y north, metres; z is altitude.
pub(crate) struct Frame {
    origin: V3,
    east: V3,
    north: V3,
}

impl Frame {
    pub(crate) fn at(lat: f64, lon: f64) -> Frame {
        let [east, north, _] = enu_basis(lat, lon);
        Frame {
            origin: to_ecef(lat, lon),
            east,
            north,
        }
    }

    /// The frame of a tile: tangent at the surface point below the tile's centre, so a
    /// pair's numbers depend only on its owner's tile (a watch reproduces them exactly).
    pub(crate) fn of_tile(key: [i64; 3], edge: f64) -> Frame {
        let centre = key.map(|k| (k as f64 + 0.5) * edge);
        let (lat, lon) = to_geodetic(centre);
        Frame::at(lat, lon)
    }

    fn xy(&self, v: V3) -> [f64; 2] {
        [dot(v, self.east), dot(v, self.north)]
    }

    /// The state in this frame. The projection is linear, so the motion stays a polynomial
    /// of the same degree; a box is widened to cover its rotation into the frame's axes.
    pub(crate) fn project(&self, g: &GeoState) -> ObjectState {
        let m = g.ecef_motion();
        let [x, y] = self.xy(sub(m.p, self.origin));
        let [vx, vy] = self.xy(m.v);
        let [ax, ay] = self.xy(m.a);
        let (shape, _) = g.footprint();
        let shape = match shape {
            Shape::Box(w) => {
                let [ex, ey] = self.xy(m.basis[0]);
                let len = ex.hypot(ey);
                let (c, s) = ((ex / len).abs(), (ey / len).abs());
                Shape::Box([w[0] * c + w[1] * s, w[0] * s + w[1] * c, w[2]])
            }
            other => other,
        };
        ObjectState::from_parts(
            g.id().to_string(),
            g.t(),
            [x, y, m.z[0]],
            [vx, vy, m.z[1]],
            [ax, ay, m.z[2]],
            shape,
            g.shared_meta(),
        )
    }
}

/// How far an object's footprint can get from its position at `T` within the horizon,
/// plus half the margin: two objects farther apart than the sum of their reaches never meet.
pub(crate) fn reach(g: &GeoState, at: f64, horizon: f64, margin: f64) -> (V3, f64) {
    let m = g.ecef_motion();
    let dt = at - g.t();
    let v = add(m.v, scale(m.a, dt));
    let extent = match g.footprint().0 {
        // The frame's box covers the rotated box: at most √2 × its horizontal half-diagonal.
        Shape::Box(w) => std::f64::consts::SQRT_2 * w[0].hypot(w[1]),
        Shape::Sphere(r) => r,
        Shape::Point => 0.0,
    };
    let r = norm(v) * horizon + 0.5 * norm(m.a) * horizon * horizon + extent + 0.5 * margin;
    (m.at(dt), r)
}

pub(crate) fn tile_of(p: V3, edge: f64) -> [i64; 3] {
    p.map(|x| (x / edge).floor() as i64)
}

fn distance_to_tile(p: V3, key: [i64; 3], edge: f64) -> f64 {
    let mut d2 = 0.0;
    for j in 0..3 {
        let (lo, hi) = (key[j] as f64 * edge, (key[j] + 1) as f64 * edge);
        let out = (lo - p[j]).max(p[j] - hi).max(0.0);
        d2 += out * out;
    }
    d2.sqrt()
}

/// Every pair of geographic objects that comes into contact within `[T, T + h]`, each
/// answered in a local frame (see the module documentation), with positions in lat/lon.
pub fn geo_collisions<S: Borrow<GeoState> + Sync>(
    objects: &[S],
    params: &QueryParams,
    filter: &PairFilter,
) -> Result<Answer, QueryError> {
    params.contact.validate()?;
    filter.validate()?;
    let (at, h, m) = (
        params.contact.at,
        params.contact.horizon,
        params.contact.margin,
    );
    let live: Vec<&GeoState> = objects
        .iter()
        .map(Borrow::borrow)
        .filter(|g| filter.max_age.is_none_or(|max| at - g.t() <= max))
        .collect();
    let placed: Vec<(V3, f64)> = live.par_iter().map(|g| reach(g, at, h, m)).collect();
    let reach_max = placed.iter().map(|p| p.1).fold(0.0, f64::max);
    if !reach_max.is_finite() {
        return Err(QueryError::BadFilter(
            "a geographic state moves too far to place in any frame".into(),
        ));
    }
    // Tiles are always MIN_TILE wide, so a pair's frame is never far from its owner; guests
    // come from as many tiles around as the largest reach needs.
    let edge = MIN_TILE;
    let mut tiles: BTreeMap<[i64; 3], Vec<usize>> = BTreeMap::new();
    for (i, (p, _)) in placed.iter().enumerate() {
        tiles.entry(tile_of(*p, edge)).or_default().push(i);
    }
    let guest_reach = |b: usize| (placed[b].1 + reach_max) * GUEST_SLACK + 1.0;
    let k = ((2.0 * GUEST_SLACK * reach_max + 1.0) / edge).ceil() as i64;
    let offsets = (2 * k + 1).checked_pow(3).unwrap_or(i64::MAX);

    let mut stats = QueryStats::default();
    let mut pairs = Vec::new();
    for (&key, home) in &tiles {
        let frame = Frame::of_tile(key, edge);
        let mut members = home.clone();
        let mut take = |others: &Vec<usize>| {
            // A guest is any object that could reach some object of this tile.
            members.extend(
                others
                    .iter()
                    .copied()
                    .filter(|&b| distance_to_tile(placed[b].0, key, edge) <= guest_reach(b)),
            );
        };
        if offsets <= tiles.len() as i64 {
            for dk in neighbours(k) {
                let nk = [key[0] + dk[0], key[1] + dk[1], key[2] + dk[2]];
                if let Some(others) = tiles.get(&nk) {
                    take(others);
                }
            }
        } else {
            // Reaches span more tiles than there are: look at every other tile.
            for (_, others) in tiles.iter().filter(|(nk, _)| **nk != key) {
                take(others);
            }
        }
        let states: Vec<ObjectState> = members
            .par_iter()
            .map(|&i| frame.project(live[i]))
            .collect();
        let is_home: Vec<bool> = (0..members.len()).map(|k| k < home.len()).collect();
        let part = all_pairs_owned(&states, params, filter, Some(&is_home))?;
        stats.absorb(&part.stats);
        pairs.extend(part.pairs);
    }

    let by_id: HashMap<&str, &GeoState> = live.iter().map(|g| (g.id(), *g)).collect();
    pairs.par_iter_mut().for_each(|p| {
        let (a, b) = (by_id[p.a.as_str()], by_id[p.b.as_str()]);
        let at_time = |s: f64| PairPositions {
            a: a.position_at(s),
            b: b.position_at(s),
        };
        p.geo = Some(PairGeo {
            contact: at_time(p.contact.t_contact),
            closest: at_time(p.contact.t_min_distance),
        });
    });
    sort_pairs(&mut pairs);
    stats.objects = objects.len() as u64;
    stats.objects_stale = (objects.len() - live.len()) as u64;
    Ok(Answer {
        at,
        horizon: h,
        margin: m,
        algorithm: params.algorithm,
        pairs,
        stats,
    })
}

/// The tiles within `k` of one tile, itself excepted.
fn neighbours(k: i64) -> impl Iterator<Item = [i64; 3]> {
    (-k..=k)
        .flat_map(move |x| (-k..=k).flat_map(move |y| (-k..=k).map(move |z| [x, y, z])))
        .filter(|d| *d != [0, 0, 0])
}
