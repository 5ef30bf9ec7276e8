//! GPCD's uniform grid (paper §3.2) with T-Collide-style spatial hashing.
//!
//! 1. Cell size per axis = `c_j ×` the mean swept-box length on that axis.
//! 2. Each swept box is "drawn" into every cell it covers (T-Collide). Each (cell, object)
//!    entry is one `u64`: a compact cell key (only as many bits per axis as the grid needs)
//!    above the object index. Entries are written in parallel straight into one array and
//!    sorted by one parallel radix scatter on the top key bits plus an in-cache sort per
//!    bucket, so every cell becomes one contiguous run: no hash map of vectors, no per-cell
//!    allocation, and few passes over memory (the build is bandwidth-bound).
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

/// Cells per axis are capped so a key always packs into 63 bits.
const MAX_CELLS_PER_AXIS: u32 = 1 << 21;

/// Grid geometry: where cells are and how big.
#[derive(Debug, Clone, Copy)]
struct Layout {
    origin: [f64; 3],
    size: [f64; 3],
    inv: [f64; 3],
    cells: [u32; 3],
    /// Bit offset of each axis in a cell key (x lowest).
    shift: [u32; 3],
    /// Bits a key uses in all.
    key_bits: u32,
}

impl Layout {
    fn new(boxes: &[Aabb], scale: [f64; 3], obj_bits: u32) -> Layout {
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
        let bits_of = |c: u32| u32::BITS - (c - 1).leading_zeros();
        let mut bits = cells.map(bits_of);
        // Keys must leave room for the object index in a u64 entry: coarsen the finest
        // axes until they fit (bigger cells are always conservative).
        while bits.iter().sum::<u32>() + obj_bits > 64 {
            let j = (0..3).max_by_key(|&j| bits[j]).unwrap_or(0);
            let extent = (cells[j] - 1) as f64 * size[j];
            size[j] *= 2.0;
            inv[j] = 1.0 / size[j];
            cells[j] = ((extent * inv[j]).floor() as u64 + 1).min(MAX_CELLS_PER_AXIS as u64) as u32;
            bits[j] = bits_of(cells[j]);
        }
        Layout {
            origin,
            size,
            inv,
            cells,
            shift: [0, bits[0], bits[0] + bits[1]],
            key_bits: bits.iter().sum(),
        }
    }

    #[inline]
    fn pack(&self, c: [u32; 3]) -> u64 {
        (c[0] as u64) << self.shift[0]
            | (c[1] as u64) << self.shift[1]
            | (c[2] as u64) << self.shift[2]
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

    fn for_each_cell(&self, mut f: impl FnMut([u32; 3])) {
        for z in self.lo[2]..=self.hi[2] {
            for y in self.lo[1]..=self.hi[1] {
                for x in self.lo[0]..=self.hi[0] {
                    f([x, y, z]);
                }
            }
        }
    }
}

/// The reference cell of a pair: the minimum corner of the overlap of their cell ranges.
#[inline]
fn reference_cell(a: &CellRange, b: &CellRange) -> [u32; 3] {
    [
        a.lo[0].max(b.lo[0]),
        a.lo[1].max(b.lo[1]),
        a.lo[2].max(b.lo[2]),
    ]
}

pub(crate) struct Grid(pub GridParams);

/// The built grid: entries grouped by cell, so each cell is one run.
struct Built {
    layout: Layout,
    large: Vec<u32>,
    is_large: Vec<bool>,
    /// Bytes of the buffers above and of the build's histograms.
    working_bytes: u64,
    /// `cell_key << obj_bits | object`, grouped by cell; objects ascend within a cell.
    entries: Vec<u64>,
    obj_bits: u32,
}

impl Built {
    #[inline]
    fn key(&self, e: u64) -> u64 {
        e >> self.obj_bits
    }
    #[inline]
    fn obj(&self, e: u64) -> u32 {
        (e & ((1u64 << self.obj_bits) - 1)) as u32
    }
}

/// Entries per top-level bucket to aim for: small enough to sort in cache.
const BUCKET_TARGET: usize = 4096;

impl Grid {
    /// Builds the grid and returns its entry count (for the micro-benchmarks).
    pub(crate) fn entries_of(&self, boxes: &[Aabb]) -> usize {
        self.build(boxes).entries.len()
    }

