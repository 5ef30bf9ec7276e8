//! The all-pairs predictive collision query: `collisions(states, params) -> Answer`.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use crate::broad::{
    BroadPhase, BroadReport, Brute, Grid, GridParams, JoinOut, RTreeJoin, Scene, timed,
};
use crate::contact::{ContactOptions, PairContact};
use crate::error::QueryError;
use crate::state::ObjectState;

/// Which broad phase finds the candidate pairs. All three return identical answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Algorithm {
    /// GPCD's adaptive grid (the default).
    #[default]
    Grid,
    /// R-tree self-join over the swept boxes (`rstar`): the baseline.
    Rtree,
    /// Every pair: O(n²), the oracle.
    Brute,
}

impl Algorithm {
    /// All algorithms, for comparisons.
    pub const ALL: [Algorithm; 3] = [Algorithm::Grid, Algorithm::Rtree, Algorithm::Brute];

    /// The name used on the command line and in answers.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Grid => "grid",
            Algorithm::Rtree => "rtree",
            Algorithm::Brute => "brute",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is not `grid`, `rtree` or `brute`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown algorithm `{0}`: expected grid, rtree or brute")]
pub struct UnknownAlgorithm(pub String);

impl FromStr for Algorithm {
    type Err = UnknownAlgorithm;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| UnknownAlgorithm(s.to_string()))
    }
}

/// Everything a query needs besides the states.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryParams {
    /// Query time, horizon and margin.
    pub contact: ContactOptions,
    /// The broad phase.
    pub algorithm: Algorithm,
    /// Grid tuning (used by [`Algorithm::Grid`]).
    pub grid: GridParams,
}

impl QueryParams {
    /// Grid query over `[at, at + horizon]`, no margin.
    pub fn new(at: f64, horizon: f64) -> Self {
        QueryParams {
            contact: ContactOptions::new(at, horizon),
            algorithm: Algorithm::Grid,
            grid: GridParams::default(),
        }
    }
    /// Sets the margin.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.contact.margin = margin;
        self
    }
    /// Sets the algorithm.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }
    /// Sets the grid tuning.
    pub fn with_grid(mut self, grid: GridParams) -> Self {
        self.grid = grid;
        self
    }
}

/// One pair in the answer.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CollisionPair {
    /// The bytewise smaller id.
    pub a: String,
    /// The bytewise larger id.
    pub b: String,
    /// Contact times and closest approach.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub contact: PairContact,
}

/// Prune power per stage, in percent (GPCD eq. 5: (before − after) / before × 100).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PrunePower {
    /// Projection-overlap test, of the candidate pairs.
    pub projection: f64,
    /// Time-interval test, of the pairs that passed the projection test.
    pub time_interval: f64,
    /// Exact solve, of the pairs that reached it.
    pub exact: f64,
    /// All stages together, of the candidate pairs.
    pub total: f64,
}

/// Seconds spent in each phase of a query.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PhaseSeconds {
    /// Propagating states to `T` and computing swept boxes.
    pub prepare: f64,
    /// Building the grid or the tree.
    pub index: f64,
    /// Enumerating candidates, filters and exact solves.
    pub join: f64,
    /// Naming, ordering the answer.
    pub finish: f64,
}

/// Statistics of one query.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct QueryStats {
    /// Objects in the query.
    pub objects: u64,
    /// Grid cell size per axis (grid only).
    pub cell_size: Option<[f64; 3]>,
    /// Cells spanned per axis (grid only).
    pub cells_per_axis: Option<[u32; 3]>,
    /// Non-empty grid cells (grid only).
    pub cells_used: Option<u64>,
    /// (object, cell) entries written (grid only).
    pub grid_entries: Option<u64>,
    /// Objects over the cell cap, indexed apart (grid only).
    pub large_objects: Option<u64>,
    /// Bytes of the query's main working buffers (grid only): state references and swept
    /// boxes (56 B per object) plus the grid's entries, flags and histograms.
    pub working_bytes: Option<u64>,
    /// Distinct pairs the broad phase proposed.
    pub candidate_pairs: u64,
    /// Removed by the projection-overlap test.
    pub pruned_projection: u64,
    /// Removed by the time-interval test.
    pub pruned_time_interval: u64,
    /// Pairs that reached the exact solver.
    pub exact_solves: u64,
    /// Pairs in the answer.
    pub pairs_found: u64,
    /// GPCD eq. (5) per stage.
    pub prune_power: PrunePower,
    /// Time per phase.
    pub phase_seconds: PhaseSeconds,
    /// The whole query.
    pub query_seconds: f64,
}

/// The answer: what was asked, the pairs ordered by `t_contact`, then `a`, then `b`, and
/// statistics. Serialized, this is the JSON answer of the CLI and of the HTTP API.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Answer {
    /// Query time `T`.
    pub at: f64,
    /// Horizon `h`.
    pub horizon: f64,
    /// Safety margin.
    pub margin: f64,
    /// The broad phase used.
    pub algorithm: Algorithm,
    /// Every pair that touches within the horizon.
    pub pairs: Vec<CollisionPair>,
    /// What it took.
    pub stats: QueryStats,
}

