//! GPCD's uniform grid (paper §3.2) with T-Collide-style spatial hashing.
//!
//! 1. Cell size per axis = `c_j ×` the mean swept-box length on that axis.
//! 2. Each swept box is "drawn" into every cell it covers; entries are bucketed by a hash of
//!    the cell key with a counting sort (two passes, no per-cell vectors).
//! 3. Pairs are enumerated per cell. A pair sharing several cells is tested only in its
//!    *reference cell* — the cell holding the minimum corner of the overlap of the two cell
//!    ranges — so each pair is tested exactly once without a set of seen pairs.
//!
//! Two guards keep skewed scenes from blowing up, which the paper leaves open:
//! - an object covering more than [`GridParams::max_cells_per_object`] cells (one moving
//!   far faster than the rest) is not drawn; such *large* objects go into a small R-tree,
//!   which every grid object queries and which is joined with itself;
//! - a cell holding more than [`GridParams::crowded_cell`] objects (a tight cluster) is
//!   sorted along x and swept, instead of comparing all its pairs.

use rayon::prelude::*;

use super::rtree::{envelope, tree_of};
use super::{BroadPhase, BroadReport, GridReport, JoinOut, Scene, timed};
use crate::motion::Aabb;

/// Tuning of the grid. `Default` is the paper's setting (`c_j = 1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridParams {
    /// `c_j`: cell size = `c_j ×` mean swept-box length on axis j. Smaller cells mean fewer
    /// false candidates per cell but more cells per object (more entries to build and
    /// scan); the paper's default 1 puts a typical box in 1–2 cells per axis.
    pub cell_scale: [f64; 3],
    /// Objects covering more cells than this are indexed apart (see the module docs).
    /// Too low sends ordinary objects to the slower side index; too high lets one fast
    /// object write thousands of entries.
    pub max_cells_per_object: u64,
    /// Cells with more objects than this are swept along x instead of compared all-pairs.
    pub crowded_cell: usize,
}

impl Default for GridParams {
    fn default() -> Self {
        GridParams {
            cell_scale: [1.0; 3],
            max_cells_per_object: 64,
            crowded_cell: 32,
        }
    }
}

/// Cells per axis are capped so a key packs into 21 bits per axis.
const AXIS_BITS: u32 = 21;
const MAX_CELLS_PER_AXIS: u32 = 1 << AXIS_BITS;

/// Grid geometry: where cells are and how big.
#[derive(Debug, Clone, Copy)]
struct Layout {
    origin: [f64; 3],
    size: [f64; 3],
    inv: [f64; 3],
    cells: [u32; 3],
}

impl Layout {
    fn new(boxes: &[Aabb], scale: [f64; 3]) -> Layout {
        let n = boxes.len().max(1) as f64;
        let mut origin = [f64::INFINITY; 3];
        let mut top = [f64::NEG_INFINITY; 3];
        let mut sum = [0.0f64; 3];
        for b in boxes {
            for j in 0..3 {
                origin[j] = origin[j].min(b.lo[j]);
                top[j] = top[j].max(b.hi[j]);
                sum[j] += b.hi[j] - b.lo[j];
            }
        }
        let mut size = [1.0; 3];
        let mut inv = [1.0; 3];
        let mut cells = [1; 3];
        for j in 0..3 {
            if boxes.is_empty() {
                origin[j] = 0.0;
                continue;
            }
            let extent = top[j] - origin[j];
            // Flat axis (every box has zero length): the mean is 0; fall back to one cell
            // per axis-extent chunk instead of dividing by zero.
            let floor = extent / (MAX_CELLS_PER_AXIS - 1) as f64;
            let mut s = scale[j] * sum[j] / n;
            if !(s >= floor && s > 0.0) {
                s = if floor > 0.0 { floor } else { 1.0 };
            }
            size[j] = s;
            inv[j] = 1.0 / s;
            cells[j] = ((extent * inv[j]).floor() as u64 + 1).min(MAX_CELLS_PER_AXIS as u64) as u32;
        }
        Layout {
            origin,
            size,
            inv,
            cells,
        }
    }

    /// Cell index of coordinate `x` on axis `j`. Monotone in `x`, so overlapping boxes
    /// always share a cell whatever the rounding.
    #[inline]
    fn cell(&self, j: usize, x: f64) -> u32 {
        let c = ((x - self.origin[j]) * self.inv[j]).floor();
        if c <= 0.0 {
            0
        } else if c >= (self.cells[j] - 1) as f64 {
            self.cells[j] - 1
        } else {
            c as u32
        }
    }

    fn range(&self, b: &Aabb) -> CellRange {
        CellRange {
            lo: std::array::from_fn(|j| self.cell(j, b.lo[j])),
            hi: std::array::from_fn(|j| self.cell(j, b.hi[j])),
        }
    }
}

/// The block of cells a swept box covers, inclusive.
#[derive(Debug, Clone, Copy)]
struct CellRange {
    lo: [u32; 3],
    hi: [u32; 3],
}

