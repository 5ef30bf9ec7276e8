//! Broad phases: which pairs are worth testing. Three implementations behind one trait,
//! all feeding the same narrow phase ([`Scene::test_pair`]) so their answers are identical.

mod brute;
mod grid;
mod rtree;

pub use grid::{DEFAULT_CELL_SCALE, GridParams};

pub(crate) use brute::Brute;
pub(crate) use grid::Grid;
pub(crate) use rtree::RTreeJoin;

use std::borrow::Borrow;
use std::time::Instant;

use rayon::prelude::*;

use crate::contact::{Contact, PairKin};
use crate::hugebuf::HugeBuf;
use crate::motion::{Aabb, Body};
use crate::state::ObjectState;

/// The objects and their swept boxes over `[T, T + h]`: the input of every join.
///
/// Only the boxes are materialised. The narrow phase propagates the two states of a
/// candidate pair when it needs them: a scene of n objects has far fewer candidates than
/// objects, and writing a propagated copy of every state costs more memory bandwidth than
/// the whole join.
pub(crate) struct Scene<'a> {
    pub states: Vec<&'a ObjectState>,
    pub boxes: HugeBuf<Aabb>,
    pub at: f64,
    pub horizon: f64,
    pub margin: f64,
}

/// A pair found in contact, by object index (`a < b`), in query-relative time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub a: u32,
    pub b: u32,
    pub contact: Contact,
}

/// How many pairs each stage saw and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub candidates: u64,
    pub pruned_projection: u64,
    pub pruned_time: u64,
    pub exact_solves: u64,
    pub found: u64,
}

/// One thread's (or one join's) results.
#[derive(Debug, Default)]
pub(crate) struct JoinOut {
    pub hits: Vec<Hit>,
    pub counters: Counters,
}

impl JoinOut {
    pub fn merge(mut self, other: JoinOut) -> JoinOut {
        self.hits.extend(other.hits);
        let (c, o) = (&mut self.counters, other.counters);
        c.candidates += o.candidates;
        c.pruned_projection += o.pruned_projection;
        c.pruned_time += o.pruned_time;
        c.exact_solves += o.exact_solves;
        c.found += o.found;
        self
    }

    /// A candidate pair: the projection-overlap test, then the narrow phase.
    #[inline]
    pub fn candidate(&mut self, scene: &Scene<'_>, i: u32, j: u32) {
        self.counters.candidates += 1;
        if !scene.boxes[i as usize].overlaps(&scene.boxes[j as usize]) {
            self.counters.pruned_projection += 1;
            return;
        }
        scene.test_pair(i, j, self);
    }
}

impl<'a> Scene<'a> {
    /// Propagates every state to `at` and computes its swept box over `[at, at + h]`,
    /// grown by half the margin.
    pub fn new<S: Borrow<ObjectState> + Sync>(
        states: &'a [S],
        at: f64,
        horizon: f64,
        margin: f64,
    ) -> Scene<'a> {
        let states: Vec<&ObjectState> = states.par_iter().map(|s| s.borrow()).collect();
        let mut boxes = HugeBuf::zeroed(states.len());
        boxes
            .par_iter_mut()
            .zip(states.par_iter())
            .for_each(|(b, s)| *b = Body::new(s, at, horizon).swept_box(horizon, 0.5 * margin));
        Scene {
            states,
            boxes,
            at,
            horizon,
            margin,
        }
    }

    /// The narrow phase for a pair whose swept boxes overlap: the time-interval test, then
    /// the exact solve. The pair is always solved in index order so every broad phase gets
    /// bit-identical numbers for it.
    #[inline]
    pub fn test_pair(&self, i: u32, j: u32, out: &mut JoinOut) {
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        let body = |i: u32| Body::new(self.states[i as usize], self.at, self.horizon);
        let k = PairKin::new(&body(a), &body(b), self.margin);
        let Some(window) = k.window(self.horizon) else {
            out.counters.pruned_time += 1;
            return;
        };
        out.counters.exact_solves += 1;
        if let Some(contact) = k.solve(window) {
            out.counters.found += 1;
            out.hits.push(Hit { a, b, contact });
        }
    }
}

/// What a broad phase reports besides the pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BroadReport {
    pub index_seconds: f64,
    pub join_seconds: f64,
    pub grid: Option<GridReport>,
}

/// Grid shape and occupancy, for the statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GridReport {
    /// Cell size per axis.
    pub cell_size: [f64; 3],
    /// Number of cells per axis spanned by the scene.
    pub cells_per_axis: [u32; 3],
    /// Non-empty cells.
    pub cells_used: u64,
    /// (object, cell) entries in the grid.
    pub entries: u64,
    /// Objects whose swept box covered more cells than the cap; indexed apart.
    pub large_objects: u64,
    /// Bytes of the grid's own buffers (entries, flags, histograms).
    pub working_bytes: u64,
}

/// A broad phase: enumerate every pair whose swept boxes may overlap and hand each to
/// [`JoinOut::candidate`] or [`Scene::test_pair`] exactly once.
pub(crate) trait BroadPhase {
    /// Builds the index (timed as "index") and joins (timed as "join").
    fn join(&self, scene: &Scene<'_>) -> (JoinOut, BroadReport);
}

/// Times a closure.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t0 = Instant::now();
    let v = f();
    (v, t0.elapsed().as_secs_f64())
}