/// Every pair of `states` that comes into contact within `[T, T + h]`.
///
/// Ids must be unique; a duplicated id that takes part in a contact is reported as
/// [`QueryError::DuplicateId`] (checking every id up front would cost a hash of all ids).
pub fn collisions<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    params: &QueryParams,
) -> Result<Answer, QueryError> {
    let (scene, prepare) = prepare(states, params)?;
    let (out, report) = match params.algorithm {
        Algorithm::Grid => Grid(params.grid).join(&scene),
        Algorithm::Rtree => RTreeJoin.join(&scene),
        Algorithm::Brute => Brute.join(&scene),
    };
    answer(states, out, report, prepare, params)
}

/// Every contact of the object at `target` with any other object within `[T, T + h]`:
/// the same pairs, with the same numbers, that [`collisions`] reports for it.
pub fn collisions_of<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    target: usize,
    params: &QueryParams,
) -> Result<Answer, QueryError> {
    let (scene, prepare) = prepare(states, params)?;
    let t = target as u32;
    let (out, join_seconds) = timed(|| {
        (0..states.len() as u32)
            .into_par_iter()
            .filter(|&i| i != t)
            .fold(JoinOut::default, |mut out, i| {
                out.candidate(&scene, t, i);
                out
            })
            .reduce(JoinOut::default, JoinOut::merge)
    });
    let report = BroadReport {
        join_seconds,
        ..Default::default()
    };
    answer(states, out, report, prepare, params)
}

/// Validates the parameters, propagates every state to `T` and computes swept boxes.
fn prepare<'a, S: Borrow<ObjectState> + Sync>(
    states: &'a [S],
    params: &QueryParams,
) -> Result<(Scene<'a>, f64), QueryError> {
    let opts = params.contact;
    opts.validate()?;
    let scale = params.grid.cell_scale;
    if scale.iter().any(|c| !(c.is_finite() && *c > 0.0)) {
        return Err(QueryError::BadCellScale(scale));
    }
    if states.len() >= u32::MAX as usize {
        return Err(QueryError::TooManyObjects(states.len()));
    }
    let (at, h, m) = (opts.at, opts.horizon, opts.margin);
    Ok(timed(|| Scene::new(states, at, h, m)))
}

/// Names, orders and counts a join's output.
fn answer<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    out: JoinOut,
    report: BroadReport,
    prepare: f64,
    params: &QueryParams,
) -> Result<Answer, QueryError> {
    let at = params.contact.at;
    let counters = out.counters;
    let (pairs, finish) = timed(|| name_and_order(states, out, at));
    let pairs = pairs?;
    let phase_seconds = PhaseSeconds {
        prepare,
        index: report.index_seconds,
        join: report.join_seconds,
        finish,
    };
    let c = counters;
    let pct = |removed: u64, before: u64| {
        if before == 0 {
            0.0
        } else {
            100.0 * removed as f64 / before as f64
        }
    };
    let after_projection = c.candidates - c.pruned_projection;
    let grid = report.grid.unwrap_or_default();
    let is_grid = report.grid.is_some();
    let stats = QueryStats {
        objects: states.len() as u64,
        cell_size: is_grid.then_some(grid.cell_size),
        cells_per_axis: is_grid.then_some(grid.cells_per_axis),
        cells_used: is_grid.then_some(grid.cells_used),
        grid_entries: is_grid.then_some(grid.entries),
        large_objects: is_grid.then_some(grid.large_objects),
        working_bytes: is_grid.then_some(
            grid.working_bytes
                + (states.len() * (size_of::<&ObjectState>() + size_of::<crate::motion::Aabb>()))
                    as u64,
        ),
        candidate_pairs: c.candidates,
        pruned_projection: c.pruned_projection,
        pruned_time_interval: c.pruned_time,
        exact_solves: c.exact_solves,
        pairs_found: c.found,
        prune_power: PrunePower {
            projection: pct(c.pruned_projection, c.candidates),
            time_interval: pct(c.pruned_time, after_projection),
            exact: pct(c.exact_solves - c.found, c.exact_solves),
            total: pct(c.candidates - c.found, c.candidates),
        },
        query_seconds: prepare + report.index_seconds + report.join_seconds + finish,
        phase_seconds,
    };
    Ok(Answer {
        at,
        horizon: params.contact.horizon,
        margin: params.contact.margin,
        algorithm: params.algorithm,
        pairs,
        stats,
    })
}

/// Turns index pairs into named pairs (`a < b` bytewise) in absolute time, in answer order.
fn name_and_order<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    out: JoinOut,
    at: f64,
) -> Result<Vec<CollisionPair>, QueryError> {
    let mut pairs = out
        .hits
        .into_par_iter()
        .map(|hit| {
            let (x, y) = (
                states[hit.a as usize].borrow().id(),
                states[hit.b as usize].borrow().id(),
            );
            let (a, b) = match x.cmp(y) {
                std::cmp::Ordering::Less => (x, y),
                std::cmp::Ordering::Greater => (y, x),
                std::cmp::Ordering::Equal => return Err(QueryError::DuplicateId(x.to_string())),
            };
            Ok(CollisionPair {
                a: a.to_string(),
                b: b.to_string(),
                contact: PairContact::from_relative(hit.contact, at),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    pairs.par_sort_unstable_by(|p, q| {
        p.contact
            .t_contact
            .total_cmp(&q.contact.t_contact)
            .then_with(|| p.a.cmp(&q.a))
            .then_with(|| p.b.cmp(&q.b))
    });
    Ok(pairs)
}