impl CellRange {
    fn count(&self) -> u64 {
        (0..3)
            .map(|j| (self.hi[j] - self.lo[j]) as u64 + 1)
            .product()
    }

    fn for_each_key(&self, mut f: impl FnMut(u64)) {
        for z in self.lo[2]..=self.hi[2] {
            for y in self.lo[1]..=self.hi[1] {
                for x in self.lo[0]..=self.hi[0] {
                    f(pack([x, y, z]));
                }
            }
        }
    }
}

#[inline]
fn pack(c: [u32; 3]) -> u64 {
    c[0] as u64 | (c[1] as u64) << AXIS_BITS | (c[2] as u64) << (2 * AXIS_BITS)
}

/// The reference cell of a pair: the minimum corner of the overlap of their cell ranges.
#[inline]
fn reference_key(a: &CellRange, b: &CellRange) -> u64 {
    pack([
        a.lo[0].max(b.lo[0]),
        a.lo[1].max(b.lo[1]),
        a.lo[2].max(b.lo[2]),
    ])
}

#[inline]
fn bucket_of(key: u64, shift: u32) -> usize {
    // Fibonacci hashing: keys of neighbouring cells land in unrelated buckets.
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

/// One (cell, object) entry of the grid.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    obj: u32,
}

pub(crate) struct Grid(pub GridParams);

/// The built grid: entries counting-sorted by bucket.
struct Built {
    layout: Layout,
    ranges: Vec<CellRange>,
    large: Vec<u32>,
    is_large: Vec<bool>,
    starts: Vec<u32>,
    entries: Vec<Entry>,
}

impl Grid {
    fn build(&self, boxes: &[Aabb]) -> Built {
        let layout = Layout::new(boxes, self.0.cell_scale);
        let ranges: Vec<CellRange> = boxes.par_iter().map(|b| layout.range(b)).collect();
        let cap = self.0.max_cells_per_object.max(1);
        let is_large: Vec<bool> = ranges.par_iter().map(|r| r.count() > cap).collect();
        let large: Vec<u32> = (0..boxes.len() as u32)
            .filter(|&i| is_large[i as usize])
            .collect();
        let total: u64 = ranges
            .par_iter()
            .zip(&is_large)
            .map(|(r, &l)| if l { 0 } else { r.count() })
            .sum();
        let nb = (total as usize).next_power_of_two().max(2);
        let shift = 64 - nb.trailing_zeros();
        // Counting sort by bucket: count, prefix-sum, scatter.
        let mut starts = vec![0u32; nb + 1];
        for (r, &l) in ranges.iter().zip(&is_large) {
            if !l {
                r.for_each_key(|k| starts[bucket_of(k, shift) + 1] += 1);
            }
        }
        for b in 0..nb {
            starts[b + 1] += starts[b];
        }
        let mut cursor = starts.clone();
        let mut entries = vec![Entry::default(); total as usize];
        for (i, (r, &l)) in ranges.iter().zip(&is_large).enumerate() {
            if !l {
                r.for_each_key(|key| {
                    let c = &mut cursor[bucket_of(key, shift)];
                    entries[*c as usize] = Entry { key, obj: i as u32 };
                    *c += 1;
                });
            }
        }
        Built {
            layout,
            ranges,
            large,
            is_large,
            starts,
            entries,
        }
    }
}

impl BroadPhase for Grid {
    fn join(&self, scene: &Scene) -> (JoinOut, BroadReport) {
        assert!(
            scene.boxes.len() < u32::MAX as usize,
            "the query checks the object count"
        );
        let (g, index_seconds) = timed(|| self.build(&scene.boxes));
        let crowded = self.0.crowded_cell.max(2);
        let ((out, cells_used), join_seconds) = timed(|| {
            let nb = g.starts.len() - 1;
            const CHUNK: usize = 1 << 10;
            let (mut out, cells_used) = (0..nb.div_ceil(CHUNK))
                .into_par_iter()
                .fold(
                    || (JoinOut::default(), 0u64, Vec::new()),
                    |(mut out, mut used, mut scratch), c| {
                        for b in c * CHUNK..((c + 1) * CHUNK).min(nb) {
                            let es = &g.entries[g.starts[b] as usize..g.starts[b + 1] as usize];
                            used += scan_bucket(scene, &g, es, crowded, &mut scratch, &mut out);
                        }
                        (out, used, scratch)
                    },
                )
                .map(|(o, u, _)| (o, u))
                .reduce(
                    || (JoinOut::default(), 0),
                    |(a, x), (b, y)| (a.merge(b), x + y),
                );
            if !g.large.is_empty() {
                out = out.merge(join_large(scene, &g));
            }
            (out, cells_used)
        });
        let report = BroadReport {
            index_seconds,
            join_seconds,
            grid: Some(GridReport {
                cell_size: g.layout.size,
                cells_per_axis: g.layout.cells,
                cells_used,
                entries: g.entries.len() as u64,
                large_objects: g.large.len() as u64,
            }),
        };
        (out, report)
    }
}

