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
use crate::filter::PairFilter;
use crate::geo::PairGeo;
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
    /// Age of `a`'s state at the query time: `T − t` (seconds since its last report).
    pub age_a: f64,
    /// Age of `b`'s state at the query time.
    pub age_b: f64,
    /// For geographic objects: where each object is at contact and at closest approach.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub geo: Option<PairGeo>,
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
    /// Objects left out because their state was older than `max_age`.
    pub objects_stale: u64,
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
    /// Pairs in contact that the filter (`min_speed`, `exclude_status`, `same_group`) dropped.
    pub pairs_filtered: u64,
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
    collisions_filtered(states, params, &PairFilter::default())
}

/// [`collisions`], reporting only the pairs `filter` keeps (and leaving out stale states).
pub fn collisions_filtered<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    params: &QueryParams,
    filter: &PairFilter,
) -> Result<Answer, QueryError> {
    filter.validate()?;
    let at = params.contact.at;
    if filter.max_age.is_some() {
        let fresh: Vec<&ObjectState> = states
            .iter()
            .map(Borrow::borrow)
            .filter(|s| filter.is_fresh(s, at))
            .collect();
        if fresh.len() < states.len() {
            let mut answer = all_pairs_owned(&fresh, params, filter, None)?;
            answer.stats.objects = states.len() as u64;
            answer.stats.objects_stale = (states.len() - fresh.len()) as u64;
            return Ok(answer);
        }
    }
    all_pairs_owned(states, params, filter, None)
}

/// All pairs; with `home`, only the pairs whose first object (`a`, the smaller id) is home
/// (geographic frames, where the other objects are guests from neighbouring tiles).
pub(crate) fn all_pairs_owned<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    params: &QueryParams,
    filter: &PairFilter,
    home: Option<&[bool]>,
) -> Result<Answer, QueryError> {
    let (scene, prepare) = prepare(states, params)?;
    let (out, report) = match params.algorithm {
        Algorithm::Grid => Grid(params.grid).join(&scene),
        Algorithm::Rtree => RTreeJoin.join(&scene),
        Algorithm::Brute => Brute.join(&scene),
    };
    answer(states, out, report, prepare, params, filter, home)
}