    /// Draws every box into its cells, writing each entry straight into its final bucket:
    /// one counting pass and one scatter pass over the boxes (per-thread histograms, each
    /// thread writing into its own slice of every bucket), then an in-cache radix sort of
    /// each bucket on the remaining key bits. No unsorted copy of the entries ever exists,
    /// which saves a pass over memory and half the peak.
    fn build(&self, boxes: &[Aabb]) -> Built {
        let n = boxes.len();
        let obj_bits = (u32::BITS - (n.max(2) as u32 - 1).leading_zeros()).max(1);
        let layout = Layout::new(boxes, self.0.cell_scale, obj_bits);
        let cap = self.0.max_cells_per_object.max(1);
        let key_bits = layout.key_bits;
        // Top-level buckets from the top key bits, ~BUCKET_TARGET entries each (about
        // eight entries per object with c = 1 in 3D), but at most 2^11 of them: the scatter
        // writes to every bucket of its thread at once, and more open pages than that
        // thrash the TLB (measured: 2^14 buckets made 10M objects 18% slower).
        let want = (8 * n / BUCKET_TARGET).max(1);
        let top = (usize::BITS - want.leading_zeros())
            .clamp(1, 11)
            .min(key_bits);
        let shift = obj_bits + key_bits - top;
        let bins = 1usize << top;
        let digit = |e: u64| ((e >> shift) as usize) & (bins - 1);
        let entry = |i: usize, c: [u32; 3]| layout.pack(c) << obj_bits | i as u64;
        // Fixed chunks of objects, in order: within a bucket chunk t's entries precede chunk
        // t+1's, so objects ascend within each cell whatever the thread count.
        let chunk = n.div_ceil(rayon::current_num_threads().max(1)).max(1);
        // Counting pass: per-thread histograms, and which objects are over the cell cap.
        let (hist, flags): (Vec<Vec<usize>>, Vec<Vec<bool>>) = boxes
            .par_chunks(chunk)
            .enumerate()
            .map(|(t, bs)| {
                let mut h = vec![0usize; bins];
                let mut big = Vec::with_capacity(bs.len());
                for (k, b) in bs.iter().enumerate() {
                    let i = t * chunk + k;
                    let r = layout.range(b);
                    let over = r.count() > cap;
                    big.push(over);
                    if !over {
                        r.for_each_cell(|c| h[digit(entry(i, c))] += 1);
                    }
                }
                (h, big)
            })
            .unzip();
        let is_large: Vec<bool> = flags.concat();
        let large: Vec<u32> = (0..n as u32).filter(|&i| is_large[i as usize]).collect();
        let total: usize = hist.iter().flatten().sum();
        let mut entries = vec![0u64; total];
        let mut dest: Vec<Vec<&mut [u64]>> =
            hist.iter().map(|_| Vec::with_capacity(bins)).collect();
        let mut bucket_len = vec![0usize; bins];
        let mut rest = entries.as_mut_slice();
        for (b, len) in bucket_len.iter_mut().enumerate() {
            for (t, h) in hist.iter().enumerate() {
                let (head, tail) = rest.split_at_mut(h[b]);
                dest[t].push(head);
                rest = tail;
                *len += h[b];
            }
        }
        boxes
            .par_chunks(chunk)
            .enumerate()
            .zip(dest.into_par_iter())
            .for_each(|((t, bs), mut dest)| {
                let mut cursor = vec![0usize; bins];
                for (k, b) in bs.iter().enumerate() {
                    let i = t * chunk + k;
                    if !is_large[i] {
                        layout.range(b).for_each_cell(|c| {
                            let e = entry(i, c);
                            let d = digit(e);
                            dest[d][cursor[d]] = e;
                            cursor[d] += 1;
                        });
                    }
                }
            });
        let mut buckets = Vec::with_capacity(bins);
        let mut rest = entries.as_mut_slice();
        for &len in &bucket_len {
            let (head, tail) = rest.split_at_mut(len);
            buckets.push(head);
            rest = tail;
        }
        let rest_bits = key_bits - top;
        buckets
            .into_par_iter()
            .for_each_init(Vec::new, |scratch, b| {
                radix_in_cache(b, scratch, obj_bits, rest_bits)
            });
        let working_bytes =
            (entries.len() * 8 + is_large.len() + large.len() * 4 + hist.len() * bins * 8 * 2)
                as u64;
        Built {
            layout,
            large,
            is_large,
            working_bytes,
            entries,
            obj_bits,
        }
    }
}

/// Stable LSD radix sort of a small slice on bits `[low, low + bits)`, 9 bits a pass.
fn radix_in_cache(v: &mut [u64], scratch: &mut Vec<u64>, low: u32, bits: u32) {
    const DIGIT: u32 = 9;
    const BINS: usize = 1 << DIGIT;
    if bits == 0 || v.len() < 2 {
        return;
    }
    if v.len() <= 32 {
        // Insertion sort (stable) beats radix passes on tiny buckets.
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && (v[j - 1] >> low) > (v[j] >> low) {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    scratch.clear();
    scratch.resize(v.len(), 0);
    let end = low + bits;
    let mut shift = low;
    let mut in_scratch = false;
    while shift < end {
        let (src, dst): (&[u64], &mut [u64]) = if in_scratch {
            (scratch.as_slice(), &mut *v)
        } else {
            (&*v, scratch.as_mut_slice())
        };
        let width = DIGIT.min(end - shift);
        let mask = (1usize << width) - 1;
        let mut count = [0usize; BINS];
        for &e in src {
            count[((e >> shift) as usize) & mask] += 1;
        }
        let mut sum = 0;
        for c in count.iter_mut() {
            let k = *c;
            *c = sum;
            sum += k;
        }
        for &e in src {
            let d = ((e >> shift) as usize) & mask;
            dst[count[d]] = e;
            count[d] += 1;
        }
        in_scratch = !in_scratch;
        shift += width;
    }
    if in_scratch {
        v.copy_from_slice(scratch);
    }
}

impl BroadPhase for Grid {
    fn join(&self, scene: &Scene<'_>) -> (JoinOut, BroadReport) {
        assert!(
            scene.boxes.len() < u32::MAX as usize,
            "the query checks the object count"
        );
        let (g, index_seconds) = timed(|| self.build(&scene.boxes));
        let crowded = self.0.crowded_cell.max(2);
        let ((out, cells_used), join_seconds) = timed(|| {
            // Split the sorted entries into pieces that start at a cell boundary.
            let es = &g.entries;
            let pieces = (rayon::current_num_threads() * 64).max(1);
            let mut cuts: Vec<usize> = (0..=pieces).map(|k| k * es.len() / pieces).collect();
            for c in cuts.iter_mut().take(pieces).skip(1) {
                while *c < es.len() && *c > 0 && g.key(es[*c]) == g.key(es[*c - 1]) {
                    *c += 1;
                }
            }
            let (mut out, cells_used) = cuts
                .par_windows(2)
                .fold(
                    || (JoinOut::default(), 0u64, Vec::new()),
                    |(mut out, mut used, mut scratch), w| {
                        if w[0] < w[1] {
                            for run in es[w[0]..w[1]].chunk_by(|a, b| g.key(*a) == g.key(*b)) {
                                used += 1;
                                scan_cell(scene, &g, run, crowded, &mut scratch, &mut out);
                            }
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
                working_bytes: g.working_bytes,
            }),
        };
        (out, report)
    }
}

/// Tests every pair in one cell that has this cell as its reference cell.
fn scan_cell(
    scene: &Scene<'_>,
    g: &Built,
    run: &[u64],
    crowded: usize,
    scratch: &mut Vec<u32>,
    out: &mut JoinOut,
) {
    if run.len() < 2 {
        return;
    }
    let key = g.key(run[0]);
    if run.len() <= crowded {
        for (x, &e) in run.iter().enumerate() {
            for &f in &run[x + 1..] {
                pair_in_cell(scene, g, g.obj(e), g.obj(f), key, out);
            }
        }
        return;
    }
    // Crowded cell: sort along x and sweep, so pairs apart on x are never enumerated.
    scratch.clear();
    scratch.extend(run.iter().map(|&e| g.obj(e)));
    let lo_x = |i: u32| scene.boxes[i as usize].lo[0];
    scratch.sort_unstable_by(|&a, &b| lo_x(a).total_cmp(&lo_x(b)).then(a.cmp(&b)));
    for (x, &i) in scratch.iter().enumerate() {
        let hi_x = scene.boxes[i as usize].hi[0];
        for &j in &scratch[x + 1..] {
            if lo_x(j) > hi_x {
                break;
            }
            pair_in_cell(scene, g, i, j, key, out);
        }
    }
}

#[inline]
fn pair_in_cell(scene: &Scene<'_>, g: &Built, i: u32, j: u32, key: u64, out: &mut JoinOut) {
    // Cell ranges are recomputed from the boxes (the same monotone function as when the
    // grid was drawn) rather than stored: 24 bytes per object less during the query.
    let r = reference_cell(
        &g.layout.range(&scene.boxes[i as usize]),
        &g.layout.range(&scene.boxes[j as usize]),
    );
    if g.layout.pack(r) == key {
        out.candidate(scene, i, j);
    }
}

/// Pairs involving large objects: every grid object against an R-tree of the large ones,
/// and the large ones against each other.
fn join_large(scene: &Scene<'_>, g: &Built) -> JoinOut {
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
        let l = Layout::new(&boxes, [1.0; 3], 20);
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
        let l = Layout::new(&boxes, [1.0; 3], 20);
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
        assert_eq!(reference_cell(&a, &b), [2, 1, 0]);
        let mut shared = 0;
        a.for_each_cell(|k| {
            let mut inb = false;
            b.for_each_cell(|kb| inb |= kb == k);
            shared += inb as u32;
        });
        assert_eq!(shared, 2);
    }

    #[test]
    fn build_groups_entries_by_cell_with_objects_ascending() {
        // Enough boxes for many top-level buckets; some spanning several cells.
        let boxes: Vec<Aabb> = (0..20_000u32)
            .map(|i| {
                let x = ((i * 7919) % 1000) as f64;
                let y = ((i * 104_729) % 1000) as f64;
                let w = if i % 7 == 0 { 2.5 } else { 0.4 };
                Aabb {
                    lo: [x, y, 0.0],
                    hi: [x + w, y + w, 1.0],
                }
            })
            .collect();
        let g = Grid(GridParams::default()).build(&boxes);
        let mut want: Vec<u64> = Vec::new();
        for (i, b) in boxes.iter().enumerate() {
            g.layout
                .range(b)
                .for_each_cell(|c| want.push(g.layout.pack(c) << g.obj_bits | i as u64));
        }
        want.sort_unstable();
        assert_eq!(g.entries, want);
    }

    #[test]
    fn keys_coarsen_to_leave_room_for_object_indices() {
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
        let l = Layout::new(&boxes, [1.0; 3], 30);
        assert!(l.key_bits + 30 <= 64, "{l:?}");
        assert_eq!(l.cell(0, 1e9 + 1e-6), l.cells[0] - 1);
        assert_eq!(l.cell(0, 0.0), 0);
    }
}