/// Tests every pair of one bucket that shares a cell, in that pair's reference cell only.
/// Returns the number of distinct cells in the bucket.
fn scan_bucket(
    scene: &Scene,
    g: &Built,
    es: &[Entry],
    crowded: usize,
    scratch: &mut Vec<Entry>,
    out: &mut JoinOut,
) -> u64 {
    if es.len() <= crowded {
        let mut cells = 0;
        for x in 0..es.len() {
            let (kx, ox) = (es[x].key, es[x].obj);
            if !es[..x].iter().any(|e| e.key == kx) {
                cells += 1;
            }
            for e in &es[x + 1..] {
                if e.key == kx {
                    pair_in_cell(scene, g, ox, e.obj, kx, out);
                }
            }
        }
        return cells;
    }
    // Crowded bucket: group by cell, and sweep each crowded cell along x.
    scratch.clear();
    scratch.extend_from_slice(es);
    let lo_x = |e: &Entry| scene.boxes[e.obj as usize].lo[0];
    scratch.sort_unstable_by(|a, b| a.key.cmp(&b.key).then(lo_x(a).total_cmp(&lo_x(b))));
    let mut cells = 0;
    for run in scratch.chunk_by(|a, b| a.key == b.key) {
        cells += 1;
        let key = run[0].key;
        for x in 0..run.len() {
            let ox = run[x].obj;
            let hi_x = scene.boxes[ox as usize].hi[0];
            for e in &run[x + 1..] {
                if run.len() > crowded && lo_x(e) > hi_x {
                    break; // sorted by lo_x: no later box overlaps on x either
                }
                pair_in_cell(scene, g, ox, e.obj, key, out);
            }
        }
    }
    cells
}

#[inline]
fn pair_in_cell(scene: &Scene, g: &Built, i: u32, j: u32, key: u64, out: &mut JoinOut) {
    if reference_key(&g.ranges[i as usize], &g.ranges[j as usize]) == key {
        out.candidate(scene, i, j);
    }
}

/// Pairs involving large objects: every grid object against an R-tree of the large ones,
/// and the large ones against each other.
fn join_large(scene: &Scene, g: &Built) -> JoinOut {
    let tree = tree_of(&scene.boxes, g.large.iter().copied());
    let n = scene.boxes.len() as u32;
    let small = (0..n)
        .into_par_iter()
        .filter(|&i| !g.is_large[i as usize])
        .fold(JoinOut::default, |mut out, i| {
            for hit in tree.locate_in_envelope_intersecting(envelope(&scene.boxes[i as usize])) {
                // The tree's envelope test is the projection test.
                out.counters.candidates += 1;
                scene.test_pair(i, hit.data, &mut out);
            }
            out
        })
        .reduce(JoinOut::default, JoinOut::merge);
    let mut big = JoinOut::default();
    for (x, y) in tree.intersection_candidates_with_other_tree(&tree) {
        if x.data < y.data {
            big.counters.candidates += 1;
            scene.test_pair(x.data, y.data, &mut big);
        }
    }
    small.merge(big)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn flat_axis_does_not_divide_by_zero() {
        let boxes = vec![
            Aabb {
                lo: [0.0, 0.0, 0.0],
                hi: [1.0, 1.0, 0.0],
            },
            Aabb {
                lo: [5.0, 5.0, 0.0],
                hi: [6.0, 6.0, 0.0],
            },
        ];
        let l = Layout::new(&boxes, [1.0; 3]);
        assert_eq!(l.size, [1.0, 1.0, 1.0]);
        assert_eq!(l.cells, [7, 7, 1]);
        assert_eq!(l.cell(2, 0.0), 0);
    }

    #[test]
    fn huge_extent_caps_cells_per_axis() {
        let boxes = vec![
            Aabb {
                lo: [0.0; 3],
                hi: [1e-6; 3],
            },
            Aabb {
                lo: [1e9; 3],
                hi: [1e9 + 1e-6; 3],
            },
        ];
        let l = Layout::new(&boxes, [1.0; 3]);
        assert!(l.cells.iter().all(|&c| c <= MAX_CELLS_PER_AXIS));
        assert_eq!(l.cell(0, 1e9 + 1e-6), l.cells[0] - 1);
    }

    #[test]
    fn reference_cell_is_shared_by_both_ranges() {
        let a = CellRange {
            lo: [1, 1, 0],
            hi: [3, 2, 0],
        };
        let b = CellRange {
            lo: [2, 0, 0],
            hi: [4, 1, 0],
        };
        assert_eq!(reference_key(&a, &b), pack([2, 1, 0]));
        let mut shared = 0;
        a.for_each_key(|k| {
            let mut inb = false;
            b.for_each_key(|kb| inb |= kb == k);
            shared += inb as u32;
        });
        assert_eq!(shared, 2);
    }
}