/// Every contact of the object at `target` with any other object within `[T, T + h]`:
/// the same pairs, with the same numbers, that [`collisions`] reports for it.
pub fn collisions_of<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    target: usize,
    params: &QueryParams,
    filter: &PairFilter,
) -> Result<Answer, QueryError> {
    filter.validate()?;
    let (scene, prepare) = prepare(states, params)?;
    let t = target as u32;
    let at = params.contact.at;
    let fresh = |i: u32| filter.is_fresh(states[i as usize].borrow(), at);
    let (out, join_seconds) = timed(|| {
        (0..states.len() as u32)
            .into_par_iter()
            .filter(|&i| i != t && fresh(i) && fresh(t))
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
    answer(states, out, report, prepare, params, filter, None)
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
    filter: &PairFilter,
    home: Option<&[bool]>,
) -> Result<Answer, QueryError> {
    let at = params.contact.at;
    let counters = out.counters;
    let (named, finish) = timed(|| name_and_order(states, out, at, filter, home));
    let (pairs, filtered) = named?;
    let phase_seconds = PhaseSeconds {
        prepare,
        index: report.index_seconds,
        join: report.join_seconds,
        finish,
    };
    let c = counters;
    let grid = report.grid.unwrap_or_default();
    let is_grid = report.grid.is_some();
    let mut stats = QueryStats {
        objects: states.len() as u64,
        objects_stale: 0,
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
        pairs_found: pairs.len() as u64,
        pairs_filtered: filtered,
        prune_power: PrunePower::default(),
        query_seconds: prepare + report.index_seconds + report.join_seconds + finish,
        phase_seconds,
    };
    stats.prune_power = prune_power(&stats);
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
    filter: &PairFilter,
    home: Option<&[bool]>,
) -> Result<(Vec<CollisionPair>, u64), QueryError> {
    let check = filter.drops_pairs();
    let filtered = std::sync::atomic::AtomicU64::new(0);
    let mut pairs = out
        .hits
        .into_par_iter()
        .filter_map(|hit| {
            let (x, y) = (
                states[hit.a as usize].borrow(),
                states[hit.b as usize].borrow(),
            );
            let ((a, ia), (b, _)) = match x.id().cmp(y.id()) {
                std::cmp::Ordering::Less => ((x, hit.a), (y, hit.b)),
                std::cmp::Ordering::Greater => ((y, hit.b), (x, hit.a)),
                std::cmp::Ordering::Equal => {
                    return Some(Err(QueryError::DuplicateId(x.id().to_string())));
                }
            };
            if home.is_some_and(|h| !h[ia as usize]) {
                return None; // answered in `a`'s own frame
            }
            if check && !filter.keeps(a, b, at) {
                filtered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return None;
            }
            Some(Ok(CollisionPair {
                a: a.id().to_string(),
                b: b.id().to_string(),
                contact: PairContact::from_relative(hit.contact, at),
                age_a: at - a.t(),
                age_b: at - b.t(),
                geo: None,
            }))
        })
        .collect::<Result<Vec<_>, _>>()?;
    sort_pairs(&mut pairs);
    Ok((pairs, filtered.into_inner()))
}

/// Answer order: `t_contact`, then `a`, then `b`.
pub(crate) fn sort_pairs(pairs: &mut [CollisionPair]) {
    pairs.par_sort_unstable_by(|p, q| {
        p.contact
            .t_contact
            .total_cmp(&q.contact.t_contact)
            .then_with(|| p.a.cmp(&q.a))
            .then_with(|| p.b.cmp(&q.b))
    });
}

impl QueryStats {
    /// Adds another query's counts and times to these (for answers computed in parts).
    pub(crate) fn absorb(&mut self, o: &QueryStats) {
        self.objects += o.objects;
        self.objects_stale += o.objects_stale;
        self.cells_used = add_opt(self.cells_used, o.cells_used);
        self.grid_entries = add_opt(self.grid_entries, o.grid_entries);
        self.large_objects = add_opt(self.large_objects, o.large_objects);
        self.working_bytes = add_opt(self.working_bytes, o.working_bytes);
        self.cell_size = self.cell_size.or(o.cell_size);
        self.cells_per_axis = self.cells_per_axis.or(o.cells_per_axis);
        self.candidate_pairs += o.candidate_pairs;
        self.pruned_projection += o.pruned_projection;
        self.pruned_time_interval += o.pruned_time_interval;
        self.exact_solves += o.exact_solves;
        self.pairs_found += o.pairs_found;
        self.pairs_filtered += o.pairs_filtered;
        let (p, q) = (&mut self.phase_seconds, &o.phase_seconds);
        p.prepare += q.prepare;
        p.index += q.index;
        p.join += q.join;
        p.finish += q.finish;
        self.query_seconds += o.query_seconds;
        self.prune_power = prune_power(self);
    }
}

fn add_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        _ => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

/// GPCD eq. (5) per stage, from a query's counts.
fn prune_power(s: &QueryStats) -> PrunePower {
    let pct = |removed: u64, before: u64| {
        if before == 0 {
            0.0
        } else {
            100.0 * removed as f64 / before as f64
        }
    };
    let found = s.pairs_found + s.pairs_filtered;
    PrunePower {
        projection: pct(s.pruned_projection, s.candidate_pairs),
        time_interval: pct(
            s.pruned_time_interval,
            s.candidate_pairs - s.pruned_projection,
        ),
        exact: pct(s.exact_solves - found, s.exact_solves),
        total: pct(s.candidate_pairs - found, s.candidate_pairs),
    }
}
